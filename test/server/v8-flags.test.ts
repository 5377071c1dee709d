// The gateway's V8 defaults (src/server/v8-flags.ts): allocation-site
// pretenuring off, a 10% heap growing margin, and, when the process may use
// one CPU at most, collections without helper threads and marking started
// before the heap's limit; each unless node's command line names it.
import t from "tap";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import os from "node:os";
import { cgroupDirs, cpuMaxCpus, usableCpus, v8Flags } from "../../src/server/v8-flags.js";

t.test("each flag is set unless node's command line names it", async (t) => {
  const both = ["--no-allocation-site-pretenuring", "--heap-growing-percent=10"];
  t.same(v8Flags([], 2), both);
  t.same(v8Flags(["--max-semi-space-size=8", "--enable-source-maps", "-e"], 2), both);
  t.same(v8Flags(["--allocation-site-pretenuring"], 2), ["--heap-growing-percent=10"], "an operator's explicit choice stands");
  t.same(v8Flags(["--no-allocation-site-pretenuring"], 2), ["--heap-growing-percent=10"]);
  t.same(v8Flags(["--allocation_site_pretenuring"], 2), ["--heap-growing-percent=10"], "V8 accepts underscores too");
  t.same(v8Flags(["--heap-growing-percent=50"], 2), ["--no-allocation-site-pretenuring"]);
  t.same(v8Flags(["--heap_growing_percent=50", "--allocation-site-pretenuring"], 2), []);
});

t.test("young collections and marking without helper threads only for a process that may use one CPU at most", async (t) => {
  const both = ["--no-allocation-site-pretenuring", "--heap-growing-percent=10"];
  const triggers = ["--incremental-marking-soft-trigger=60", "--incremental-marking-hard-trigger=80"];
  const one = ["--no-parallel-scavenge", "--no-concurrent-marking", ...triggers];
  t.same(v8Flags([], 1), [...both, ...one]);
  t.same(v8Flags([], 0.5), [...both, ...one], "a quota of half a CPU");
  t.same(v8Flags([], 1.5), both, "a quota of one and a half CPUs keeps the helpers");
  t.same(v8Flags([], 4), both);
  t.same(v8Flags([], Infinity), both);
  t.same(v8Flags(["--parallel-scavenge"], 1), [...both, "--no-concurrent-marking", ...triggers], "an operator's explicit choice stands");
  t.same(v8Flags(["--no_parallel_scavenge", "--concurrent_marking", "--incremental-marking-soft-trigger=0", "--incremental_marking_hard_trigger=0"], 1), both, "named with underscores");
});

t.test("cpu.max: quota over period, max is no limit", async (t) => {
  t.equal(cpuMaxCpus("max 100000\n"), Infinity);
  t.equal(cpuMaxCpus("100000 100000\n"), 1);
  t.equal(cpuMaxCpus("50000 100000"), 0.5);
  t.equal(cpuMaxCpus("250000 100000"), 2.5);
  t.equal(cpuMaxCpus(""), undefined);
  t.equal(cpuMaxCpus("garbage"), undefined);
  t.equal(cpuMaxCpus("100000 0"), undefined, "a zero period is not a quota");
  t.equal(cpuMaxCpus("-1 100000"), undefined);
});

t.test("cgroup dirs: the process's own cgroup and each parent up to the root", async (t) => {
  t.same(cgroupDirs("0::/\n"), ["/sys/fs/cgroup"]);
  t.same(cgroupDirs("0::/system.slice/omnigate.service\n"), ["/sys/fs/cgroup/system.slice/omnigate.service", "/sys/fs/cgroup/system.slice", "/sys/fs/cgroup"]);
  t.same(cgroupDirs("12:cpu,cpuacct:/docker/abc\n0::/kube/pod1\n"), ["/sys/fs/cgroup/kube/pod1", "/sys/fs/cgroup/kube", "/sys/fs/cgroup"], "the v2 line among v1 ones");
  t.same(cgroupDirs("4:cpu:/docker/abc\n"), [], "cgroup v1 only: no v2 limits to read");
});

t.test("usable CPUs: the affinity, lowered by the tightest quota above the process", async (t) => {
  const affinity = os.availableParallelism();
  const files = (map: Record<string, string>) => (f: string) => {
    if (f in map) return map[f]!;
    throw Object.assign(new Error(`ENOENT ${f}`), { code: "ENOENT" });
  };
  t.equal(usableCpus(files({})), affinity, "no cgroup file: the affinity");
  t.equal(usableCpus(files({ "/proc/self/cgroup": "0::/a/b\n" })), affinity, "no cpu.max anywhere");
  t.equal(usableCpus(files({ "/proc/self/cgroup": "0::/a/b\n", "/sys/fs/cgroup/a/b/cpu.max": "max 100000\n" })), affinity);
  t.equal(
    usableCpus(files({ "/proc/self/cgroup": "0::/a/b\n", "/sys/fs/cgroup/a/cpu.max": "50000 100000\n", "/sys/fs/cgroup/a/b/cpu.max": "max 100000\n" })),
    0.5,
    "a parent's quota limits the child",
  );
  t.equal(usableCpus(files({ "/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/cpu.max": `${(affinity + 3) * 100000} 100000\n` })), affinity, "a quota above the affinity changes nothing");
});

const mod = pathToFileURL(path.resolve(import.meta.dirname, "../../src/server/v8-flags.ts")).href;

/**
 * Runs `lines` as an ES module in a child node with `nodeArgs`, after
 * applying src/server/v8-flags.ts's flags when asked, pinned to `cpu` when
 * given; a child that fails fails the test.
 */
function runChild(applyFlags: boolean, nodeArgs: string[], lines: string[], cpu?: string): { stdout: string; stderr: string } {
  const code = [applyFlags ? `(await import(${JSON.stringify(mod)})).applyV8Flags();` : "", ...lines].join("\n");
  const args = [...nodeArgs, "--import", "tsx", "--input-type=module", "-e", code];
  const r =
    cpu === undefined ? spawnSync(process.execPath, args, { encoding: "utf8", timeout: 60_000 }) : spawnSync("taskset", ["-c", cpu, process.execPath, ...args], { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return r;
}

t.test("importing the module sets no flag; applyV8Flags sets the flags it returns", async (t) => {
  const r = runChild(
    false,
    [],
    [
      'const { default: v8 } = await import("node:v8");',
      "const set = [];",
      "v8.setFlagsFromString = (flag) => void set.push(flag);",
      `const m = await import(${JSON.stringify(mod)});`,
      "const onImport = set.length;",
      "const applied = m.applyV8Flags();",
      "process.stdout.write(JSON.stringify({ onImport, set, applied }));",
    ],
  );
  const out = JSON.parse(r.stdout) as { onImport: number; set: string[]; applied: string[] };
  t.equal(out.onImport, 0, "no flag set on import");
  t.ok(out.applied.includes("--no-allocation-site-pretenuring") && out.applied.includes("--heap-growing-percent=10"), `applied: ${out.applied.join(" ")}`);
  t.same(out.set, out.applied, "the flags set are the flags returned");
});

/**
 * Young collections of an allocating child process pinned to one CPU
 * (--trace-gc-nvp), from the moment the flags (if any) have been applied:
 * how many, and the helper threads' share of their work.
 */
function pinnedScavenges(applyFlags: boolean): { count: number; helperMs: number } {
  const r = runChild(
    applyFlags,
    ["--max-semi-space-size=8", "--trace-gc-nvp"],
    [
      // Collections before this point are not counted.
      MARK,
      "const keep = []; let x = [];",
      "for (let i = 0; i < 2e6; i++) { x.push({ a: i, b: 's' + i }); if (x.length > 2000) { keep.push(x); x = []; } if (keep.length > 20) keep.length = 0; }",
    ],
    "0",
  );
  const lines = collectionsAfterMark(r, "s");
  const helperMs = lines.reduce((ms, line) => ms + Number(/background\.scavenge\.parallel=([\d.]+)/.exec(line)?.[1] ?? NaN), 0);
  return { count: lines.length, helperMs };
}

/**
 * A child's --trace-gc-nvp lines of collections of one kind (`s` young, `mc`
 * full) that ended after the "FROM <ms>" mark it wrote to stderr.
 */
function collectionsAfterMark(r: { stdout: string; stderr: string }, kind: "s" | "mc"): string[] {
  return traceAfterMark(r, new RegExp(`\\s(\\d+) ms: .*\\bgc=${kind}\\b`)).map((m) => m.input);
}

/** A child writes this to stderr: V8's clock now, the "FROM <ms>" mark the trace readers count from. */
const MARK =
  // V8's trace lines carry the milliseconds since the isolate started, a little after V8 did
  // (nodeTiming.v8Start, which a starved process reaches late).
  "process.stderr.write(`FROM ${Math.ceil(performance.now() - performance.nodeTiming.v8Start)}\\n`);";

/** The matches of `line` (its first group: V8's milliseconds) in a child's stdout after the "FROM <ms>" mark on its stderr. */
function traceAfterMark(r: { stdout: string; stderr: string }, line: RegExp): RegExpExecArray[] {
  const from = Number(/FROM (\d+)/.exec(r.stderr)?.[1]);
  if (!Number.isFinite(from)) throw new Error(`no start mark: ${r.stderr}`);
  return r.stdout.split("\n").flatMap((l) => {
    const m = line.exec(l);
    return m !== null && Number(m[1]) > from ? [m] : [];
  });
}

t.test("pinned to one CPU, the flags take the helper threads out of young collections", async (t) => {
  if (spawnSync("taskset", ["-c", "0", "true"]).status !== 0) return void t.pass("taskset", { skip: "taskset is not available here" });
  const control = pinnedScavenges(false);
  t.ok(control.count > 10, `control: ${control.count} young collections`);
  if (!(control.helperMs > 0)) return void t.pass("control", { skip: "this V8 ran no young collection on helper threads even without the flag" });
  const flagged = pinnedScavenges(true);
  t.ok(flagged.count > 10, `with the flags: ${flagged.count} young collections`);
  t.equal(flagged.helperMs, 0, `helper threads: ${control.helperMs.toFixed(1)} ms without the flags, ${flagged.helperMs} ms with them`);
});

/**
 * Full collections of a child pinned to one CPU that keeps part of what it
 * allocates, with the flags applied after `flipAt` allocations (or never),
 * from that point on: how many, and how many of them had the marker threads
 * working outside the pause (their marking time above the pause's own; in the
 * pause they can only take turns with the main thread on the one CPU).
 */
function pinnedMarking(flipAt: number | undefined): { count: number; concurrent: number } {
  const r = runChild(
    false,
    ["--trace-gc-nvp"],
    [
      `const { applyV8Flags } = await import(${JSON.stringify(mod)});`,
      "const keep = []; let x = []; let from = 0;",
      "for (let i = 0; i < 6e6; i++) {",
      "  x.push({ a: i, b: 's' + i }); if (x.length > 2000) { keep.push(x); x = []; } if (keep.length > 200) keep.length = 0;",
      `  if (i === ${flipAt ?? -1}) { applyV8Flags(); from = Math.ceil(performance.now() - performance.nodeTiming.v8Start); }`,
      "}",
      "process.stderr.write(`FROM ${from}\\n`);",
    ],
    "0",
  );
  const lines = collectionsAfterMark(r, "mc");
  const concurrent = lines.filter((line) => {
    const inPause = Number(/\smark=([\d.]+)/.exec(line)?.[1]);
    const helpers = Number(/background\.mark=([\d.]+)/.exec(line)?.[1]);
    return helpers > inPause + 1;
  }).length;
  return { count: lines.length, concurrent };
}

t.test("pinned to one CPU, the flags keep marking on the main thread, switched safely at any point", async (t) => {
  if (spawnSync("taskset", ["-c", "0", "true"]).status !== 0) return void t.pass("taskset", { skip: "taskset is not available here" });
  const control = pinnedMarking(undefined);
  t.ok(control.count > 3, `control: ${control.count} full collections`);
  if (control.concurrent === 0) return void t.pass("control", { skip: "this V8 marked concurrently in none of them even without the flag" });
  // Switched at several points of the run, some inside a marking cycle; the child exits cleanly each time.
  for (const flipAt of [1_000_000, 2_000_000, 3_000_000]) {
    const flagged = pinnedMarking(flipAt);
    t.ok(flagged.count > 1, `switched after ${flipAt}: ${flagged.count} full collections after it`);
    t.equal(flagged.concurrent, 0, `marked concurrently: ${control.concurrent} of ${control.count} without the flags`);
  }
});

/**
 * The headroom left (MB, V8's "slack") when each marking cycle of a child
 * pinned to one CPU started, with the flags applied and `nodeArgs`; the child
 * promotes steadily in small steps (a ring of kept objects, overwritten; a
 * small young generation, as the gateway's survivors are few per collection).
 */
function markingStartSlack(nodeArgs: string[]): number[] {
  const r = runChild(
    true,
    ["--max-semi-space-size=1", "--trace-incremental-marking", ...nodeArgs],
    [MARK, "const ring = new Array(1e6);", "for (let i = 0; i < 3e6; i++) ring[i % ring.length] = { a: [i, i, i, i], s: 's' + i };"],
    "0",
  );
  return traceAfterMark(r, /\s(\d+) ms: \[IncrementalMarking\] Start \(.*v8: \d+MB \/ \d+MB \/ (\d+)MB/).map((m) => Number(m[2]));
}

t.test("pinned to one CPU, the flags start marking before the heap reaches its limit", async (t) => {
  if (spawnSync("taskset", ["-c", "0", "true"]).status !== 0) return void t.pass("taskset", { skip: "taskset is not available here" });
  // The control names the two triggers on the command line at V8's default (0), so applyV8Flags leaves them there.
  const control = markingStartSlack(["--incremental-marking-soft-trigger=0", "--incremental-marking-hard-trigger=0"]);
  t.ok(control.length > 3, `control: ${control.length} marking cycles`);
  const early = (starts: number[]) => starts.filter((slack) => slack > 0).length / starts.length;
  if (early(control) > 0.5) return void t.pass("control", { skip: `this V8 started marking before the limit even without the triggers (headroom ${control.join(", ")} MB)` });
  const flagged = markingStartSlack([]);
  t.ok(flagged.length > 3, `with the flags: ${flagged.length} marking cycles`);
  // The cycle under way when the loop ends may start at any point: one start in ten may differ.
  t.ok(early(flagged) >= 0.9, `headroom left at each start: ${flagged.join(", ")} MB with the triggers, ${control.join(", ")} MB without`);
});

// A workload V8 pretenures: object literals holding an empty array literal
// (a site V8 tracks), made in a function and all kept alive, so every young
// collection finds them surviving. With --trace-pretenuring
// V8 prints each decision (with the statistics flag too); "=> tenure" is a site switched to old-space allocation.
function tenureDecisions(applyFlags: boolean): number {
  const r = runChild(
    applyFlags,
    ["--trace-pretenuring", "--trace-pretenuring-statistics"],
    [
      "function mk(i) { return { value: i, issues: [] }; }",
      "const keep = [];",
      "function round(n) { for (let i = 0; i < n; i++) keep.push(mk(i)); }",
      "for (let r = 0; r < 20; r++) round(20000);",
      "globalThis.kept = keep.length;",
    ],
  );
  return (r.stdout.match(/=> tenure/g) ?? []).length;
}

t.test("with the flags applied, V8 pretenures nothing", async (t) => {
  const control = tenureDecisions(false);
  if (control === 0) return void t.pass("control", { skip: "this V8 does not pretenure the control workload, so the flag's effect cannot be seen" });
  t.ok(control > 0, `without the flags V8 pretenured ${control} time(s)`);
  t.equal(tenureDecisions(true), 0);
});
