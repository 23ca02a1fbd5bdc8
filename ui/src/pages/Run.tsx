import { useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import { ActionButton, Badge, ErrorBanner, Loading, PageHead, Section, Tabs } from '../components/ui';
import { fmtTime, pretty } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { useSession } from '../session';
import { linkConflictText } from '../lib/agents';
import type { Agent, JobResult, MinionKey } from '../types';

const TGT_TYPES = ['glob', 'list', 'pcre', 'grain', 'grain_pcre', 'compound', 'nodegroup', 'ipcidr'];

/** "a\n 2\n{"x":1}\ntrue" → ["a", 2, {x:1}, true]: JSON where it parses, else the text */
export function parseArgs(text: string): unknown[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => {
      if (/^(-?\d+(\.\d+)?|true|false|null|\{.*\}|\[.*\])$/.test(l)) {
        try {
          return JSON.parse(l);
        } catch {
          return l;
        }
      }
      return l;
    });
}

function JobForm({ onError }: { onError: (e: unknown) => void }) {
  const { can } = useSession();
  const [tgt, setTgt] = useState('*');
  const [tgtType, setTgtType] = useState('glob');
  const [fun, setFun] = useState('test.ping');
  const [args, setArgs] = useState('');
  const [job, setJob] = useState<JobResult | null>(null);
  const [waiting, setWaiting] = useState(false);
  const stop = useRef<AbortController | null>(null);
  useEffect(() => () => stop.current?.abort(), []);

  const submit = async () => {
    stop.current?.abort();
    const ctl = new AbortController();
    stop.current = ctl;
    onError(null);
    setJob(null);
    try {
      const started = await api.post<{ jid: string; minions: string[]; missing: string[] }>('/api/v1/jobs', { tgt, tgt_type: tgtType, fun, arg: parseArgs(args) }, { signal: ctl.signal });
      setJob({ jid: started.jid, minions: started.minions ?? [], missing: started.missing ?? started.minions ?? [], returns: {} });
      setWaiting(true);
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (ctl.signal.aborted) return;
        const j = await api.get<JobResult>(`/api/v1/jobs/${encodeURIComponent(started.jid)}`, { query: { wait: 2 }, signal: ctl.signal });
        setJob(j);
        if (!j.missing?.length || Date.now() > deadline) break;
      }
    } catch (e) {
      if ((e as Error).name !== 'AbortError') onError(e);
    } finally {
      if (!ctl.signal.aborted) setWaiting(false);
    }
  };

  const returns = Object.entries(job?.returns ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <>
      <form
        className="form form-grid"
        data-testid="job-form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label>
          Target
          <input value={tgt} onChange={(e) => setTgt(e.target.value)} required data-testid="job-tgt" />
        </label>
        <label>
          Target type
          <select value={tgtType} onChange={(e) => setTgtType(e.target.value)}>
            {TGT_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          Function
          <input value={fun} onChange={(e) => setFun(e.target.value)} required data-testid="job-fun" />
        </label>
        <label>
          Arguments (one per line)
          <textarea rows={3} className="mono" value={args} onChange={(e) => setArgs(e.target.value)} />
        </label>
        <div className="actions span2">
          <button type="submit" className="btn-primary" disabled={waiting} data-testid="job-submit">
            {waiting ? 'Waiting for returns…' : 'Run'}
          </button>
        </div>
      </form>
      {job && (
        <div data-testid="job-result">
          <div className="summary-row">
            <span>
              job <code>{job.jid}</code>
            </span>
            <span>{job.minions.length} targeted</span>
            <span>{returns.length} returned</span>
            {job.missing?.length ? <span className="badge badge-pend">missing: {job.missing.join(', ')}</span> : <span className="badge badge-ok">all returned</span>}
            {Object.entries(job.counts ?? {}).map(([state, n]) => (
              <span key={state} className="small" data-testid="job-count">
                {state.toLowerCase()}: {n}
              </span>
            ))}
            {job.missing?.length && can('POST', '/api/v1/jobs/{jid}/cancel') ? (
              <ActionButton label="Kill" kind="danger" confirm={`Kill job ${job.jid} on the agents still running it?`} run={() => api.post(`/api/v1/jobs/${encodeURIComponent(job.jid)}/cancel`, {})} onError={onError} onDone={() => undefined} />
            ) : null}
          </div>
          <table className="table">
            <thead>
              <tr>
                <th>Host</th>
                <th>State</th>
                <th>Success</th>
                <th>Retcode</th>
                <th>Return</th>
              </tr>
            </thead>
            <tbody>
              {returns.map(([host, r]) => (
                <tr key={host} data-testid="job-row">
                  <td>{host}</td>
                  <td data-testid="job-state">
                    <Badge status={job.states?.[host] ?? 'RETURNED'} />
                  </td>
                  <td data-status={r.success === false ? 'FAILED' : 'SUCCESS'}>
                    <Badge status={r.success === false ? 'FAILED' : 'SUCCESS'} />
                  </td>
                  <td>{r.retcode ?? '—'}</td>
                  <td>
                    <pre className="json" data-testid="job-return">
                      {pretty(r.ret)}
                    </pre>
                  </td>
                </tr>
              ))}
              {(job.missing ?? []).map((m) => (
                <tr key={`missing-${m}`}>
                  <td>{m}</td>
                  <td data-testid="job-state">
                    <Badge status={job.states?.[m] ?? 'PUBLISHED'} />
                  </td>
                  <td data-status="PENDING">
                    <Badge status="PENDING" />
                  </td>
                  <td colSpan={2} className="muted">
                    {waiting ? 'waiting…' : 'no return'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

type KeyState = 'pending' | 'accepted' | 'rejected';

function Keys({ onError }: { onError: (e: unknown) => void }) {
  const { can } = useSession();
  const [state, setState] = useState<KeyState>('pending');
  const keys = useLoad((signal) => api.get<MinionKey[]>('/api/v1/keys', { query: { state }, signal }), [state]);
  return (
    <>
      <Tabs<KeyState>
        value={state}
        onChange={setState}
        tabs={[
          { id: 'pending', label: 'Pending' },
          { id: 'accepted', label: 'Accepted' },
          { id: 'rejected', label: 'Rejected' },
        ]}
      />
      <ErrorBanner error={keys.error} />
      {keys.loading && !keys.data ? <Loading /> : null}
      <table className="table" data-testid="key-table">
        <thead>
          <tr>
            <th>Agent id</th>
            <th>State</th>
            <th>Fingerprint</th>
            <th>Updated</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(keys.data ?? []).map((k) => (
            <tr key={k.id} data-testid="key-row">
              <td>{k.id}</td>
              <td>
                <Badge status={k.state} />
              </td>
              <td className="mono small fp">{k.fingerprint}</td>
              <td className="small">{fmtTime(k.updated_at)}</td>
              <td>
                <div className="actions nowrap">
                {k.state !== 'accepted' && can('POST', '/api/v1/keys/{id}/accept') && <ActionButton label="Accept" kind="primary" run={() => api.post(`/api/v1/keys/${encodeURIComponent(k.id)}/accept`, {})} onError={onError} onDone={keys.reload} />}
                {k.state !== 'rejected' && can('POST', '/api/v1/keys/{id}/reject') && <ActionButton label="Reject" kind="danger" confirm={`Reject the key of ${k.id}?`} run={() => api.post(`/api/v1/keys/${encodeURIComponent(k.id)}/reject`, {})} onError={onError} onDone={keys.reload} />}
                </div>
              </td>
            </tr>
          ))}
          {keys.data && keys.data.length === 0 && (
            <tr>
              <td colSpan={5} className="muted">
                No {state} keys.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </>
  );
}

/** An admin's link of an unlinked agent to a host: the host id, and whether to force or move the business. */
function LinkForm({ agent, onError, onDone }: { agent: Agent; onError: (e: unknown) => void; onDone: () => void }) {
  const [host, setHost] = useState(agent.link_conflict?.bk_host_id ? String(agent.link_conflict.bk_host_id) : '');
  const [force, setForce] = useState(false);
  const [move, setMove] = useState(false);
  return (
    <div className="actions nowrap">
      <input aria-label={`host for ${agent.id}`} data-testid="link-host" size={8} placeholder="host id" value={host} onChange={(e) => setHost(e.target.value)} />
      <label className="small">
        <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> unlink its agent
      </label>
      <label className="small">
        <input type="checkbox" checked={move} onChange={(e) => setMove(e.target.checked)} /> move business
      </label>
      <ActionButton
        label="Link"
        kind="primary"
        testid="link-agent"
        run={() => api.post(`/api/v1/agents/${encodeURIComponent(agent.id)}/link`, { bk_host_id: Number(host), force, move_business: move })}
        onError={onError}
        onDone={onDone}
      />
    </div>
  );
}

/** Agents left unlinked because the address they claim is another business's host, or a host with an agent. */
function LinkConflicts({ onError }: { onError: (e: unknown) => void }) {
  const { can } = useSession();
  const agents = useLoad((signal) => api.get<Agent[]>('/api/v1/agents', { signal }), []);
  const unlinked = (agents.data ?? []).filter((a) => a.link_conflict);
  return (
    <>
      <ErrorBanner error={agents.error} />
      <table className="table" data-testid="link-conflict-table">
        <thead>
          <tr>
            <th>Agent id</th>
            <th>Link conflict</th>
            <th>Why</th>
            <th>Since</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {unlinked.map((a) => (
            <tr key={a.id} data-testid="link-conflict-row">
              <td>{a.id}</td>
              <td>
                <Badge status={a.link_conflict!.reason} testid="link-conflict-reason" />
              </td>
              <td className="small">{linkConflictText(a.link_conflict!)}</td>
              <td className="small">{fmtTime(a.link_conflict!.since)}</td>
              <td>{can('POST', '/api/v1/agents/{id}/link') && <LinkForm agent={a} onError={onError} onDone={agents.reload} />}</td>
            </tr>
          ))}
          {agents.data && unlinked.length === 0 && (
            <tr>
              <td colSpan={5} className="muted">
                No agent is kept unlinked by a link conflict.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </>
  );
}

export function RunPage() {
  const { can } = useSession();
  const [error, setError] = useState<unknown>(null);
  return (
    <div>
      <PageHead title="Remote execution" sub="Run a function on the agents a target names; manage agent keys" />
      <ErrorBanner error={error} onClose={() => setError(null)} />
      {can('POST', '/api/v1/jobs') && (
        <Section title="Run a function">
          <JobForm onError={setError} />
        </Section>
      )}
      <Section title="Agent keys">
        <Keys onError={setError} />
      </Section>
      {can('GET', '/api/v1/agents') && (
        <Section title="Link conflicts">
          <LinkConflicts onError={setError} />
        </Section>
      )}
    </div>
  );
}
