import { useState } from 'react';
import { api, ApiError } from '../api/client';
import { AgentVersion } from '../components/AgentVersion';
import { Badge, ErrorBanner, PageHead, Section } from '../components/ui';
import { installRequest, type InstallForm } from '../lib/agentInstall';
import { fmtTime } from '../lib/format';
import { useInterval, useLoad } from '../lib/hooks';
import { compareVersions, newestVersion, parseVersion } from '../lib/versions';
import { href, navigate } from '../router';
import { useSession } from '../session';
import type { Agent, AgentInstallTask, AgentPackage, Business } from '../types';

const MAX_AGENT_ROWS = 500;

/** A refusal found before sending, shown like the server's problems. */
export function formProblem(errors: Array<{ field: string; message: string }>): ApiError {
  return new ApiError({ title: 'Check the form', status: 0, errors });
}

function InstallAgentsForm({ packages }: { packages: AgentPackage[] }) {
  const { who } = useSession();
  const businesses = useLoad((signal) => api.get<Business[]>('/api/v1/businesses', { signal }), []);
  const mine = (businesses.data ?? []).filter((b) => who.bk_biz_ids.length === 0 || who.bk_biz_ids.includes(b.bk_biz_id));
  const [form, setForm] = useState<InstallForm>({ hosts: '', port: '22', user: 'root', auth: 'key', privateKey: '', password: '', jump: '', bizId: '', concurrency: '50', packageVersion: '', masters: '' });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof InstallForm>(k: K, v: InstallForm[K]) => setForm((f) => ({ ...f, [k]: v }));
  const bizId = form.bizId || (mine[0] ? String(mine[0].bk_biz_id) : '');
  const versions = Array.from(new Set(packages.map((p) => p.version))).sort((a, b) => {
    const x = parseVersion(a);
    const y = parseVersion(b);
    return x && y ? compareVersions(y, x) : a.localeCompare(b);
  });
  return (
    <form
      className="form"
      data-testid="install-form"
      autoComplete="off"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        const r = installRequest({ ...form, bizId });
        if (!r.body) {
          setError(formProblem(r.errors));
          return;
        }
        setBusy(true);
        try {
          const task = await api.post<AgentInstallTask>('/api/v1/agent-installs', r.body);
          // the credentials were for this run only: nothing keeps them once it has started
          setForm((f) => ({ ...f, privateKey: '', password: '' }));
          navigate(`/agent-installs/${task.id}`);
        } catch (x) {
          setError(x);
        } finally {
          setBusy(false);
        }
      }}
    >
      <ErrorBanner error={error} onClose={() => setError(null)} />
      <div className="form-grid">
        <label className="span2">
          Hosts (one per line or comma-separated; host:port for another SSH port)
          <textarea rows={4} className="mono" value={form.hosts} onChange={(e) => set('hosts', e.target.value)} spellCheck={false} placeholder={'10.0.1.5\n10.0.1.6, web-3.example:2222'} data-testid="install-hosts" />
        </label>
        <label>
          SSH port
          <input value={form.port} onChange={(e) => set('port', e.target.value)} inputMode="numeric" data-testid="install-port" />
        </label>
        <label>
          SSH user
          <input value={form.user} onChange={(e) => set('user', e.target.value)} data-testid="install-user" />
        </label>
        <label>
          Business
          <select value={bizId} onChange={(e) => set('bizId', e.target.value)} data-testid="install-business">
            {mine.map((b) => (
              <option key={b.bk_biz_id} value={b.bk_biz_id}>
                {b.bk_biz_name} (#{b.bk_biz_id})
              </option>
            ))}
          </select>
        </label>
        <label>
          Hosts at a time
          <input value={form.concurrency} onChange={(e) => set('concurrency', e.target.value)} inputMode="numeric" />
        </label>
        <label>
          Agent package
          <select value={form.packageVersion} onChange={(e) => set('packageVersion', e.target.value)} data-testid="install-version">
            <option value="">the newest for each host's architecture</option>
            {versions.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <label>
          Jump host (optional, user@host:port)
          <input value={form.jump} onChange={(e) => set('jump', e.target.value)} placeholder="ops@bastion.example:22" />
        </label>
        <label className="span2">
          Server addresses the agents connect to (optional when the server advertises one; HOST:PORT, comma-separated)
          <input className="mono" value={form.masters} onChange={(e) => set('masters', e.target.value)} placeholder="drover.example:4506" data-testid="install-masters" />
        </label>
        <div className="span2">
          <div className="radio-row">
            <label className="inline">
              <input type="radio" name="auth" checked={form.auth === 'key'} onChange={() => set('auth', 'key')} /> Private key
            </label>
            <label className="inline">
              <input type="radio" name="auth" checked={form.auth === 'password'} onChange={() => set('auth', 'password')} data-testid="install-auth-password" /> Password
            </label>
          </div>
        </div>
        {form.auth === 'key' ? (
          <label className="span2">
            Private key (PEM or OpenSSH, unencrypted; used for this run only, never stored)
            <textarea rows={5} className="mono" value={form.privateKey} onChange={(e) => set('privateKey', e.target.value)} spellCheck={false} autoComplete="off" placeholder="-----BEGIN OPENSSH PRIVATE KEY-----" data-testid="install-key" />
          </label>
        ) : (
          <label>
            Password (used for this run only, never stored)
            <input type="password" value={form.password} onChange={(e) => set('password', e.target.value)} autoComplete="new-password" data-testid="install-password" />
          </label>
        )}
      </div>
      <div className="actions">
        <button type="submit" className="btn-primary" disabled={busy} data-testid="install-submit">
          {busy ? 'Starting…' : 'Install agents'}
        </button>
      </div>
    </form>
  );
}

function InstallTasks() {
  const tasks = useLoad((signal) => api.get<AgentInstallTask[]>('/api/v1/agent-installs', { signal }), []);
  const running = (tasks.data ?? []).some((t) => t.status === 'running');
  useInterval(tasks.reload, running ? 3000 : null);
  return (
    <Section title="Install tasks" actions={<button type="button" onClick={tasks.reload}>Refresh</button>} testid="install-tasks">
      <ErrorBanner error={tasks.error} />
      <table className="table table-hover">
        <thead>
          <tr>
            <th>ID</th>
            <th>Status</th>
            <th>Business</th>
            <th>Hosts</th>
            <th>Succeeded</th>
            <th>Failed</th>
            <th>SSH user</th>
            <th>By</th>
            <th>Started</th>
            <th>Ended</th>
          </tr>
        </thead>
        <tbody>
          {(tasks.data ?? []).map((t) => (
            <tr key={t.id} className="clickable" data-testid="install-task-row" onClick={() => navigate(`/agent-installs/${t.id}`)}>
              <td>
                <a href={href(`/agent-installs/${t.id}`)}>#{t.id}</a>
              </td>
              <td data-status={t.status}>
                <Badge status={t.status} />
              </td>
              <td>{t.bk_biz_id}</td>
              <td>{t.total}</td>
              <td>{t.succeeded}</td>
              <td>{t.failed}</td>
              <td>{t.ssh_user}{t.jump ? ` via ${t.jump}` : ''}</td>
              <td>{t.created_by}</td>
              <td className="small">{fmtTime(t.created_at)}</td>
              <td className="small">{fmtTime(t.finished_at)}</td>
            </tr>
          ))}
          {tasks.data && tasks.data.length === 0 && (
            <tr>
              <td colSpan={10} className="muted">
                No agent installs yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </Section>
  );
}

function AgentTable({ newest }: { newest?: string }) {
  const agents = useLoad((signal) => api.get<Agent[]>('/api/v1/agents', { signal }), []);
  const all = agents.data ?? [];
  const shown = all.slice(0, MAX_AGENT_ROWS);
  return (
    <Section title="Agents and their versions" actions={<button type="button" onClick={agents.reload}>Refresh</button>} testid="agent-versions">
      <ErrorBanner error={agents.error} />
      <p className="muted small">{newest ? `The newest registered agent package is ${newest}; older agents are flagged.` : 'No agent package is registered: versions are not compared.'}</p>
      <table className="table">
        <thead>
          <tr>
            <th>Agent id</th>
            <th>Host</th>
            <th>Business</th>
            <th>Online</th>
            <th>Version</th>
            <th>Last seen</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((a) => (
            <tr key={a.id} data-testid="agent-row">
              <td>{a.id}</td>
              <td>{a.bk_host_id != null ? <a href={href(`/hosts/${a.bk_host_id}`)}>host {a.bk_host_id}</a> : <span className="muted">not linked</span>}</td>
              <td>{a.bk_biz_id ?? '—'}</td>
              <td>
                <Badge status={a.online ? 'ONLINE' : 'LOST'} />
              </td>
              <td>
                <AgentVersion version={a.version} newest={newest} />
              </td>
              <td className="small">{fmtTime(a.last_seen)}</td>
            </tr>
          ))}
          {agents.data && all.length === 0 && (
            <tr>
              <td colSpan={6} className="muted">
                No agents yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {all.length > shown.length && <p className="muted small">The first {MAX_AGENT_ROWS} of {all.length} agents.</p>}
    </Section>
  );
}

export function AgentInstalls() {
  const { can } = useSession();
  const packages = useLoad((signal) => (can('GET', '/api/v1/agent-packages') ? api.get<AgentPackage[]>('/api/v1/agent-packages', { signal }) : Promise.resolve([])), []);
  const newest = newestVersion((packages.data ?? []).map((p) => p.version));
  return (
    <div>
      <PageHead title="Install agents" sub="Install agents on hosts over SSH, follow each host's steps, and see which agents are old" />
      {can('POST', '/api/v1/agent-installs') && (
        <Section title="Install on hosts">
          <ErrorBanner error={packages.error} />
          <InstallAgentsForm packages={packages.data ?? []} />
        </Section>
      )}
      <InstallTasks />
      {can('GET', '/api/v1/agents') && <AgentTable newest={newest} />}
    </div>
  );
}
