import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { Badge, ErrorBanner, JsonBlock, KeyValues, Loading, PageHead, Section } from '../components/ui';
import { fmtTime, pretty } from '../lib/format';
import { href } from '../router';
import type { PlanRun } from '../types';

/** Long-polls GET /plans/{id}?wait=10 while hosts are missing. */
export function PlanDetail({ id }: { id: string }) {
  const [plan, setPlan] = useState<PlanRun | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ctl = new AbortController();
    (async () => {
      let wait = 0;
      for (;;) {
        try {
          const p = await api.get<PlanRun>(`/api/v1/plans/${encodeURIComponent(id)}`, { query: { wait: wait || undefined }, signal: ctl.signal });
          if (ctl.signal.aborted) return;
          setPlan(p);
          setError(null);
          if (!p.missing?.length) return;
          wait = 10;
        } catch (e) {
          if (ctl.signal.aborted || (e as Error).name === 'AbortError') return;
          setError(e);
          return;
        }
      }
    })();
    return () => ctl.abort();
  }, [id, tick]);
  const hosts = Array.from(new Set([...(plan?.minions ?? []), ...Object.keys(plan?.results ?? {})])).sort();
  return (
    <div>
      <PageHead title={plan?.name ? `Plan ${plan.name}` : `Plan ${id}`} sub={<a href={href('/plans')}>← Execution plans</a>} actions={<button type="button" onClick={() => setTick(tick + 1)}>Refresh</button>} />
      <ErrorBanner error={error} />
      {!plan && !error ? <Loading /> : null}
      {plan && (
        <>
          <Section title="Plan">
            <KeyValues
              rows={[
                ['ID', <span className="mono">{plan.id}</span>],
                ['Status', <Badge status={plan.status} />],
                ['Target', `${plan.tgt ?? ''} (${plan.tgt_type ?? 'glob'})`],
                ['Job', plan.jid],
                ['By', plan.created_by],
                ['Created', fmtTime(plan.created_at)],
                ['Missing', plan.missing?.length ? plan.missing.join(', ') : 'none'],
              ]}
            />
          </Section>
          <Section title="Per host" testid="plan-results">
            <table className="table">
              <thead>
                <tr>
                  <th>Host</th>
                  <th>Result</th>
                  <th>Code</th>
                  <th>Message / document</th>
                  <th>Log</th>
                </tr>
              </thead>
              <tbody>
                {hosts.map((h) => {
                  const r = plan.results?.[h];
                  const st = !r ? 'PENDING' : (r.error_code ?? 0) === 0 ? 'SUCCESS' : 'FAILED';
                  const logs = (plan.logs ?? []).filter((l) => l.agent_id === h);
                  return (
                    <tr key={h} data-testid="plan-host-row">
                      <td>{h}</td>
                      <td data-status={st}>
                        <Badge status={st} />
                      </td>
                      <td>{r?.error_code ?? '—'}</td>
                      <td>
                        {r?.message && <div>{r.message}</div>}
                        {r?.document !== undefined && <pre className="json">{pretty(r.document)}</pre>}
                      </td>
                      <td>
                        {logs.length ? (
                          <pre className="log">{logs.map((l) => `${l.time ? fmtTime(l.time).slice(11) : ''} [${l.level ?? 'info'}] ${l.body}`).join('\n')}</pre>
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </Section>
          {plan.plan && (
            <details className="card pad">
              <summary>Plan document</summary>
              <JsonBlock value={plan.plan} />
            </details>
          )}
        </>
      )}
    </div>
  );
}
