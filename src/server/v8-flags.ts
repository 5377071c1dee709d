// V8 settings for the gateway process, applied by main.ts before the other
// modules load; each gives way to the same flag on node's command line.
// --no-allocation-site-pretenuring: under request load V8 pretenures request objects, whose dead copies keep young garbage alive.
// --heap-growing-percent=10: what the gateway promotes is almost all garbage, so a wider margin only costs RSS.
// --no-parallel-scavenge (one usable CPU only): helper threads would just take turns with the main thread.
// --no-concurrent-marking (one usable CPU only): the marker threads took the CPU from the event loop for
// scheduler slices (20-35 ms stalls, repeated for a few hundred ms, at each full collection); marking on
// the main thread goes in steps of about a millisecond instead. It is switched only once a full collection
// has finished any marking under way.
// --incremental-marking-soft/hard-trigger=60/80 (one usable CPU only): marking on the main thread starts
// once 60-80% of the headroom to the heap limit is used, not at the limit, so it ends in small steps
// before the limit instead of in one long final pause.
// Not --single-threaded-gc: flipped while concurrent marking runs, V8 aborts (test/server/v8-flags.test.ts).
// The young generation's size and the helper pool are fixed at start: `npm start` passes them on node's command line.
import { readFileSync } from "node:fs";
import os from "node:os";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";

const DEFAULTS: readonly (readonly [name: string, flag: string])[] = [
  ["allocation-site-pretenuring", "--no-allocation-site-pretenuring"],
  ["heap-growing-percent", "--heap-growing-percent=10"],
];

/** Defaults for a process that may use one CPU at most. */
const ONE_CPU: readonly (readonly [name: string, flag: string])[] = [
  ["parallel-scavenge", "--no-parallel-scavenge"],
  ["concurrent-marking", "--no-concurrent-marking"],
  ["incremental-marking-soft-trigger", "--incremental-marking-soft-trigger=60"],
  ["incremental-marking-hard-trigger", "--incremental-marking-hard-trigger=80"],
];

/** Flags V8 may only see change between marking cycles. */
const BETWEEN_CYCLES = new Set(["--no-concurrent-marking"]);

const norm = (arg: string) => arg.slice(2).split("=")[0]!.replaceAll("_", "-").replace(/^no-/, "");

/**
 * The V8 flags to set for a process that may use `cpus` CPUs: the defaults
 * above minus those node's command line already names.
 */
export function v8Flags(execArgv: readonly string[], cpus: number): string[] {
  const given = new Set(execArgv.filter((a) => a.startsWith("--")).map(norm));
  const wanted = cpus <= 1 ? [...DEFAULTS, ...ONE_CPU] : DEFAULTS;
  return wanted.filter(([name]) => !given.has(name)).map(([, flag]) => flag);
}

/**
 * The CPUs a cgroup v2 `cpu.max` ("$MAX $PERIOD") allows: quota over period,
 * Infinity for "max", undefined for anything else.
 */
export function cpuMaxCpus(text: string): number | undefined {
  const [max, period] = text.trim().split(/\s+/);
  if (max === "max") return Infinity;
  const q = Number(max);
  const p = Number(period);
  return Number.isFinite(q) && q > 0 && Number.isFinite(p) && p > 0 ? q / p : undefined;
}

/** Where the cgroup v2 hierarchy is mounted. */
const CGROUP_ROOT = "/sys/fs/cgroup";

/**
 * The cgroup v2 directories whose `cpu.max` limits this process: its own
 * cgroup (from /proc/self/cgroup's "0::/path" line) and each parent up to the
 * root, as seen from inside a container too.
 */
export function cgroupDirs(procSelfCgroup: string): string[] {
  const line = procSelfCgroup.split("\n").find((l) => l.startsWith("0::"));
  if (line === undefined) return [];
  const parts = line.slice(3).split("/").filter(Boolean);
  const dirs: string[] = [];
  for (let i = parts.length; i >= 0; i--) dirs.push([CGROUP_ROOT, ...parts.slice(0, i)].join("/"));
  return dirs;
}

/**
 * The CPUs this process may use: its CPU affinity (os.availableParallelism),
 * lowered by the tightest cgroup v2 quota above it, if any.
 */
export function usableCpus(read: (file: string) => string = (f) => readFileSync(f, "utf8")): number {
  let cpus = os.availableParallelism();
  let self: string;
  try {
    self = read("/proc/self/cgroup");
  } catch {
    return cpus;
  }
  for (const dir of cgroupDirs(self)) {
    let quota: number | undefined;
    try {
      quota = cpuMaxCpus(read(`${dir}/cpu.max`));
    } catch {
      continue;
    }
    if (quota !== undefined && quota < cpus) cpus = quota;
  }
  return cpus;
}

/** Sets this process's V8 flags (main.ts, before the other modules load); returns those it set, for the start-up log. */
export function applyV8Flags(): string[] {
  const flags = v8Flags(process.execArgv, usableCpus());
  if (flags.some((f) => BETWEEN_CYCLES.has(f))) finishMarking();
  for (const flag of flags) v8.setFlagsFromString(flag);
  return flags;
}

/** Runs a full collection, which ends any marking cycle under way (its concurrent job joined). */
function finishMarking(): void {
  v8.setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  v8.setFlagsFromString("--no-expose-gc");
  gc();
}
