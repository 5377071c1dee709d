// src/server/tick-shape.ts holds one of Node's nextTick queue entries (from
// the moment main.ts calls holdTickShape; importing it does nothing) so that
// the entries' hidden class survives full collections. It relies on two facts
// of this Node: the resource of a running tick is its queue entry, and holding
// one entry keeps the class that new entries get. Both are checked here, the
// second in a child process with V8's natives (%HaveSameMap) and gc().
import t from "tap";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { heldTickEntry, holdTickShape } from "../../src/server/tick-shape.js";

const mod = pathToFileURL(path.resolve(import.meta.dirname, "../../src/server/tick-shape.ts")).href;

t.test("importing the module holds nothing and starts no timer", async (t) => {
  const code = `
    const { heldTickEntry } = await import(${JSON.stringify(mod)});
    await new Promise((r) => setTimeout(r, 10));
    process.stdout.write(JSON.stringify({ held: heldTickEntry() !== undefined, timers: process.getActiveResourcesInfo().filter((r) => r === "Timeout").length }));
  `;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { encoding: "utf8", timeout: 60_000 });
  t.equal(r.status, 0, r.stderr);
  t.same(JSON.parse(r.stdout), { held: false, timers: 0 });
});

t.test("the held object is a nextTick queue entry", async (t) => {
  const stop = holdTickShape();
  t.teardown(stop);
  await new Promise((r) => setTimeout(r, 10));
  const entry = heldTickEntry() as Record<string | symbol, unknown> | undefined;
  t.ok(entry, "an entry is held once a tick has run");
  t.type(entry!.callback, "function");
  const symbols = Object.getOwnPropertySymbols(entry).map(String);
  t.ok(symbols.includes("Symbol(async_id_symbol)") && symbols.includes("Symbol(trigger_async_id_symbol)"), `its own symbols: ${symbols.join(", ")}`);
});

t.test("entries made after full collections keep the held entry's hidden class", async (t) => {
  const code = `
    import { executionAsyncResource } from "node:async_hooks";
    const { heldTickEntry, holdTickShape } = await import(${JSON.stringify(mod)});
    holdTickShape();
    await new Promise((r) => setTimeout(r, 10));
    const held = heldTickEntry();
    const same = new Function("a", "b", "return %HaveSameMap(a, b)");
    const results = [];
    for (let i = 0; i < 6; i++) {
      globalThis.gc();
      const fresh = await new Promise((r) => process.nextTick(() => r(executionAsyncResource())));
      results.push(same(held, fresh));
    }
    process.stdout.write(JSON.stringify(results));
  `;
  const r = spawnSync(process.execPath, ["--allow-natives-syntax", "--expose-gc", "--import", "tsx", "--input-type=module", "-e", code], { encoding: "utf8", timeout: 60_000 });
  t.equal(r.status, 0, r.stderr);
  t.same(JSON.parse(r.stdout), [true, true, true, true, true, true]);
});
