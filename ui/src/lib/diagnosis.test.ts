import { describe, expect, it } from 'vitest';
import { defaultDiagnosisName, nodeResults, nodeStates, resultsFor } from './diagnosis';
import type { Diagnosis } from '../types';

const base: Diagnosis = { id: 1, name: 'd', operation_set: 's', host_id: 3, biz_id: 2, phase: 'Running', paths: [[1, 2, 3], [1, 4]] };

describe('diagnosis node states', () => {
  it('marks the succeeded path', () => {
    const m = nodeStates({ ...base, phase: 'Succeeded', succeeded_path: [1, 2, 3], checkpoint: { path_index: 0, node_index: 2 } });
    expect([m.get(1), m.get(2), m.get(3), m.get(4)]).toEqual(['succeeded', 'succeeded', 'succeeded', undefined]);
  });
  it('marks the failing node of a failed path and the current node while running', () => {
    const m = nodeStates({ ...base, failed_paths: [[1, 2, 3]], checkpoint: { path_index: 1, node_index: 1 } });
    expect(m.get(3)).toBe('failed');
    expect(m.get(2)).toBe('succeeded');
    expect(m.get(4)).toBe('current');
  });
  it('finds results by operation name', () => {
    const r = { 'operation.host_facts.output': 'a', 'operation.disk_usage.output': 'b' };
    expect(resultsFor(r, 'host-facts')).toEqual([['operation.host_facts.output', 'a']]);
    expect(resultsFor(r, 'nothing')).toEqual([]);
  });
});

describe('node results', () => {
  it('are each node run\'s own, so two nodes writing one key each show theirs', () => {
    const d: Diagnosis = {
      ...base,
      operation_results: { 'plugin.x.status': 'RUNNING' },
      nodes: [
        { path_index: 0, node: 2, operation: 'plugin-running', succeeded: true, results: { 'plugin.x.status': 'TERMINATED' } },
        { path_index: 1, node: 4, operation: 'plugin-running', succeeded: true, results: { 'plugin.x.status': 'RUNNING' } },
      ],
    };
    expect(nodeResults(d, 2, 'plugin-running')).toEqual([['plugin.x.status', 'TERMINATED']]);
    expect(nodeResults(d, 4, 'plugin-running')).toEqual([['plugin.x.status', 'RUNNING']]);
  });
  it('fall back to the merged results by name for a diagnosis stored before nodes kept theirs', () => {
    const d: Diagnosis = { ...base, operation_results: { 'operation.host_facts.output': 'a' }, nodes: [{ path_index: 0, node: 1, operation: 'host-facts', succeeded: true }] };
    expect(nodeResults(d, 1, 'host-facts')).toEqual([['operation.host_facts.output', 'a']]);
  });
});

describe('default diagnosis names', () => {
  const name = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;
  it('are lowercase RFC 1123 names made of the OperationSet, the host and the time', () => {
    expect(defaultDiagnosisName('host-overview', 'Web_1', 36)).toBe('host-overview-web-1-10');
    expect(defaultDiagnosisName('host-overview', 'Web_1')).toMatch(name);
  });
  it('survive hosts that are all punctuation, odd Unicode or very long', () => {
    expect(defaultDiagnosisName('', '…', 35)).toBe('diagnosis-z');
    expect(defaultDiagnosisName('s', 'hôst\u0000', 1)).toMatch(name);
    const long = defaultDiagnosisName('s', 'x'.repeat(1000));
    expect(long.length).toBeLessThanOrEqual(253);
    expect(long).toMatch(name);
  });
});
