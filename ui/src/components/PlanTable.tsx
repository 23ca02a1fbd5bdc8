import { useState } from 'react';
import { buildPlanTable, isChange, type ChangePlanView } from '../lib/planModel';
import { href } from '../router';

export function PlanTable({ plan }: { plan: ChangePlanView }) {
  const [changesOnly, setChangesOnly] = useState(false);
  const [action, setAction] = useState('');
  const t = buildPlanTable(plan, { changesOnly, action: action || undefined });
  return (
    <div data-testid="plan-table">
      <div className="toolbar">
        <div className="chips" data-testid="plan-counts">
          {t.actions.map((a) => (
            <button key={a} type="button" className={`chip act-${a} ${action === a ? 'active' : ''}`} onClick={() => setAction(action === a ? '' : a)} title="Show only instances with this action">
              {a} <strong>{t.counts[a]}</strong>
            </button>
          ))}
        </div>
        <label className="inline">
          <input type="checkbox" checked={changesOnly} onChange={(e) => setChangesOnly(e.target.checked)} data-testid="changes-only" /> Changes only ({t.changedRows} of {t.totalRows})
        </label>
      </div>
      {t.missing.length > 0 && <div className="banner banner-warn">Missing: {t.missing.join(', ')}</div>}
      <div className="scroll-x">
        <table className="table plan">
          <thead>
            <tr>
              <th>Instance / host</th>
              {t.steps.map((s) => (
                <th key={s}>{s}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {t.rows.map((r) => (
              <tr key={r.instance_id} data-testid="plan-row">
                <td>
                  {r.bk_host_id != null ? <a href={href(`/hosts/${r.bk_host_id}`)}>{r.host}</a> : r.host}
                  <div className="small muted mono">{r.instance_id}</div>
                </td>
                {t.steps.map((s) => {
                  const c = r.cells[s];
                  return (
                    <td key={s} className={c && isChange(c.action) ? 'cell-change' : undefined} data-action={c?.action}>
                      {c ? (
                        <>
                          <span className={`act act-${c.action}`}>{c.action}</span>
                          {c.reason && <span className="small muted"> {c.reason}</span>}
                          {c.why && <div className="small">{c.why}</div>}
                          {c.detail && <div className="small muted">{c.detail}</div>}
                        </>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
            {t.rows.length === 0 && (
              <tr>
                <td colSpan={t.steps.length + 1} className="muted">
                  {t.totalRows ? 'No instance matches the filter.' : 'The plan has no instances.'}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}
