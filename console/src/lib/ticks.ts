// The y axis of a chart: a "nice" step (1, 2 or 5 times a power of ten), the
// axis top as a whole number of steps, and labels with just enough decimals
// that no two of them read the same. Pure, so test/console tests it in Node.

export interface Axis {
  /** The axis top: the largest tick, at least the largest value. */
  top: number;
  step: number;
  ticks: number[];
  /** Decimals the labels need at this step. */
  decimals: number;
}

/**
 * Ticks from 0 to at least `max`, about `target` intervals apart. With
 * `integer` (counts) the step is a whole number. An empty range (max <= 0)
 * gives the axis 0..1.
 */
export function niceAxis(max: number, { integer = false, target = 4 }: { integer?: boolean; target?: number } = {}): Axis {
  const hi = Number.isFinite(max) && max > 0 ? max : 1;
  const rough = hi / target;
  const pow = 10 ** Math.floor(Math.log10(rough));
  let step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= rough * (1 - 1e-9)) ?? 10 * pow;
  if (integer) step = Math.max(1, Math.round(step));
  const n = Math.max(1, Math.ceil(hi / step - 1e-9));
  const decimals = integer ? 0 : Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  // Multiply rather than add, and round to the step's decimals: no 0.30000000000000004.
  const ticks = Array.from({ length: n + 1 }, (_, i) => Number((i * step).toFixed(decimals)));
  return { top: ticks[n]!, step, ticks, decimals };
}

/** A tick label: grouped digits, or compact ("25K", "1.5M") on an axis that reaches ten thousand. */
export function tickLabel(v: number, axis: Axis, locale?: string): string {
  if (axis.top >= 10_000) return v.toLocaleString(locale, { notation: "compact", maximumFractionDigits: 1 });
  return v.toLocaleString(locale, { minimumFractionDigits: v === 0 ? 0 : axis.decimals, maximumFractionDigits: axis.decimals });
}
