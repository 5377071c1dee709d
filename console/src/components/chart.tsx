// A stacked bar chart in plain SVG: one bar per time bucket, one colour per
// series (key, model or format), hover titles with the numbers.
import { fmtNum } from "../lib/format";

export interface ChartSeries {
  name: string;
  values: number[];
}

const COLORS = ["#4f7cff", "#20a67a", "#f29d38", "#d9534f", "#8e6ad8", "#2bb3c0", "#c2a300", "#e0609f", "#7a8a99"];
export const colorOf = (i: number) => COLORS[i % COLORS.length]!;

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export function StackedBars({ starts, bucketMs, series, unit, digits = 0 }: { starts: number[]; bucketMs: number; series: ChartSeries[]; unit: string; digits?: number }) {
  const W = 800;
  const H = 240;
  const pad = { l: 56, r: 12, t: 12, b: 28 };
  const n = starts.length;
  const totals = starts.map((_, i) => series.reduce((s, x) => s + (x.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const iw = W - pad.l - pad.r;
  const ih = H - pad.t - pad.b;
  const bw = n > 0 ? iw / n : iw;
  const y = (v: number) => pad.t + ih - (v / max) * ih;
  const label = (ms: number) => {
    const d = new Date(ms);
    return bucketMs >= 86_400_000 ? d.toLocaleDateString() : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  };
  const tickEvery = Math.max(1, Math.ceil(n / 8));
  return (
    <svg className="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${unit} over time`} data-testid="usage-chart">
      {[0, 0.25, 0.5, 0.75, 1].map((f) => (
        <g key={f}>
          <line x1={pad.l} x2={W - pad.r} y1={y(max * f)} y2={y(max * f)} className="grid" />
          <text x={pad.l - 6} y={y(max * f) + 4} textAnchor="end" className="axis">
            {fmtNum(max * f, digits)}
          </text>
        </g>
      ))}
      {starts.map((s, i) => {
        let acc = 0;
        return (
          <g key={s} data-testid="usage-bar" data-total={totals[i]}>
            {series.map((x, j) => {
              const v = x.values[i] ?? 0;
              if (v <= 0) return null;
              const top = y(acc + v);
              const h = y(acc) - top;
              acc += v;
              return (
                <rect key={x.name} x={pad.l + i * bw + bw * 0.12} width={Math.max(1, bw * 0.76)} y={top} height={Math.max(0.5, h)} fill={colorOf(j)}>
                  <title>{`${label(s)} · ${x.name}: ${fmtNum(v, digits)} ${unit}`}</title>
                </rect>
              );
            })}
            {i % tickEvery === 0 ? (
              <text x={pad.l + i * bw + bw / 2} y={H - 8} textAnchor="middle" className="axis">
                {label(s)}
              </text>
            ) : null}
          </g>
        );
      })}
      <line x1={pad.l} x2={W - pad.r} y1={y(0)} y2={y(0)} className="baseline" />
    </svg>
  );
}
