// The gateway turns V8's allocation-site pretenuring off (src/server/v8-flags.ts),
// unless node's command line already sets it either way.
import t from "tap";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { v8Flags } from "../../src/server/v8-flags.js";

t.test("each flag is set unless node's command line names it", async (t) => {
  const both = ["--no-allocation-site-pretenuring", "--heap-growing-percent=10"];
  t.same(v8Flags([]), both);
  t.same(v8Flags(["--max-semi-space-size=8", "--enable-source-maps", "-e"]), both);
  t.same(v8Flags(["--allocation-site-pretenuring"]), ["--heap-growing-percent=10"], "an operator's explicit choice stands");
  t.same(v8Flags(["--no-allocation-site-pretenuring"]), ["--heap-growing-percent=10"]);
  t.same(v8Flags(["--allocation_site_pretenuring"]), ["--heap-growing-percent=10"], "V8 accepts underscores too");
  t.same(v8Flags(["--heap-growing-percent=50"]), ["--no-allocation-site-pretenuring"]);
  t.same(v8Flags(["--heap_growing_percent=50", "--allocation-site-pretenuring"]), []);
});

// A workload V8 pretenures: object literals holding an empty array literal
// (a site V8 tracks), made in a function and all kept alive, so every young
// collection finds them surviving. With --trace-pretenuring
// V8 prints each decision (with the statistics flag too); "=> tenure" is a site switched to old-space allocation.
function tenureDecisions(importModule: boolean): number {
  const mod = pathToFileURL(path.resolve(import.meta.dirname, "../../src/server/v8-flags.ts")).href;
  const code = [
    importModule ? `await import(${JSON.stringify(mod)});` : "",
    "function mk(i) { return { value: i, issues: [] }; }",
    "const keep = [];",
    "function round(n) { for (let i = 0; i < n; i++) keep.push(mk(i)); }",
    "for (let r = 0; r < 20; r++) round(20000);",
    "globalThis.kept = keep.length;",
  ].join("\n");
  const r = spawnSync(process.execPath, ["--import", "tsx", "--trace-pretenuring", "--trace-pretenuring-statistics", "--input-type=module", "-e", code], { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return (r.stdout.match(/=> tenure/g) ?? []).length;
}

t.test("with the module imported, V8 pretenures nothing", async (t) => {
  const control = tenureDecisions(false);
  if (control === 0) return void t.pass("control", { skip: "this V8 does not pretenure the control workload, so the flag's effect cannot be seen" });
  t.ok(control > 0, `without the module V8 pretenured ${control} time(s)`);
  t.equal(tenureDecisions(true), 0);
});
