import { useState } from 'react';
import { api } from '../api/client';
import { Graph } from '../components/Graph';
import { Badge, ErrorBanner, KeyValues, Loading, PageHead, Section } from '../components/ui';
import { nodeResults, nodeStates } from '../lib/diagnosis';
import { fmtTime } from '../lib/format';
import { adjacencyToGraph } from '../lib/graphLayout';
import { useEvents, useInterval, useLoad, useThrottled } from '../lib/hooks';
import { href } from '../router';
import type { Diagnosis, OperationSetDoc } from '../types';
import { PathList } from './Diagnosis';

export function DiagnosisDetail({ id }: { id: string }) {
  const diag = useLoad((signal) => api.get<Diagnosis>(`/api/v1/diagnoses/${encodeURIComponent(id)}`, { signal }), [id]);
  const d = diag.data;
  const opset = useLoad((signal) => (d ? api.get<OperationSetDoc>(`/api/v1/diagnosis/operation-sets/${encodeURIComponent(d.operation_set)}`, { signal }) : Promise.resolve(undefined)), [d?.operation_set]);
  const running = !!d && d.phase !== 'Succeeded' && d.phase !== 'Failed' && d.phase !== 'Cancelled';
  const reload = useThrottled(diag.reload, 500);
  useEvents(`drover/diagnosis/${id}/*`, reload, running);
  useInterval(diag.reload, running ? 3000 : null);
  const [active, setActive] = useState<number | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const g = adjacencyToGraph(opset.data?.document?.spec?.adjacencyList ?? []);
  const states = d ? nodeStates(d) : undefined;
  const paths = d?.paths ?? opset.data?.paths ?? [];
  const shownNodes = selected != null ? [selected] : g.nodes.filter((n) => n !== 0);
  return (
    <div>
      <PageHead title={d ? `Diagnosis ${d.name}` : `Diagnosis ${id}`} sub={<a href={href('/diagnosis')}>← Diagnosis</a>} actions={<button type="button" onClick={diag.reload}>Refresh</button>} />
      <ErrorBanner error={diag.error ?? opset.error} />
      {diag.loading && !d ? <Loading /> : null}
      {d && (
        <div className="grid2">
          <Section title="Status">
            <KeyValues
              rows={[
                ['Phase', <span data-status={d.phase} data-testid="diagnosis-phase"><Badge status={d.phase} /></span>],
                ['OperationSet', d.operation_set],
                ['Host', d.host_id != null ? <a href={href(`/hosts/${d.host_id}`)}>{d.host_name ?? d.host_id}</a> : d.host_name],
                ['Agent', d.agent_id],
                ['Source', `${d.source ?? ''}${d.trigger ? ` (trigger ${d.trigger})` : ''}`],
                ['Checkpoint', d.checkpoint ? `path ${d.checkpoint.path_index}, node ${d.checkpoint.node_index}` : '—'],
                ['Parameters', Object.entries(d.parameters ?? {}).map(([k, v]) => `${k}=${v}`).join(', ') || '—'],
                ['Created', fmtTime(d.created_at)],
                ['Updated', fmtTime(d.updated_at)],
              ]}
            />
          </Section>
          <Section title="Paths">
            <PathList paths={paths} labels={g.labels} active={active} onPick={setActive} failed={d.failed_paths} succeeded={d.succeeded_path} />
            <div className="legend small">
              <span className="lg lg-succeeded">succeeded</span> <span className="lg lg-failed">failed</span> <span className="lg lg-current">current</span> <span className="lg lg-pending">not run</span>
            </div>
          </Section>
        </div>
      )}
      {d && opset.data && (
        <Section title="Graph" testid="diagnosis-graph">
          <Graph nodes={g.nodes} edges={g.edges} labels={g.labels} states={states} highlight={active != null ? paths[active] : undefined} selected={selected} onNode={(n) => setSelected(selected === n ? null : n)} />
        </Section>
      )}
      {d && (
        <Section title={selected != null ? `Results of ${g.labels.get(selected) ?? selected}` : 'Results per operation'} actions={selected != null && <button type="button" onClick={() => setSelected(null)}>Show all</button>}>
          {shownNodes.map((n) => {
            const op = g.labels.get(n);
            const rs = nodeResults(d, n, op);
            const run = (d.nodes ?? []).filter((r) => r.node === n);
            return (
              <div key={n} className="op-result" data-testid="operation-result">
                <h3>
                  {op} <Badge status={(states?.get(n) ?? 'pending').toUpperCase()} />
                </h3>
                {run.map((r, i) => r.error && <div key={i} className="banner banner-error small">{r.error}</div>)}
                {rs.length === 0 && <div className="muted small">No output.</div>}
                {rs.map(([k, v]) => (
                  <details key={k} open={selected != null}>
                    <summary className="mono small">{k}</summary>
                    <pre className="log">{v}</pre>
                  </details>
                ))}
              </div>
            );
          })}
          {Object.keys(d.operation_results ?? {}).length > 0 && (
            <details>
              <summary className="small">All operation results (raw keys)</summary>
              <pre className="log">{Object.keys(d.operation_results ?? {}).join('\n')}</pre>
            </details>
          )}
        </Section>
      )}
    </div>
  );
}
