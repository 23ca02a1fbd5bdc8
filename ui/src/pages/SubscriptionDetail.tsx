import { useState } from 'react';
import { api, ApiError } from '../api/client';
import { PlanTable } from '../components/PlanTable';
import { ActionButton, Badge, ErrorBanner, JsonBlock, KeyValues, Loading, PageHead, Section, Tabs } from '../components/ui';
import { fmtDuration, fmtTime, shortInstance } from '../lib/format';
import { useEvents, useLoad, useThrottled } from '../lib/hooks';
import type { ChangePlanView } from '../lib/planModel';
import { href, navigate } from '../router';
import { useSession } from '../session';
import type { InstanceStatus, Subscription, TaskSummary } from '../types';

type Tab = 'overview' | 'plan' | 'instances' | 'tasks' | 'spec';

/** The task a 409 says is running ("subscription 1 has task 7 running; …"), to follow it instead. */
export function runningTask(error: unknown): number | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  const m = /has task (\d+) running/.exec(error.problem.detail ?? '');
  return m ? Number(m[1]) : null;
}

export function SubscriptionDetail({ id }: { id: string }) {
  const { can } = useSession();
  const base = `/api/v1/subscriptions/${encodeURIComponent(id)}`;
  const [tab, setTab] = useState<Tab>('overview');
  const [error, setError] = useState<unknown>(null);
  const [answer, setAnswer] = useState<unknown>(null);
  const sub = useLoad((signal) => api.get<Subscription>(base, { signal }), [id]);
  const stats = useLoad((signal) => api.get<{ by_status?: Record<string, number>; by_version?: Record<string, number>; instances?: number }>(`${base}/statistics`, { signal }), [id]);
  const tasks = useLoad((signal) => api.get<TaskSummary[]>(`${base}/tasks`, { signal }), [id]);
  const instances = useLoad((signal) => api.get<InstanceStatus[]>(`${base}/instances`, { signal }), [id]);
  const refreshAll = useThrottled(() => {
    stats.reload();
    tasks.reload();
    instances.reload();
  }, 1500);
  useEvents('drover/subscription/*', (e) => {
    const d = e.data as { subscription_id?: number };
    if (d?.subscription_id == null || String(d.subscription_id) === id) refreshAll();
  });

  const [plan, setPlan] = useState<ChangePlanView | null>(null);
  const [planBody, setPlanBody] = useState<string>('');
  const [planBusy, setPlanBusy] = useState(false);
  const preview = async (edited: boolean) => {
    setPlanBusy(true);
    setError(null);
    try {
      setPlan(edited ? await api.post<ChangePlanView>(`${base}/plan`, undefined, { yaml: planBody }) : await api.get<ChangePlanView>(`${base}/plan`));
    } catch (e) {
      setError(e);
    } finally {
      setPlanBusy(false);
    }
  };

  const s = sub.data;
  const afterAction = (r: unknown) => {
    setAnswer(r);
    sub.reload();
    refreshAll();
    const t = (r as { task_id?: number; task?: { id?: number } } | null)?.task_id ?? (r as { task?: { id?: number } } | null)?.task?.id;
    if (t != null) navigate(`/tasks/${t}`);
  };
  const p = (m: string, path: string) => can(m, path);
  return (
    <div>
      <PageHead
        title={s ? `${s.name}` : `Subscription ${id}`}
        sub={
          <span>
            <a href={href('/subscriptions')}>← Subscriptions</a> · #{id} {s && <Badge status={s.enabled ? 'ENABLED' : 'DISABLED'} />}
          </span>
        }
        actions={
          s && (
            <>
              <button type="button" onClick={() => { setTab('plan'); preview(false); }} data-testid="preview-plan">
                Preview plan
              </button>
              {p('POST', '/api/v1/subscriptions/{id}/run') && <ActionButton label="Run" kind="primary" testid="run-subscription" run={() => api.post(`${base}/run`, {})} onError={setError} onDone={afterAction} />}
              {p('POST', '/api/v1/subscriptions/{id}/retry') && <ActionButton label="Retry failed" run={() => api.post(`${base}/retry`, {})} onError={setError} onDone={afterAction} />}
              {p('POST', '/api/v1/subscriptions/{id}/revoke') && <ActionButton label="Revoke" run={() => api.post(`${base}/revoke`, {})} onError={setError} onDone={(r) => { setAnswer(r); refreshAll(); }} confirm="Revoke the running task?" />}
              {s.enabled
                ? p('POST', '/api/v1/subscriptions/{id}/disable') && <ActionButton label="Disable" run={() => api.post(`${base}/disable`, {})} onError={setError} onDone={afterAction} confirm="Disable: stop the plugins on every instance?" />
                : p('POST', '/api/v1/subscriptions/{id}/enable') && <ActionButton label="Enable" run={() => api.post(`${base}/enable`, {})} onError={setError} onDone={afterAction} />}
            </>
          )
        }
      />
      <ErrorBanner error={error ?? sub.error} onClose={error ? () => setError(null) : undefined} />
      {runningTask(error) != null && (
        <p>
          <a href={href(`/tasks/${runningTask(error)}`)} data-testid="running-task-link">
            Follow the running task #{runningTask(error)}
          </a>
        </p>
      )}
      {answer != null && (
        <details className="answer">
          <summary>Last answer</summary>
          <JsonBlock value={answer} />
        </details>
      )}
      {sub.loading && !s ? <Loading /> : null}
      <Tabs<Tab>
        value={tab}
        onChange={(t) => {
          setTab(t);
          if (t === 'plan' && !plan) preview(false);
          if (t === 'plan' && !planBody && s) setPlanBody(JSON.stringify(s.spec, null, 2));
        }}
        tabs={[
          { id: 'overview', label: 'Overview' },
          { id: 'plan', label: 'Plan' },
          { id: 'instances', label: `Instances${instances.data ? ` (${instances.data.length})` : ''}` },
          { id: 'tasks', label: `Tasks${tasks.data ? ` (${tasks.data.length})` : ''}` },
          { id: 'spec', label: 'Spec' },
        ]}
      />
      {tab === 'overview' && s && (
        <div className="grid2">
          <Section title="Subscription">
            <KeyValues
              rows={[
                ['Business', s.bk_biz_id],
                ['Object / node type', `${s.object_type} / ${s.node_type}`],
                ['Enabled', s.enabled ? 'yes' : 'no'],
                ['Created', fmtTime(s.created_at)],
                ['Updated', fmtTime(s.updated_at)],
              ]}
            />
          </Section>
          <Section title="Statistics" testid="statistics">
            <ErrorBanner error={stats.error} />
            {stats.data && (
              <KeyValues
                rows={[
                  ['Instances', stats.data.instances ?? 0],
                  ...Object.entries(stats.data.by_status ?? {}).map(([k, v]) => [k, v] as [string, number]),
                  ...Object.entries(stats.data.by_version ?? {}).map(([k, v]) => [k, `${v} deployed`] as [string, string]),
                ]}
              />
            )}
          </Section>
        </div>
      )}
      {tab === 'plan' && (
        <Section
          title="Plan preview"
          actions={
            <>
              <button type="button" onClick={() => preview(false)} disabled={planBusy}>
                {planBusy ? 'Planning…' : 'Preview current spec'}
              </button>
              <button type="button" onClick={() => preview(true)} disabled={planBusy || !planBody.trim()}>
                Preview edited body
              </button>
              {p('PUT', '/api/v1/subscriptions/{id}') && (
                <ActionButton
                  label="Save and run"
                  testid="save-subscription"
                  run={() => api.put(base, undefined, { yaml: planBody })}
                  onError={setError}
                  onDone={afterAction}
                  confirm="Save this body and run its plan?"
                />
              )}
            </>
          }
        >
          <details>
            <summary>Edit the subscription (YAML or JSON): preview its plan, then save and run it</summary>
            <textarea rows={14} className="mono full" value={planBody} onChange={(e) => setPlanBody(e.target.value)} spellCheck={false} aria-label="Subscription body to preview" />
          </details>
          {plan ? <PlanTable plan={plan} /> : planBusy ? <Loading what="Planning" /> : null}
        </Section>
      )}
      {tab === 'instances' && (
        <Section title="Instances">
          <ErrorBanner error={instances.error} />
          <table className="table" data-testid="instance-table">
            <thead>
              <tr>
                <th>Instance</th>
                <th>Status</th>
                <th>Deployed</th>
                <th>Last task</th>
              </tr>
            </thead>
            <tbody>
              {(instances.data ?? []).map((i) => (
                <tr key={i.instance_id}>
                  <td>
                    {shortInstance(i.instance_id)}
                    <div className="small muted mono">{i.instance_id}</div>
                  </td>
                  <td>
                    <Badge status={i.status} />
                  </td>
                  <td className="small">
                    {(i.deployed ?? []).map((d) => (
                      <div key={d.step_id}>
                        {d.step_id}: {d.plugin} {d.version} <Badge status={d.status} />
                        {d.port ? ` :${d.port}` : ''}
                      </div>
                    ))}
                  </td>
                  <td>
                    {i.last_task_id != null ? <a href={href(`/tasks/${i.last_task_id}`)}>#{i.last_task_id}</a> : '—'} {i.last_task_status && <Badge status={i.last_task_status} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      )}
      {tab === 'tasks' && (
        <Section title="Tasks">
          <ErrorBanner error={tasks.error} />
          <table className="table table-hover" data-testid="task-table">
            <thead>
              <tr>
                <th>Task</th>
                <th>Status</th>
                <th>Trigger</th>
                <th>Actor</th>
                <th>Started</th>
                <th>Duration</th>
                <th>Counts</th>
              </tr>
            </thead>
            <tbody>
              {(tasks.data ?? []).map((t) => (
                <tr key={t.id} className="clickable" onClick={() => navigate(`/tasks/${t.id}`)}>
                  <td>
                    <a href={href(`/tasks/${t.id}`)}>#{t.id}</a>
                  </td>
                  <td>
                    <Badge status={t.status} />
                  </td>
                  <td>{t.trigger}</td>
                  <td>{t.actor}</td>
                  <td className="small">{fmtTime(t.started_at ?? t.created_at)}</td>
                  <td className="small">{fmtDuration(t.started_at, t.finished_at)}</td>
                  <td className="small">{Object.entries(t.counts ?? {}).map(([k, v]) => `${k} ${v}`).join(' · ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      )}
      {tab === 'spec' && s && (
        <Section title="Spec">
          <JsonBlock value={s.spec} />
        </Section>
      )}
    </div>
  );
}
