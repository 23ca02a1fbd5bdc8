import { useState } from 'react';
import { api } from '../api/client';
import { Badge, ErrorBanner, PageHead, Section } from '../components/ui';
import { fmtTime } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { href, navigate } from '../router';
import { useSession } from '../session';
import type { PlanSummary } from '../types';

/** docs/execution-plans.md "A first plan", as JSON */
export const EXAMPLE_PLAN = {
  FormatVersion: '2.1.0',
  Name: 'Say hello',
  Parameters: { who: 'nobody' },
  Body: "api.logInfo('greeting ' + args.who)\nresult = hello(args.who)\nif result.exitCode != 0:\n    api.setExitCode(1)\nreturn result.stdout\n",
  Scripts: { hello: { Type: 'Bash', EntryPoint: 'hello.sh', Options: { timeout: 30 } } },
  Files: { 'hello.sh': { Name: 'hello.sh', BodyType: 'Text', Body: 'echo "hello $1 from $(hostname)"\n' } },
};

function PlanForm({ onDone }: { onDone: () => void }) {
  const [tgt, setTgt] = useState('*');
  const [tgtType, setTgtType] = useState('glob');
  const [plan, setPlan] = useState(JSON.stringify(EXAMPLE_PLAN, null, 2));
  const [params, setParams] = useState('{"who": "world"}');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="form"
      data-testid="plan-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        let planDoc: unknown;
        let parameters: unknown;
        try {
          planDoc = JSON.parse(plan);
          parameters = params.trim() ? JSON.parse(params) : undefined;
        } catch (x) {
          setError(new Error(`Not valid JSON: ${(x as Error).message}`));
          return;
        }
        setBusy(true);
        try {
          const r = await api.post<{ id: string }>('/api/v1/plans', { tgt, tgt_type: tgtType, plan: planDoc, parameters });
          onDone();
          if (r?.id != null) navigate(`/plans/${r.id}`);
        } catch (x) {
          setError(x);
        } finally {
          setBusy(false);
        }
      }}
    >
      <ErrorBanner error={error} />
      <div className="form-grid">
        <label>
          Target
          <input value={tgt} onChange={(e) => setTgt(e.target.value)} required />
        </label>
        <label>
          Target type
          <select value={tgtType} onChange={(e) => setTgtType(e.target.value)}>
            {['glob', 'list', 'pcre', 'grain', 'compound', 'ipcidr'].map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
      </div>
      <label>
        Plan (JSON, FormatVersion 2.0.0–2.2.0)
        <textarea rows={16} className="mono" value={plan} onChange={(e) => setPlan(e.target.value)} spellCheck={false} data-testid="plan-json" />
      </label>
      <label>
        Parameters (JSON object, overrides the plan's Parameters)
        <input className="mono" value={params} onChange={(e) => setParams(e.target.value)} />
      </label>
      <div className="actions">
        <button type="submit" className="btn-primary" disabled={busy}>
          {busy ? 'Sending…' : 'Run plan'}
        </button>
      </div>
    </form>
  );
}

export function Plans() {
  const { can } = useSession();
  const plans = useLoad((signal) => api.get<PlanSummary[]>('/api/v1/plans', { query: { limit: 100 }, signal }), []);
  return (
    <div>
      <PageHead title="Execution plans" sub="Unified agent plans: a body that runs scripts on each targeted agent" />
      {can('POST', '/api/v1/plans') && (
        <Section title="Run a plan">
          <PlanForm onDone={plans.reload} />
        </Section>
      )}
      <Section title="Newest plans" actions={<button type="button" onClick={plans.reload}>Refresh</button>}>
        <ErrorBanner error={plans.error} />
        <table className="table table-hover" data-testid="plans-table">
          <thead>
            <tr>
              <th>ID</th>
              <th>Name</th>
              <th>Status</th>
              <th>Hosts</th>
              <th>Succeeded</th>
              <th>Failed</th>
              <th>By</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {(plans.data ?? []).map((p) => (
              <tr key={p.id} className="clickable" onClick={() => navigate(`/plans/${p.id}`)}>
                <td className="mono small">
                  <a href={href(`/plans/${p.id}`)}>{String(p.id).slice(0, 12)}</a>
                </td>
                <td>{p.name}</td>
                <td data-status={p.status}>
                  <Badge status={p.status} />
                </td>
                <td>{p.hosts}</td>
                <td>{p.succeeded}</td>
                <td>{p.failed}</td>
                <td>{p.created_by}</td>
                <td className="small">{fmtTime(p.created_at)}</td>
              </tr>
            ))}
            {plans.data && plans.data.length === 0 && (
              <tr>
                <td colSpan={8} className="muted">
                  No plans yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </Section>
    </div>
  );
}
