// Preload for the gateway or the bare proxy (node --import bench/async-count-preload.mjs ...):
// counts the async resources a process creates (promises, nextTick objects,
// timers, immediates, ...) between two SIGUSR2 signals and prints them to
// stderr, so that "how much async machinery does a request cost" is a count
// (divide by the requests driven in between), not an impression from a CPU
// profile. With BENCH_ASYNC_STACKS=1 each count is split by the stack that
// created the resource (six frames; slow, for finding sites, not for timing).
// The async hook itself slows the process; read the counts, not its speed.
import { createHook } from "node:async_hooks";

const stacks = process.env.BENCH_ASYNC_STACKS === "1";
const counts = new Map();
let on = false;
if (stacks) Error.stackTraceLimit = 14;

createHook({
  init(_id, type) {
    if (!on) return;
    let key = type;
    if (stacks) {
      const frames = String(new Error().stack)
        .split("\n")
        .slice(2)
        .filter((l) => !l.includes("async_hooks") && !l.includes("async-count-preload"))
        .slice(0, 6)
        .map((l) =>
          l
            .trim()
            .replace(/^at /, "")
            .replace(/file:\/\/\/\S*?\/(dist\/server\/\w+\/)?(src|gen|bench)\//, "$2/")
            .replace(/\(\S*node_modules\//, "("),
        );
      key = `${type} :: ${frames.join(" < ")}`;
    }
    counts.set(key, (counts.get(key) ?? 0) + 1);
  },
}).enable();

process.on("SIGUSR2", () => {
  if (!on) {
    counts.clear();
    on = true;
    process._rawDebug("async-count: counting");
    return;
  }
  on = false;
  const rows = [...counts].sort((a, b) => b[1] - a[1]).slice(0, stacks ? 60 : 30);
  process._rawDebug(`async-count: ${rows.map(([k, v]) => `${String(v).padStart(8)}  ${k}`).join("\n")}`);
});
