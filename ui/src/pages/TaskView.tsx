import { useState } from 'react';
import { api } from '../api/client';
import { Badge, ErrorBanner, Loading, PageHead } from '../components/ui';
import { fmtDuration, fmtTime, shortInstance } from '../lib/format';
import { useEvents, useInterval, useLoad, useThrottled } from '../lib/hooks';
import { href } from '../router';
import type { TaskInfo, TaskInstance } from '../types';

const ACTIVE = new Set(['RUNNING', 'PENDING']);

function InstanceRow({ inst }: { inst: TaskInstance }) {
  const [open, setOpen] = useState(inst.status === 'FAILED');
  return (
    <>
      <tr data-testid="task-instance" data-status={inst.status} className="clickable" onClick={() => setOpen(!open)}>
        <td>
          <button type="button" className="tree-toggle" aria-expanded={open} aria-label={open ? 'Collapse' : 'Expand'}>
            {open ? '▾' : '▸'}
          </button>
          {inst.bk_host_id != null ? <a href={href(`/hosts/${inst.bk_host_id}`)} onClick={(e) => e.stopPropagation()}>host {inst.bk_host_id}</a> : shortInstance(inst.instance_id)}
          <span className="small muted mono"> {inst.instance_id}</span>
        </td>
        <td data-status={inst.status} data-testid="task-status">
          <Badge status={inst.status} />
        </td>
        <td className="small">{(inst.steps ?? []).map((s) => `${s.step_id}: ${s.action ?? ''} ${s.status}`).join(' · ')}</td>
        <td className="small">{fmtTime(inst.started_at)}</td>
        <td className="small">{fmtDuration(inst.started_at, inst.finished_at)}</td>
      </tr>
      {inst.error && (
        <tr className="sub">
          <td colSpan={5}>
            <div className="banner banner-error small">{inst.error}</div>
          </td>
        </tr>
      )}
      {open &&
        (inst.steps ?? []).map((st) => (
          <tr key={st.step_id} className="sub">
            <td colSpan={5}>
              <div className="step">
                <div className="step-head">
                  <strong>{st.step_id}</strong> <span className={`act act-${st.action}`}>{st.action}</span> <span className="small muted">{st.reason}</span>{' '}
                  <span data-status={st.status} data-testid="step-status">
                    <Badge status={st.status} />
                  </span>
                </div>
                <table className="table substeps">
                  <tbody>
                    {(st.sub_steps ?? []).map((ss, i) => (
                      <tr key={i}>
                        <td className="w40">
                          {ss.log && ss.log.length ? (
                            <details>
                              <summary>{ss.name}</summary>
                              <pre className="log">{ss.log.join('\n')}</pre>
                            </details>
                          ) : (
                            ss.name
                          )}
                        </td>
                        <td data-status={ss.status} data-testid="substep-status">
                          <Badge status={ss.status} />
                        </td>
                        <td className="small">{fmtTime(ss.started_at)}</td>
                        <td className="small">{fmtDuration(ss.started_at, ss.finished_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </td>
          </tr>
        ))}
    </>
  );
}

export function TaskView({ id }: { id: string }) {
  const task = useLoad((signal) => api.get<TaskInfo>(`/api/v1/tasks/${encodeURIComponent(id)}`, { signal }), [id]);
  const t = task.data;
  const active = !!t && ACTIVE.has(t.status);
  const reload = useThrottled(task.reload, 500);
  const stream = useEvents('drover/subscription/*', (e) => {
    const d = e.data as { task_id?: number };
    if (e.tag.startsWith(`drover/subscription/task/${id}/`) || String(d?.task_id ?? '') === id) reload();
  });
  useInterval(task.reload, active ? 2000 : null);
  return (
    <div>
      <PageHead
        title={`Task #${id}`}
        sub={
          <span>
            {t && <a href={href(`/subscriptions/${t.subscription_id}`)}>← Subscription #{t.subscription_id}</a>} · live: {stream}
            {active ? ' · polling every 2 s' : ''}
          </span>
        }
        actions={<button type="button" onClick={task.reload}>Refresh</button>}
      />
      <ErrorBanner error={task.error} />
      {task.loading && !t ? <Loading /> : null}
      {t && (
        <>
          <div className="summary-row" data-testid="task-summary">
            <span data-status={t.status} data-testid="task-overall-status">
              <Badge status={t.status} />
            </span>
            <span>trigger {t.trigger}</span>
            <span>by {t.actor}</span>
            <span>started {fmtTime(t.started_at ?? t.created_at)}</span>
            <span>took {fmtDuration(t.started_at, t.finished_at)}</span>
            {Object.entries(t.counts ?? {}).map(([k, v]) => (
              <span key={k} className={`chip`}>
                {k} <strong>{v}</strong>
              </span>
            ))}
          </div>
          {t.error && <div className="banner banner-error">{t.error}</div>}
          <section className="card">
            <table className="table" data-testid="task-table">
              <thead>
                <tr>
                  <th>Instance</th>
                  <th>Status</th>
                  <th>Steps</th>
                  <th>Started</th>
                  <th>Duration</th>
                </tr>
              </thead>
              <tbody>
                {(t.instances ?? []).map((i) => (
                  <InstanceRow key={i.instance_id} inst={i} />
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
    </div>
  );
}
