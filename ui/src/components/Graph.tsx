import { useMemo } from 'react';
import { layoutGraph } from '../lib/graphLayout';

export type NodeState = 'succeeded' | 'failed' | 'current' | 'pending' | 'start';

export interface GraphProps {
  nodes: number[];
  edges: Array<[number, number]>;
  labels: Map<number, string>;
  /** node ids of the highlighted path, in order */
  highlight?: number[];
  states?: Map<number, NodeState>;
  selected?: number | null;
  onNode?: (id: number) => void;
}

export function Graph({ nodes, edges, labels, highlight, states, selected, onNode }: GraphProps) {
  const layout = useMemo(() => layoutGraph(nodes, edges, { nodeWidth: 150, nodeHeight: 40, layerGap: 60, nodeGap: 22 }), [nodes, edges]);
  const hlEdges = useMemo(() => {
    const s = new Set<string>();
    if (highlight) {
      // a path lists operation nodes; the start node 0 leads into its first one
      const p = nodes.includes(0) && highlight[0] !== 0 ? [0, ...highlight] : highlight;
      for (let i = 0; i + 1 < p.length; i++) s.add(`${p[i]}>${p[i + 1]}`);
    }
    return s;
  }, [highlight, nodes]);
  const hlNodes = new Set(highlight ?? []);
  const { nodeWidth: w, nodeHeight: h } = layout;
  return (
    <div className="graph-wrap">
      <svg className="graph" width="100%" style={{ maxWidth: layout.width }} viewBox={`0 0 ${layout.width} ${layout.height}`} role="img" aria-label="Operation graph" data-testid="graph">
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" className="arrow-head" />
          </marker>
          <marker id="arrow-hl" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" className="arrow-head-hl" />
          </marker>
        </defs>
        {edges.map(([a, b], i) => {
          const pa = layout.positions.get(a);
          const pb = layout.positions.get(b);
          if (!pa || !pb) return null;
          const back = pb.layer <= pa.layer;
          const x1 = back ? pa.x : pa.x + w;
          const y1 = pa.y + h / 2;
          const x2 = back ? pb.x + w : pb.x;
          const y2 = pb.y + h / 2;
          const dx = Math.max(30, Math.abs(x2 - x1) / 2);
          const d = back ? `M${x1},${y1} C${x1 - dx},${y1 - 40} ${x2 + dx},${y2 - 40} ${x2},${y2}` : `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
          const hl = hlEdges.has(`${a}>${b}`);
          return <path key={i} d={d} className={hl ? 'edge edge-hl' : 'edge'} markerEnd={hl ? 'url(#arrow-hl)' : 'url(#arrow)'} />;
        })}
        {nodes.map((id) => {
          const p = layout.positions.get(id);
          if (!p) return null;
          const st = states?.get(id) ?? (id === 0 ? 'start' : 'pending');
          const label = labels.get(id) ?? String(id);
          const cls = ['node', `node-${st}`, hlNodes.has(id) ? 'node-hl' : '', selected === id ? 'node-selected' : ''].join(' ');
          return (
            <g key={id} className={cls} transform={`translate(${p.x},${p.y})`} data-testid="graph-node" data-node={id} data-state={st} onClick={() => onNode?.(id)} role={onNode ? 'button' : undefined} tabIndex={onNode ? 0 : undefined}>
              <rect width={w} height={h} rx={6} />
              <text x={w / 2} y={h / 2 + 4} textAnchor="middle">
                {label.length > 20 ? `${label.slice(0, 19)}…` : label}
              </text>
              <title>{`#${id} ${label} (${st})`}</title>
            </g>
          );
        })}
      </svg>
    </div>
  );
}
