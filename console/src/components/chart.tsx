// A stacked bar chart in plain SVG: one bar per time bucket, one colour per
// series (key, model or format), hover titles with the numbers. It draws at
// the width of its box (no scaling), so the axis text keeps its size.
import { useLayoutEffect, useRef, useState } from "react";
import { fmtNum } from "../lib/format";
import { niceAxis, tickLabel } from "../lib/ticks";

export interface ChartSeries {
  name: string;
  values: number[];
}

const COLORS = ["#4f7cff", "#20a67a", "#f29d38", "#d9534f", "#8e6ad8", "#2bb3c0", "#c2a300", "#e0609f", "#7a8a99"];
export const colorOf = (i: number) => COLORS[i % COLORS.length]!;

const DAY = 86_400_000;
const H = 240;
const PAD = { l: 52, r: 12, t: 12, b: 26 };

function useWidth<T extends Element>(fallback: number) {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(fallback);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.clientWidth || fallback);
    const ro = new ResizeObserver(([e]) => e && e.contentRect.width > 0 && setWidth(Math.round(e.contentRect.width)));
    ro.observe(el);
    return () => ro.disconnect();
  }, [fallback]);
  return { ref, width };
}

/** A bucket's start as the axis shows it: the day for daily buckets, day and time when the range spans days. */
export function bucketLabel(ms: number, bucketMs: number, spanMs: number): string {
  const d = new Date(ms);
  if (bucketMs >= DAY) return d.toLocaleDateString([], { month: "short", day: "numeric" });
  const time = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return spanMs > DAY ? `${d.toLocaleDateString([], { month: "short", day: "numeric" })} ${time}` : time;
}

/** A time label under its bar, kept inside the chart at the right edge. */
function TimeLabel({ x, right, text }: { x: number; right: number; text: string }) {
  const half = text.length * 3.2;
  const atEdge = x + half > right;
  return (
    <text x={atEdge ? right : x} y={H - 8} textAnchor={atEdge ? "end" : "middle"} className="axis">
      {text}
    </text>
  );
}

export function StackedBars({
  starts,
  bucketMs,
  series,
  unit,
  digits = 0,
  empty = "No usage in this range.",
}: {
  starts: number[];
  bucketMs: number;
  series: ChartSeries[];
  unit: string;
  /** Decimals of the values; 0 means whole counts (whole-number ticks). */
  digits?: number;
  empty?: string;
}) {
  const { ref, width } = useWidth<HTMLDivElement>(800);
  const W = Math.max(240, width);
  const n = starts.length;
  const totals = starts.map((_, i) => series.reduce((s, x) => s + (x.values[i] ?? 0), 0));
  const axis = niceAxis(Math.max(0, ...totals), { integer: digits === 0, target: 4 });
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const bw = n > 0 ? iw / n : iw;
  const y = (v: number) => PAD.t + ih - (v / axis.top) * ih;
  const span = n * bucketMs;
  // About one time label per 90 px.
  const tickEvery = Math.max(1, Math.ceil(n / Math.max(2, Math.floor(iw / (span > DAY && bucketMs < DAY ? 120 : 90)))));
  const isEmpty = totals.every((v) => v <= 0);
  return (
    <div className="chart-box" ref={ref}>
      <svg className="chart" width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${unit} over time`} data-testid="usage-chart" data-ticks={axis.ticks.join(",")}>
        {axis.ticks.map((v) => (
          <g key={v}>
            <line x1={PAD.l} x2={W - PAD.r} y1={y(v)} y2={y(v)} className="grid" />
            <text x={PAD.l - 8} y={y(v) + 4} textAnchor="end" className="axis" data-testid="usage-tick">
              {tickLabel(v, axis)}
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
                  <rect key={x.name} x={PAD.l + i * bw + bw * 0.12} width={Math.max(1, bw * 0.76)} y={top} height={Math.max(0.5, h)} fill={colorOf(j)}>
                    <title>{`${bucketLabel(s, bucketMs, span)} · ${x.name}: ${fmtNum(v, digits)} ${unit}`}</title>
                  </rect>
                );
              })}
              {i % tickEvery === 0 ? <TimeLabel x={PAD.l + i * bw + bw / 2} right={W - 2} text={bucketLabel(s, bucketMs, span)} /> : null}
            </g>
          );
        })}
        <line x1={PAD.l} x2={W - PAD.r} y1={y(0)} y2={y(0)} className="baseline" />
        {isEmpty ? (
          <text x={PAD.l + iw / 2} y={PAD.t + ih / 2} textAnchor="middle" className="chart-empty" data-testid="usage-chart-empty">
            {empty}
          </text>
        ) : null}
      </svg>
    </div>
  );
}
