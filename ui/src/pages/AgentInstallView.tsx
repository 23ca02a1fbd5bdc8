import { useState } from 'react';
import { api } from '../api/client';
import { Badge, ErrorBanner, Loading, PageHead, Section } from '../components/ui';
import { fmtDuration, fmtTime } from '../lib/format';
import { useInterval, useLoad } from '../lib/hooks';
import { href } from '../router';
import { useSession } from '../session';
import type { AgentInstallHost, AgentInstallTask } from '../types';
import { formProblem } from './AgentInstalls';

function HostRow({ host }: { host: AgentInstallHost }) {
  const [open, setOpen] = useState<boolean | null>(null);
  // running and failed hosts show their steps until the reader folds them
  const shown = open ?? (host.status === 'running' || host.status === 'failed');
  return (
    <>
      <tr data-testid="install-host" data-status={host.status} className="clickable" onClick={() => setOpen(!shown)}>
        <td>
          <button type="button" className="tree-toggle" aria-expanded={shown} aria-label={shown ? 'Collapse' : 'Expand'}>
            {shown ? '▾' : '▸'}
          </button>
          <span className="mono">
            {host.address}:{host.port}
          </span>
          {host.error && (
            <div className="host-error" data-testid="install-host-error">
              {host.error}
            </div>
          )}
        </td>
        <td>
          <Badge status={host.status} />
        </td>
        <td>{host.agent_id}</td>
        <td>{host.bk_host_id != null ? <a href={href(`/hosts/${host.bk_host_id}`)} onClick={(e) => e.stopPropagation()}>host {host.bk_host_id}</a> : host.inner_ip ?? '—'}</td>
        <td className="small">{[host.arch, host.version].filter(Boolean).join(' · ') || '—'}</td>
        <td className="small">{(host.steps ?? []).length ? (host.steps ?? [])[host.steps!.length - 1].name : '—'}</td>
        <td className="small">{fmtTime(host.started_at)}</td>
        <td className="small">{host.started_at ? fmtDuration(host.started_at, host.finished_at) : '—'}</td>
      </tr>
      {shown && (host.steps ?? []).length > 0 && (
        <tr className="sub">
          <td colSpan={8}>
            <table className="table substeps" data-testid="install-steps">
              <tbody>
                {(host.steps ?? []).map((st, i) => (
                  <tr key={i} data-testid="install-step" data-status={st.status}>
                    <td className="w40">
                      <strong>{st.name}</strong>
                      {st.log && st.log.length > 0 && <pre className="log">{st.log.join('\n')}</pre>}
                    </td>
                    <td>
                      <Badge status={st.status} />
                    </td>
                    <td className="small">{fmtTime(st.started_at)}</td>
                    <td className="small">{fmtDuration(st.started_at, st.finished_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </td>
        </tr>
      )}
    </>
  );
}

/** The failed hosts again: the credentials must be given again, since the server never keeps them. */
function RetryForm({ task, onDone }: { task: AgentInstallTask; onDone: () => void }) {
  const [auth, setAuth] = useState<'key' | 'password'>('key');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="form"
      data-testid="retry-form"
      autoComplete="off"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        if (!secret) {
          setError(formProblem([{ field: auth === 'key' ? 'ssh_private_key' : 'ssh_password', message: `is required: the ${auth === 'key' ? 'key' : 'password'} for ${task.ssh_user}` }]));
          return;
        }
        setBusy(true);
        try {
          await api.post(`/api/v1/agent-installs/${task.id}/retry`, auth === 'key' ? { ssh_private_key: secret } : { ssh_password: secret });
          setSecret('');
          onDone();
        } catch (x) {
          setError(x);
        } finally {
          setBusy(false);
        }
      }}
    >
      <ErrorBanner error={error} onClose={() => setError(null)} />
      <div className="radio-row">
        <label className="inline">
          <input type="radio" name="retry-auth" checked={auth === 'key'} onChange={() => setAuth('key')} /> Private key
        </label>
        <label className="inline">
          <input type="radio" name="retry-auth" checked={auth === 'password'} onChange={() => setAuth('password')} data-testid="retry-auth-password" /> Password
        </label>
      </div>
      {auth === 'key' ? (
        <label>
          Private key of {task.ssh_user}
          <textarea rows={4} className="mono" value={secret} onChange={(e) => setSecret(e.target.value)} spellCheck={false} autoComplete="off" />
        </label>
      ) : (
        <label>
          Password of {task.ssh_user}
          <input type="password" value={secret} onChange={(e) => setSecret(e.target.value)} autoComplete="new-password" data-testid="retry-password" />
        </label>
      )}
      <div className="actions">
        <button type="submit" className="btn-primary" disabled={busy} data-testid="retry-failed">
          {busy ? 'Retrying…' : `Retry failed hosts (${task.failed})`}
        </button>
      </div>
    </form>
  );
}

export function AgentInstallView({ id }: { id: string }) {
  const { can } = useSession();
  const task = useLoad((signal) => api.get<AgentInstallTask>(`/api/v1/agent-installs/${encodeURIComponent(id)}`, { signal }), [id]);
  const t = task.data;
  const running = !!t && t.status === 'running';
  useInterval(task.reload, running ? 1500 : null);
  return (
    <div>
      <PageHead
        title={`Agent install #${id}`}
        sub={
          <span>
            <a href={href('/agents')}>← Install agents</a>
            {running ? ' · refreshing every 1.5 s while it runs' : ''}
          </span>
        }
        actions={<button type="button" onClick={task.reload}>Refresh</button>}
      />
      <ErrorBanner error={task.error} />
      {task.loading && !t ? <Loading /> : null}
      {t && (
        <>
          <div className="summary-row" data-testid="install-summary">
            <span data-status={t.status} data-testid="install-status">
              <Badge status={t.status} />
            </span>
            <span>business {t.bk_biz_id}</span>
            <span>
              {t.ssh_user}
              {t.jump ? ` via ${t.jump}` : ''}
            </span>
            <span>by {t.created_by}</span>
            <span>started {fmtTime(t.created_at)}</span>
            <span>took {fmtDuration(t.created_at, t.finished_at)}</span>
            <span className="chip">
              hosts <strong>{t.total}</strong>
            </span>
            <span className="chip">
              succeeded <strong>{t.succeeded}</strong>
            </span>
            <span className="chip">
              failed <strong>{t.failed}</strong>
            </span>
          </div>
          <section className="card">
            <table className="table" data-testid="install-hosts-table">
              <thead>
                <tr>
                  <th>Host</th>
                  <th>Status</th>
                  <th>Agent id</th>
                  <th>Inventory host</th>
                  <th>Package</th>
                  <th>Last step</th>
                  <th>Started</th>
                  <th>Duration</th>
                </tr>
              </thead>
              <tbody>
                {(t.hosts ?? []).map((h) => (
                  <HostRow key={h.id} host={h} />
                ))}
              </tbody>
            </table>
          </section>
          {!running && t.failed > 0 && can('POST', '/api/v1/agent-installs/{id}/retry') && (
            <Section title="Retry failed hosts">
              <RetryForm task={t} onDone={task.reload} />
            </Section>
          )}
        </>
      )}
    </div>
  );
}
