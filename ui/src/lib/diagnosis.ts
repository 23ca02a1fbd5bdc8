import type { NodeState } from '../components/Graph';
import type { Diagnosis } from '../types';

/**
 * The state of each graph node in a diagnosis: node runs when the server reports them, else the succeeded path,
 * the failed paths (their last node failed; nodes before it ran), and the checkpoint (current node while running).
 */
export function nodeStates(d: Diagnosis): Map<number, NodeState> {
  const m = new Map<number, NodeState>();
  for (const p of d.failed_paths ?? []) {
    p.forEach((n, i) => {
      if (i === p.length - 1) m.set(n, 'failed');
      else if (!m.has(n)) m.set(n, 'succeeded');
    });
  }
  for (const n of d.succeeded_path ?? []) m.set(n, 'succeeded');
  for (const r of d.nodes ?? []) {
    if (r.node == null) continue;
    if (r.succeeded === true) m.set(r.node, 'succeeded');
    else if (r.succeeded === false) m.set(r.node, 'failed');
  }
  const finished = d.phase === 'Succeeded' || d.phase === 'Failed' || d.phase === 'Cancelled';
  if (!finished && d.checkpoint && d.paths) {
    const n = d.paths[d.checkpoint.path_index]?.[d.checkpoint.node_index];
    if (n != null) m.set(n, 'current');
  }
  return m;
}

/** operation_results keys that belong to an operation: "operation.host_facts.output" ↔ "host-facts" */
export function resultsFor(results: Record<string, string> | undefined, operation: string | undefined): Array<[string, string]> {
  if (!results || !operation) return [];
  const norm = operation.replace(/[-.]/g, '_');
  return Object.entries(results).filter(([k]) => {
    const parts = k.split('.');
    return parts.some((p) => p === operation || p === norm);
  });
}

/**
 * The results a node gave: its latest run's own results (each run keeps them since 2026-11, so two nodes writing one
 * key each show theirs); for a diagnosis stored before, the merged results whose keys name the operation.
 */
export function nodeResults(d: Diagnosis, node: number, operation: string | undefined): Array<[string, string]> {
  const runs = (d.nodes ?? []).filter((r) => r.node === node && r.results !== undefined);
  const last = runs[runs.length - 1];
  return last ? Object.entries(last.results ?? {}) : resultsFor(d.operation_results, operation);
}

/** A Diagnosis needs a lowercase RFC 1123 name; without one typed, the OperationSet, host and time make one. */
export function defaultDiagnosisName(opset: string, node: string, now = Date.now()): string {
  const slug = `${opset}-${node}`.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '');
  return `${slug.slice(0, 200) || 'diagnosis'}-${now.toString(36)}`;
}
