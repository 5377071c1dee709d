// Summarises a sampling heap profile (.heapprofile, allocations sampled with
// collected objects included): bytes allocated per function (self) and per
// allocating stack. Usage: node bench/heap-summary.mjs <file> [top N]
import { readFileSync } from "node:fs";

const prof = JSON.parse(readFileSync(process.argv[2], "utf8"));
const topN = Number(process.argv[3] ?? 30);
const self = new Map();
const stacks = new Map();
let total = 0;
const name = (cf) => {
  const m = /\/((?:src|gen)\/.+)$/.exec(cf.url ?? "");
  const nm = (cf.url ?? "").lastIndexOf("node_modules/");
  const where = m
    ? m[1]
    : nm >= 0
      ? cf.url
          .slice(nm + 13)
          .split("/")
          .slice(0, 2)
          .join("/")
      : cf.url || "(native)";
  return `${cf.functionName || "(anonymous)"} ${where}:${cf.lineNumber + 1}`;
};
function walk(node, path) {
  const here = [...path, name(node.callFrame)];
  const bytes = node.selfSize ?? 0;
  if (bytes) {
    total += bytes;
    const k = here.at(-1);
    self.set(k, (self.get(k) ?? 0) + bytes);
    const s = here.slice(-4).reverse().join(" < ");
    stacks.set(s, (stacks.get(s) ?? 0) + bytes);
  }
  for (const c of node.children ?? []) walk(c, here);
}
walk(prof.head, []);
const pct = (b) => ((100 * b) / total).toFixed(1).padStart(5) + "%";
console.log(`sampled ${(total / 1e6).toFixed(1)} MB allocated`);
console.log("\nby function (self):");
for (const [k, b] of [...self].sort((a, b) => b[1] - a[1]).slice(0, topN)) console.log(`${pct(b)}  ${k}`);
console.log("\nby stack:");
for (const [k, b] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, topN)) console.log(`${pct(b)}  ${k}`);
