// The usage chart's y axis (console/src/lib/ticks.ts): 1-2-5 steps, whole
// steps for counts, a 0..1 axis when there is nothing, and labels that never
// repeat.
import t from "tap";
import { niceAxis, tickLabel } from "../../console/src/lib/ticks.js";

const labels = (max: number, integer: boolean) => {
  const axis = niceAxis(max, { integer });
  return axis.ticks.map((v) => tickLabel(v, axis, "en-US"));
};

t.test("counts: whole-number ticks in 1-2-5 steps", async (t) => {
  t.same(niceAxis(0, { integer: true }).ticks, [0, 1], "empty: 0..1");
  t.same(niceAxis(1, { integer: true }).ticks, [0, 1]);
  t.same(niceAxis(3, { integer: true }).ticks, [0, 1, 2, 3]);
  t.same(niceAxis(7, { integer: true }).ticks, [0, 2, 4, 6, 8]);
  t.same(niceAxis(10, { integer: true }).ticks, [0, 5, 10]);
  t.same(niceAxis(37, { integer: true }).ticks, [0, 10, 20, 30, 40]);
  t.same(niceAxis(1234, { integer: true }).ticks, [0, 500, 1000, 1500]);
  t.same(labels(1, true), ["0", "1"], "no 0, 0, 1, 1, 1");
  t.same(labels(0, true), ["0", "1"]);
  t.same(labels(48_000, true), ["0", "20K", "40K", "60K"], "compact from ten thousand up");
});

t.test("amounts: decimals only as many as the step needs", async (t) => {
  t.same(niceAxis(0).ticks, [0, 0.5, 1], "empty: 0..1");
  t.same(labels(0.3, false), ["0", "0.1", "0.2", "0.3"], "no float noise");
  t.same(labels(0.0042, false), ["0", "0.002", "0.004", "0.006"]);
  t.same(labels(2.5, false), ["0", "1", "2", "3"]);
  t.same(labels(1_500_000, false), ["0", "500K", "1M", "1.5M"]);
});

t.test("every axis: starts at 0, covers the maximum, equal steps, no two labels alike", async (t) => {
  const maxima = [0, 1e-7, 0.0003, 0.07, 0.5, 0.99, 1, 1.01, 2, 2.5, 3, 4.2, 9, 11, 99, 101, 250, 999, 1001, 12_345, 99_999, 3_000_000, 987_654_321];
  let checked = 0;
  for (const integer of [true, false]) {
    for (const max of maxima) {
      const axis = niceAxis(max, { integer });
      const where = `max ${max}${integer ? " (counts)" : ""}`;
      if (axis.ticks[0] !== 0) t.fail(`${where}: starts at ${axis.ticks[0]}`);
      if (axis.top < max) t.fail(`${where}: top ${axis.top} below the maximum`);
      if (axis.ticks.length < 2 || axis.ticks.length > 6) t.fail(`${where}: ${axis.ticks.length} ticks`);
      const lead = Number((axis.step / 10 ** Math.floor(Math.log10(axis.step) + 1e-9)).toPrecision(6));
      if (![1, 2, 5].includes(lead)) t.fail(`${where}: step ${axis.step} is not 1, 2 or 5 times a power of ten`);
      if (integer && !axis.ticks.every(Number.isInteger)) t.fail(`${where}: fractional ticks ${axis.ticks}`);
      const ls = axis.ticks.map((v) => tickLabel(v, axis, "en-US"));
      if (new Set(ls).size !== ls.length) t.fail(`${where}: repeated labels ${ls.join(", ")}`);
      checked++;
    }
  }
  t.equal(checked, maxima.length * 2);
});
