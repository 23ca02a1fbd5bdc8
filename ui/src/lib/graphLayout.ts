// Layered DAG layout (Sugiyama-style, simplified): cycles broken by reversing DFS back edges, longest-path layering,
// barycenter ordering sweeps to reduce crossings, then a grid of fixed-size boxes, layers left to right.

export type NodeId = string | number;

export interface LayoutOptions {
  nodeWidth?: number;
  nodeHeight?: number;
  layerGap?: number;
  nodeGap?: number;
  margin?: number;
  sweeps?: number;
}

export interface NodePosition {
  x: number;
  y: number;
  layer: number;
  order: number;
}

export interface GraphLayout {
  positions: Map<NodeId, NodePosition>;
  width: number;
  height: number;
  nodeWidth: number;
  nodeHeight: number;
  layers: NodeId[][];
  /** edges that closed a cycle; laid out as if reversed */
  reversed: Array<[NodeId, NodeId]>;
}

export function layoutGraph(nodes: NodeId[], edges: Array<[NodeId, NodeId]>, options: LayoutOptions = {}): GraphLayout {
  const nodeWidth = options.nodeWidth ?? 150;
  const nodeHeight = options.nodeHeight ?? 40;
  const layerGap = options.layerGap ?? 70;
  const nodeGap = options.nodeGap ?? 24;
  const margin = options.margin ?? 16;
  const sweeps = options.sweeps ?? 6;

  // unique nodes in input order; edges to unknown nodes add them
  const index = new Map<NodeId, number>();
  const ids: NodeId[] = [];
  const add = (id: NodeId) => {
    if (!index.has(id)) {
      index.set(id, ids.length);
      ids.push(id);
    }
  };
  nodes.forEach(add);
  edges.forEach(([a, b]) => {
    add(a);
    add(b);
  });
  const n = ids.length;
  const out: number[][] = Array.from({ length: n }, () => []);
  const edgeSet = new Set<string>();
  for (const [a, b] of edges) {
    const u = index.get(a)!;
    const v = index.get(b)!;
    if (u === v) continue; // self-loops carry no layering information
    const key = `${u}>${v}`;
    if (edgeSet.has(key)) continue;
    edgeSet.add(key);
    out[u].push(v);
  }

  // 1. break cycles: iterative DFS, an edge to a node on the stack is a back edge, reversed
  const state = new Uint8Array(n); // 0 new, 1 on stack, 2 done
  const reversedIdx: Array<[number, number]> = [];
  const dag: number[][] = Array.from({ length: n }, () => []);
  for (let root = 0; root < n; root++) {
    if (state[root]) continue;
    const stack: Array<[number, number]> = [[root, 0]];
    state[root] = 1;
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [u, i] = top;
      if (i < out[u].length) {
        top[1]++;
        const v = out[u][i];
        if (state[v] === 1) {
          reversedIdx.push([u, v]);
          if (!edgeSet.has(`${v}>${u}`)) dag[v].push(u);
        } else {
          dag[u].push(v);
          if (state[v] === 0) {
            state[v] = 1;
            stack.push([v, 0]);
          }
        }
      } else {
        state[u] = 2;
        stack.pop();
      }
    }
  }
  const preds: number[][] = Array.from({ length: n }, () => []);
  for (let u = 0; u < n; u++) for (const v of dag[u]) preds[v].push(u);

  // 2. longest-path layering in topological order (Kahn)
  const indeg = preds.map((p) => p.length);
  const layer = new Int32Array(n);
  const queue: number[] = [];
  for (let u = 0; u < n; u++) if (indeg[u] === 0) queue.push(u);
  for (let qi = 0; qi < queue.length; qi++) {
    const u = queue[qi];
    for (const v of dag[u]) {
      if (layer[u] + 1 > layer[v]) layer[v] = layer[u] + 1;
      if (--indeg[v] === 0) queue.push(v);
    }
  }
  let layerCount = 0;
  for (let u = 0; u < n; u++) if (layer[u] + 1 > layerCount) layerCount = layer[u] + 1;
  const layers: number[][] = Array.from({ length: layerCount }, () => []);
  for (let u = 0; u < n; u++) layers[layer[u]].push(u);

  // 3. barycenter ordering, alternating down (by predecessors) and up (by successors) sweeps
  const pos = new Float64Array(n);
  const setPositions = (l: number[]) => l.forEach((u, i) => (pos[u] = i));
  layers.forEach(setPositions);
  const reorder = (l: number[], neighbours: number[][]) => {
    const keyed = l.map((u, i) => {
      const ns = neighbours[u];
      if (!ns.length) return { u, key: i, i };
      let s = 0;
      for (const v of ns) s += pos[v];
      return { u, key: s / ns.length, i };
    });
    keyed.sort((a, b) => a.key - b.key || a.i - b.i);
    for (let i = 0; i < keyed.length; i++) l[i] = keyed[i].u;
    setPositions(l);
  };
  for (let s = 0; s < sweeps; s++) {
    if (s % 2 === 0) for (let li = 1; li < layerCount; li++) reorder(layers[li], preds);
    else for (let li = layerCount - 2; li >= 0; li--) reorder(layers[li], dag);
  }

  // 4. coordinates: layers are columns; each column centred vertically
  const maxPerLayer = layers.reduce((m, l) => Math.max(m, l.length), 0);
  const columnHeight = (k: number) => k * nodeHeight + Math.max(0, k - 1) * nodeGap;
  const height = n === 0 ? 0 : columnHeight(maxPerLayer) + 2 * margin;
  const width = n === 0 ? 0 : layerCount * nodeWidth + Math.max(0, layerCount - 1) * layerGap + 2 * margin;
  const positions = new Map<NodeId, NodePosition>();
  layers.forEach((l, li) => {
    const offset = margin + (columnHeight(maxPerLayer) - columnHeight(l.length)) / 2;
    l.forEach((u, order) => {
      positions.set(ids[u], { x: margin + li * (nodeWidth + layerGap), y: offset + order * (nodeHeight + nodeGap), layer: li, order });
    });
  });
  return {
    positions,
    width,
    height,
    nodeWidth,
    nodeHeight,
    layers: layers.map((l) => l.map((u) => ids[u])),
    reversed: reversedIdx.map(([u, v]) => [ids[u], ids[v]]),
  };
}

/** Graph of an OperationSet's spec.adjacencyList: [{id, operation, to}] */
export interface AdjacencyNode {
  id: number;
  operation?: string;
  to?: number[];
}

export function adjacencyToGraph(list: AdjacencyNode[]): { nodes: number[]; edges: Array<[number, number]>; labels: Map<number, string> } {
  const nodes = list.map((a) => a.id);
  const edges: Array<[number, number]> = [];
  const labels = new Map<number, string>();
  for (const a of list) {
    labels.set(a.id, a.operation ?? (a.id === 0 ? 'start' : `#${a.id}`));
    for (const t of a.to ?? []) edges.push([a.id, t]);
  }
  return { nodes, edges, labels };
}
