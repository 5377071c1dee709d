// Summarises a V8 .cpuprofile (from `node --cpu-prof`, or BENCH_PROF_DIR with
// npm run bench): self time per package or source area, and the top functions.
// Usage: node bench/profile.mjs <file.cpuprofile> [top N]
import { readFileSync } from "node:fs";

const file = process.argv[2];
const topN = Number(process.argv[3] ?? 40);
if (!file) {
  console.error("usage: node bench/profile.mjs <file.cpuprofile> [top N]");
  process.exit(2);
}
const prof = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
/** Module loading and compiling (start-up, lazy imports): counted apart from the request work. */
const loadCache = new Map();
function isLoad(id) {
  if (loadCache.has(id)) return loadCache.get(id);
  const cf = byId.get(id).callFrame;
  const own = /node:internal\/modules\/|\/tsx\/|node:internal\/bootstrap/.test(cf.url ?? "");
  const p = parent.get(id);
  const r = own || (p !== undefined && isLoad(p));
  loadCache.set(id, r);
  return r;
}
const self = new Map();
let loading = 0;
for (let i = 0; i < prof.samples.length; i++) {
  const id = prof.samples[i];
  if (isLoad(id)) {
    loading += prof.timeDeltas[i] ?? 0;
    continue;
  }
  self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
}

/** A frame's file for function keys: the path under src/ or gen/, else its area. */
function where(cf) {
  const src = /\/((?:src|gen)\/.+)$/.exec(cf.url ?? "");
  return src ? src[1] : area(cf);
}

/** Where a frame belongs: a package, a source area, or a V8/Node bucket. */
function area(cf) {
  const url = cf.url ?? "";
  const name = cf.functionName;
  if (!url) {
    if (name === "(idle)" || name === "(program)" || name === "(garbage collector)") return name;
    return `(native) ${name || "anonymous"}`;
  }
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const src = /\/(src|gen)\/(.+)$/.exec(url);
  if (src) {
    const parts = src[2].split("/");
    return `${src[1]}/${parts.slice(0, Math.min(parts.length - 1, 2)).join("/") || parts[0]}`;
  }
  if (url.startsWith("node:")) return url;
  return url;
}

const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self].filter(([id]) => byId.get(id).callFrame.functionName === "(idle)").reduce((a, [, t]) => a + t, 0);
const busy = total - idle;
const areas = new Map();
const fns = new Map();
for (const [id, t] of self) {
  const cf = byId.get(id).callFrame;
  if (cf.functionName === "(idle)") continue;
  const a = area(cf);
  areas.set(a, (areas.get(a) ?? 0) + t);
  const key = `${cf.functionName || "(anonymous)"} ${where(cf)}${cf.url ? `:${cf.lineNumber + 1}` : ""}`;
  fns.set(key, (fns.get(key) ?? 0) + t);
}
const pct = (t) => ((100 * t) / busy).toFixed(1).padStart(5) + "%";
console.log(
  `samples ${prof.samples.length}, ${(total / 1e6).toFixed(1)} s, idle ${((100 * idle) / total).toFixed(1)}%, module loading ${(loading / 1e6).toFixed(1)} s (left out); shares below are of the rest of the busy time`,
);
console.log("\nby area:");
for (const [a, t] of [...areas].sort((x, y) => y[1] - x[1]).slice(0, topN)) console.log(`${pct(t)}  ${a}`);
console.log("\ntop functions (self):");
for (const [f, t] of [...fns].sort((x, y) => y[1] - x[1]).slice(0, topN)) console.log(`${pct(t)}  ${f}`);

// Inclusive time: each sample counts once for every distinct function on its stack.
const incl = new Map();
for (let i = 0; i < prof.samples.length; i++) {
  let id = prof.samples[i];
  if (isLoad(id) || byId.get(id).callFrame.functionName === "(idle)") continue;
  const seen = new Set();
  for (; id !== undefined; id = parent.get(id)) {
    const cf = byId.get(id).callFrame;
    if (!cf.url) continue;
    const key = `${cf.functionName || "(anonymous)"} ${where(cf)}:${cf.lineNumber + 1}:${cf.columnNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    incl.set(key, (incl.get(key) ?? 0) + (prof.timeDeltas[i] ?? 0));
  }
}
console.log("\ntop functions (inclusive):");
for (const [f, t] of [...incl].sort((x, y) => y[1] - x[1]).slice(0, topN)) console.log(`${pct(t)}  ${f}`);

// node bench/profile.mjs file N <regex>: who calls the functions matching regex (4 frames up).
if (process.argv[4]) {
  const re = new RegExp(process.argv[4]);
  const callers = new Map();
  for (let i = 0; i < prof.samples.length; i++) {
    const id = prof.samples[i];
    if (isLoad(id)) continue;
    const chainIds = [];
    for (let x = id; x !== undefined; x = parent.get(x)) chainIds.push(x);
    const hit = chainIds.findIndex((x) => re.test(byId.get(x).callFrame.functionName));
    if (hit < 0) continue;
    const key = chainIds
      .slice(hit, hit + 5)
      .map((x) => {
        const cf = byId.get(x).callFrame;
        return `${cf.functionName || "(anon)"}@${where(cf)}:${cf.lineNumber + 1}`;
      })
      .join(" < ");
    callers.set(key, (callers.get(key) ?? 0) + (prof.timeDeltas[i] ?? 0));
  }
  console.log(`\ncallers of /${process.argv[4]}/:`);
  for (const [k, t] of [...callers].sort((x, y) => y[1] - x[1]).slice(0, 25)) console.log(`${pct(t)}  ${k}`);
}
