/** A tiny SVG line chart of the last samples. */
export function Sparkline({ values, width = 160, height = 36, label }: { values: number[]; width?: number; height?: number; label: string }) {
  const pad = 3;
  const max = Math.max(1, ...values);
  const n = values.length;
  const x = (i: number) => (n <= 1 ? width - pad : pad + (i * (width - 2 * pad)) / (n - 1));
  const y = (v: number) => height - pad - (v / max) * (height - 2 * pad);
  const d = values.map((v, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const area = n ? `${d} L${x(n - 1).toFixed(1)},${height - pad} L${x(0).toFixed(1)},${height - pad} Z` : '';
  return (
    <svg className="spark" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: last ${n} samples, max ${max}`}>
      {n > 0 && <path d={area} className="spark-area" />}
      {n > 0 && <path d={d} className="spark-line" />}
      {n > 0 && <circle cx={x(n - 1)} cy={y(values[n - 1])} r={2.5} className="spark-dot" />}
    </svg>
  );
}
