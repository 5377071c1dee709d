// GoneSignal: the AbortSignal look-alike facades hand the core for "the client
// went away". Its EventTarget semantics, and the consumers it meets on real
// paths (undici requests, timers/promises sleeps, Node's validators).
import t from "tap";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";
import { GoneSignal } from "../../../src/facades/shared/gone-signal.js";

const asSignal = (g: GoneSignal) => g as unknown as AbortSignal;

t.test("listeners run once, in order, with onabort first; reason and throwIfAborted follow", async (t) => {
  const g = new GoneSignal();
  const seen: string[] = [];
  g.onabort = (ev) => seen.push(`onabort:${ev.type}`);
  g.addEventListener("abort", () => seen.push("a"));
  g.addEventListener("abort", { handleEvent: (ev: Event) => seen.push(`obj:${ev.type}`) });
  g.addEventListener("other", () => seen.push("never"));
  t.equal(g.aborted, false);
  t.doesNotThrow(() => g.throwIfAborted());
  const why = new Error("client disconnected");
  g.abort(why);
  g.abort(new Error("second"));
  t.same(seen, ["onabort:abort", "a", "obj:abort"], "each listener once, a second abort is a no-op");
  t.equal(g.aborted, true);
  t.equal(g.reason, why);
  t.throws(() => g.throwIfAborted(), why);
});

t.test("once, duplicates, removal, late listeners and a listener's own signal", async (t) => {
  const g = new GoneSignal();
  let n = 0;
  const inc = () => n++;
  g.addEventListener("abort", inc);
  g.addEventListener("abort", inc, { once: true });
  t.equal(n, 0);
  const removed = () => (n += 100);
  g.addEventListener("abort", removed);
  g.removeEventListener("abort", removed);
  g.removeEventListener("abort", () => {});
  g.removeEventListener("other", inc);
  const owner = new AbortController();
  const owned = () => (n += 1000);
  g.addEventListener("abort", owned, { signal: owner.signal });
  owner.abort();
  g.addEventListener("abort", () => (n += 10_000), { signal: AbortSignal.abort() });
  g.addEventListener("abort", null);
  // A listener that removes a later one during dispatch: the later one still runs this time (a copy is dispatched), as with EventTarget.
  g.addEventListener("abort", () => g.removeEventListener("abort", last));
  const last = () => (n += 10);
  g.addEventListener("abort", last);
  g.abort("gone");
  t.equal(n, 11, "one run for the duplicate add, none for removed, owned or pre-aborted ones");
  g.addEventListener("abort", () => (n += 1_000_000));
  g.dispatchEvent(new Event("abort"));
  t.equal(n, 11, "a listener added after the abort never runs, and none is kept once it fired");
  t.equal(g.dispatchEvent(new Event("other")), true);
});

t.test("a throwing listener does not stop the others", async (t) => {
  const g = new GoneSignal();
  let ran = false;
  const reported = new Promise<unknown>((resolve) => {
    const orig = globalThis.queueMicrotask;
    globalThis.queueMicrotask = (fn: () => void) => {
      globalThis.queueMicrotask = orig;
      try {
        fn();
      } catch (err) {
        resolve(err);
      }
    };
  });
  g.addEventListener("abort", () => {
    throw new Error("listener bug");
  });
  g.addEventListener("abort", () => (ran = true));
  g.abort("gone");
  t.ok(ran);
  t.match(await reported, { message: "listener bug" }, "the error is reported, as EventTarget reports it");
});

t.test("Node's validators and timers/promises accept it", async (t) => {
  const g = new GoneSignal();
  const slept = sleep(60_000, undefined, { signal: asSignal(g) });
  g.abort(new Error("client disconnected"));
  await t.rejects(slept, { name: "AbortError" });
  await t.rejects(sleep(1, undefined, { signal: asSignal(g) }), { name: "AbortError" }, "an aborted one rejects at once");
  const quiet = new GoneSignal();
  t.equal(await sleep(1, "done", { signal: asSignal(quiet) }), "done");
  t.equal(Reflect.get(quiet, "entries")?.length ?? 0, 0, "the sleep took its listener back");
});

t.test("an undici request in flight is cancelled by it", async (t) => {
  let answered = 0;
  const server = http.createServer((req, res) => {
    if (req.url === "/slow") return; // never answers
    answered++;
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  t.teardown(async () => {
    await pool.destroy();
    server.closeAllConnections();
    server.close();
  });
  const fine = new GoneSignal();
  const ok = await pool.request({ path: "/", method: "GET", signal: asSignal(fine) });
  t.equal(await ok.body.text(), "ok");
  await new Promise((r) => setImmediate(r)); // undici removes it on the body's 'close'
  t.equal(Reflect.get(fine, "entries")?.length ?? 0, 0, "undici removed its listener when the answer was read");
  const g = new GoneSignal();
  const pending = pool.request({ path: "/slow", method: "GET", signal: asSignal(g) });
  setTimeout(() => g.abort(new Error("client disconnected")), 50);
  await t.rejects(pending, /client disconnected|aborted/i);
  t.equal(answered, 1);
});
