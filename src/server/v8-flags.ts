// V8 settings for the gateway process, applied by the first import of
// main.ts so they hold before any other module's code runs. Each one gives
// way to the same flag on node's command line (an operator's explicit choice).
//
// Allocation-site pretenuring off. V8 allocates objects from a code site
// straight into the old generation once most of that site's objects have
// survived a young collection. Under request load this misfires and then feeds
// itself: a pretenured request object that has died still counts as live to
// the young collector until the next full collection, so the young objects it
// points to (the same request's body, zod output, call options, ...) survive
// too, and their own sites then look long-lived and get pretenured as well.
// Measured (Anthropic -> OpenAI, 32 connections): 3.6 KB per request promoted
// to the old generation with it, 0.6 KB without; CPU per request down about
// 18%, young-collection pauses about halved.
//
// Heap growing 10%. After a full collection V8 lets the old generation grow
// by a factor of up to 4 before the next one; what a gateway promotes is
// almost all garbage by then, so that factor is RSS and nothing else. With
// little promoted per request (about 130 B now), a 10% margin means a full
// collection every few tens of thousands of requests, each short.
//
// Young collections on the main thread alone when the process may use one
// CPU at most (its CPU affinity, or a cgroup quota of one CPU or less). V8
// splits each young collection between the main thread and helper threads;
// with one CPU the helpers take turns with the main thread, which waits for
// them, so the split is only overhead. Measured with --trace-gc-nvp on a
// gateway pinned to one CPU (Anthropic -> OpenAI, 32 connections): 7.5 µs of
// young-collection pause a request with the helpers, 7.1 without (the
// helpers' own 4.2-4.3 µs lies inside that pause on one CPU, not beside it).
// A small gain. With more CPUs the helpers run beside the main thread and
// shorten its pauses, so it stays on there.
// Only --no-parallel-scavenge, not --single-threaded-gc: V8 reads the former
// at each young collection, while the latter also turns concurrent marking
// off, and flipped during a marking cycle (one can be under way when this
// module runs) V8 aborts the process (a cppgc check on the concurrent marking
// handle; test/server/v8-flags.test.ts starts such a process).
//
// (The young generation's size and V8's helper threads cannot be changed once
// the process runs: `npm start` passes --max-semi-space-size=16 and
// --v8-pool-size=2 on node's command line.)
// Measured in bench/README.md.
import { readFileSync } from "node:fs";
import os from "node:os";
import v8 from "node:v8";

const DEFAULTS: readonly (readonly [name: string, flag: string])[] = [
  ["allocation-site-pretenuring", "--no-allocation-site-pretenuring"],
  ["heap-growing-percent", "--heap-growing-percent=10"],
];

/** Defaults for a process that may use one CPU at most. */
const ONE_CPU: readonly (readonly [name: string, flag: string])[] = [["parallel-scavenge", "--no-parallel-scavenge"]];

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

/** The flags this process set (for the start-up log). */
export const appliedV8Flags: readonly string[] = v8Flags(process.execArgv, usableCpus());
for (const flag of appliedV8Flags) v8.setFlagsFromString(flag);
