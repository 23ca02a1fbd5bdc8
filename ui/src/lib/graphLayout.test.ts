import { describe, expect, it } from 'vitest';
import { adjacencyToGraph, layoutGraph, type GraphLayout, type NodeId } from './graphLayout';

function overlaps(l: GraphLayout): boolean {
  const boxes = [...l.positions.values()];
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i];
      const b = boxes[j];
      if (a.x < b.x + l.nodeWidth && b.x < a.x + l.nodeWidth && a.y < b.y + l.nodeHeight && b.y < a.y + l.nodeHeight) return true;
    }
  return false;
}

function crossings(l: GraphLayout, edges: Array<[NodeId, NodeId]>): number {
  let c = 0;
  for (let i = 0; i < edges.length; i++)
    for (let j = i + 1; j < edges.length; j++) {
      const [a, b] = edges[i].map((id) => l.positions.get(id)!);
      const [p, q] = edges[j].map((id) => l.positions.get(id)!);
      if (a.layer !== p.layer || b.layer !== q.layer) continue;
      if ((a.order - p.order) * (b.order - q.order) < 0) c++;
    }
  return c;
}

describe('layoutGraph', () => {
  it('puts every edge target in a later layer (longest path)', () => {
    const edges: Array<[number, number]> = [[0, 1], [1, 2], [0, 2], [2, 3], [0, 3]];
    const l = layoutGraph([0, 1, 2, 3], edges);
    for (const [a, b] of edges) expect(l.positions.get(b)!.layer).toBeGreaterThan(l.positions.get(a)!.layer);
    expect(l.positions.get(3)!.layer).toBe(3);
    expect(l.layers.length).toBe(4);
  });

  it('places nodes without overlap and inside the canvas', () => {
    const edges: Array<[number, number]> = [[0, 1], [0, 2], [0, 3], [1, 4], [2, 4], [3, 5]];
    const l = layoutGraph([0, 1, 2, 3, 4, 5], edges);
    expect(overlaps(l)).toBe(false);
    for (const p of l.positions.values()) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.x + l.nodeWidth).toBeLessThanOrEqual(l.width);
      expect(p.y + l.nodeHeight).toBeLessThanOrEqual(l.height);
    }
  });

  it('is deterministic', () => {
    const edges: Array<[string, string]> = [['a', 'b'], ['a', 'c'], ['c', 'd'], ['b', 'd'], ['e', 'd']];
    const a = layoutGraph(['a', 'b', 'c', 'd', 'e'], edges);
    const b = layoutGraph(['a', 'b', 'c', 'd', 'e'], edges);
    expect([...a.positions.entries()]).toEqual([...b.positions.entries()]);
  });

  it('keeps disconnected nodes', () => {
    const l = layoutGraph([1, 2, 3, 4], [[1, 2]]);
    expect(l.positions.size).toBe(4);
    expect(l.positions.get(3)!.layer).toBe(0);
    expect(l.positions.get(4)!.layer).toBe(0);
    expect(overlaps(l)).toBe(false);
  });

  it('breaks cycles instead of hanging and reports the reversed edge', () => {
    const l = layoutGraph([1, 2, 3], [[1, 2], [2, 3], [3, 1]]);
    expect(l.positions.size).toBe(3);
    expect(l.reversed).toEqual([[3, 1]]);
    expect(l.positions.get(1)!.layer).toBeLessThan(l.positions.get(2)!.layer);
    expect(l.positions.get(2)!.layer).toBeLessThan(l.positions.get(3)!.layer);
    const self = layoutGraph([7], [[7, 7]]);
    expect(self.positions.get(7)!.layer).toBe(0);
  });

  it('reduces crossings with barycenter ordering', () => {
    // layer 1 given in an order that crosses: a→y, b→x
    const edges: Array<[string, string]> = [['a', 'y'], ['b', 'x']];
    const l = layoutGraph(['a', 'b', 'x', 'y'], edges);
    expect(crossings(l, edges)).toBe(0);
    expect(l.positions.get('y')!.order).toBe(0);
  });

  it('lays out 1,000 nodes quickly', () => {
    const nodes = Array.from({ length: 1000 }, (_, i) => i);
    const edges: Array<[number, number]> = [];
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 1; i < 1000; i++) {
      edges.push([Math.floor(rnd() * i), i]);
      if (i > 10) edges.push([Math.floor(rnd() * i), i]);
    }
    const t0 = performance.now();
    const l = layoutGraph(nodes, edges);
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(1000);
    expect(l.positions.size).toBe(1000);
    for (const [a, b] of edges) expect(l.positions.get(b)!.layer).toBeGreaterThan(l.positions.get(a)!.layer);
    // no overlap: distinct (layer, order) pairs
    expect(new Set([...l.positions.values()].map((p) => `${p.x},${p.y}`)).size).toBe(1000);
  });

  it('reads an OperationSet adjacency list', () => {
    const g = adjacencyToGraph([{ id: 0, to: [1] }, { id: 1, operation: 'host-facts', to: [2] }, { id: 2, operation: 'disk-usage' }]);
    expect(g.edges).toEqual([[0, 1], [1, 2]]);
    expect(g.labels.get(0)).toBe('start');
    expect(g.labels.get(2)).toBe('disk-usage');
  });
});
