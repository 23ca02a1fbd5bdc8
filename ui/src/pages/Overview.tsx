import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client';
import { Sparkline } from '../components/Sparkline';
import { ErrorBanner, PageHead } from '../components/ui';
import { useEvents, useInterval, useThrottled } from '../lib/hooks';
import { href } from '../router';
import type { Agent, Diagnosis, Subscription, TaskInfo, TaskSummary } from '../types';

export interface OverviewCounts {
  online: number;
  lost: number;
  runningTasks: number;
  failedInstances: number;
  failedSteps: number;
  openDiagnoses: number;
}

const KEYS: Array<{ key: keyof OverviewCounts; label: string; link: string; bad?: boolean }> = [
  { key: 'online', label: 'Agents online', link: '/run' },
  { key: 'lost', label: 'Agents lost', link: '/run', bad: true },
  { key: 'runningTasks', label: 'Running tasks', link: '/subscriptions' },
  { key: 'failedInstances', label: 'Failed instances (latest tasks)', link: '/subscriptions', bad: true },
  { key: 'failedSteps', label: 'Failed steps (latest tasks)', link: '/subscriptions', bad: true },
  { key: 'openDiagnoses', label: 'Open diagnoses', link: '/diagnosis' },
];

// samples survive page changes (in memory only), at most 60 per series (10 min at 10 s)
const history: Array<{ at: number; c: OverviewCounts }> = [];
const MAX_SAMPLES = 60;

async function sample(): Promise<{ counts: OverviewCounts; latest: Array<{ sub: Subscription; task?: TaskSummary }> }> {
  const [agents, subs, diags] = await Promise.all([
    api.get<Agent[]>('/api/v1/agents'),
    api.get<Subscription[]>('/api/v1/subscriptions'),
    api.get<Diagnosis[]>('/api/v1/diagnoses', { query: { limit: 1000 } }),
  ]);
  const tasks = await Promise.all(subs.map((s) => api.get<TaskSummary[]>(`/api/v1/subscriptions/${s.id}/tasks`).catch(() => [] as TaskSummary[])));
  let runningTasks = 0;
  let failedInstances = 0;
  const latest: Array<{ sub: Subscription; task?: TaskSummary }> = [];
  const failedLatest: number[] = [];
  subs.forEach((s, i) => {
    const ts = tasks[i] ?? [];
    runningTasks += ts.filter((t) => t.status === 'RUNNING' || t.status === 'PENDING').length;
    const t = ts[0];
    latest.push({ sub: s, task: t });
    const f = t?.counts?.FAILED ?? 0;
    failedInstances += f;
    if (f > 0) failedLatest.push(t.id);
  });
  // failed steps need the task documents: only for latest tasks that failed somewhere
  const details = await Promise.all(failedLatest.slice(0, 20).map((id) => api.get<TaskInfo>(`/api/v1/tasks/${id}`).catch(() => null)));
  let failedSteps = 0;
  for (const d of details) for (const inst of d?.instances ?? []) for (const st of inst.steps ?? []) if (st.status === 'FAILED') failedSteps++;
  return {
    counts: {
      online: agents.filter((a) => a.online).length,
      lost: agents.filter((a) => !a.online).length,
      runningTasks,
      failedInstances,
      failedSteps,
      openDiagnoses: diags.filter((d) => d.phase !== 'Succeeded' && d.phase !== 'Failed' && d.phase !== 'Cancelled').length,
    },
    latest,
  };
}

export function Overview() {
  const [samples, setSamples] = useState(() => [...history]);
  const [latest, setLatest] = useState<Array<{ sub: Subscription; task?: TaskSummary }>>([]);
  const [error, setError] = useState<unknown>(null);

  const refresh = useCallback(async () => {
    try {
      const r = await sample();
      history.push({ at: Date.now(), c: r.counts });
      while (history.length > MAX_SAMPLES) history.shift();
      setSamples([...history]);
      setLatest(r.latest);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, []);

  useEffect(() => {
    refresh();
  }, [refresh]);
  useInterval(refresh, 10_000);
  const onEvent = useThrottled(refresh, 2000);
  const stream = useEvents('drover/*', (e) => {
    if (e.tag.endsWith('/heartbeat')) return;
    if (/^drover\/(agent|subscription|diagnosis)\//.test(e.tag)) onEvent();
  });

  const current = samples[samples.length - 1]?.c;
  return (
    <div>
      <PageHead title="Overview" sub={<span>Sampled every 10 s and on events · stream {stream}</span>} />
      <ErrorBanner error={error} />
      <div className="stat-grid">
        {KEYS.map((k) => {
          const v = current?.[k.key];
          return (
            <a key={k.key} className={`stat ${k.bad && v ? 'stat-bad' : ''}`} href={href(k.link)} data-testid={`stat-${k.key}`}>
              <div className="stat-label">{k.label}</div>
              <div className="stat-value">{v ?? '…'}</div>
              <Sparkline values={samples.map((s) => s.c[k.key])} label={k.label} />
            </a>
          );
        })}
      </div>
      <section className="card">
        <div className="card-head">
          <h2>Latest task per subscription</h2>
        </div>
        <table className="table">
          <thead>
            <tr>
              <th>Subscription</th>
              <th>Enabled</th>
              <th>Latest task</th>
              <th>Status</th>
              <th>Counts</th>
            </tr>
          </thead>
          <tbody>
            {latest.map(({ sub, task }) => (
              <tr key={sub.id}>
                <td>
                  <a href={href(`/subscriptions/${sub.id}`)}>{sub.name}</a>
                </td>
                <td>{sub.enabled ? 'yes' : 'no'}</td>
                <td>{task ? <a href={href(`/tasks/${task.id}`)}>#{task.id}</a> : '—'}</td>
                <td>{task ? <span className={`badge badge-${task.status === 'SUCCESS' ? 'ok' : task.status === 'FAILED' ? 'bad' : 'run'}`} data-status={task.status}>{task.status}</span> : '—'}</td>
                <td className="small">{task?.counts ? Object.entries(task.counts).map(([k, v]) => `${k} ${v}`).join(' · ') : ''}</td>
              </tr>
            ))}
            {latest.length === 0 && (
              <tr>
                <td colSpan={5} className="muted">
                  No subscriptions.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </section>
    </div>
  );
}
