// The task runner against real SQLite storage: queues and their limits,
// progress and watchers, cancel, the timeout sweep, and recovery after a
// process died in the middle of running tasks.
import t from "tap";
import { TaskRunner, type RunnerOptions } from "../../../src/core/tasks/runner.js";
import { watch } from "../../../src/core/tasks/events.js";
import { QueueFullError, TaskFailure, isTerminal, type StoredTask, type TaskHandler } from "../../../src/core/tasks/types.js";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import type { Storage } from "../../../src/storage/types.js";
import { tempDir } from "../../helpers/app.js";

interface Payload {
  n: number;
  result?: string;
}

/** A handler whose executions the test finishes by hand. */
function manualHandler(opts: { resume?: (t: StoredTask<Payload>) => true | string } = {}) {
  const pending = new Map<string, { resolve: (p: Payload) => void; reject: (e: unknown) => void; ctx: Parameters<TaskHandler<Payload>["execute"]>[1] }>();
  const started: string[] = [];
  let onStart: (() => void) | undefined;
  const handler: TaskHandler<Payload> = {
    kind: "test",
    execute: (task, ctx) =>
      new Promise<Payload>((resolve, reject) => {
        started.push(task.id);
        pending.set(task.id, { resolve, reject, ctx });
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
        onStart?.();
      }),
    ...(opts.resume ? { resume: opts.resume } : {}),
    callbackBody: (task) => JSON.stringify({ id: task.id, status: task.run.status, progress: task.run.progress }),
  };
  const waitStarted = async (n: number) => {
    while (started.length < n) await new Promise<void>((r) => (onStart = r));
  };
  return { handler, pending, started, waitStarted };
}

function makeRunner(storage: Storage, extra: Partial<RunnerOptions> = {}): TaskRunner {
  return new TaskRunner({
    storage,
    now: Date.now,
    timeoutMs: 60_000,
    sweepIntervalMs: 0,
    callbacks: { secret: "", allowPrivate: true, timeoutMs: 1000, maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50, pollMs: 20, concurrency: 4 },
    ...extra,
  });
}

const until = async (cond: () => Promise<boolean> | boolean, what: string) => {
  for (let i = 0; i < 500; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};

t.test("a queue with concurrency 1 and room for 1: start, wait, full", async (t) => {
  const storage = openSqliteStorage(tempDir());
  const runner = makeRunner(storage);
  const m = manualHandler();
  runner.register(m.handler);
  runner.defineQueue("q", { concurrency: 1, queueSize: 1 });
  await runner.start();
  t.teardown(async () => {
    await runner.stop();
    await storage.close();
  });
  const a = await runner.create<Payload>({ id: "a", kind: "test", status: "NOT_START", queue: "q", notifyHook: "", payload: { n: 1 } });
  t.equal(a.position, 0, "a starts at once");
  const b = await runner.create<Payload>({ id: "b", kind: "test", status: "NOT_START", queue: "q", notifyHook: "", payload: { n: 2 } });
  t.equal(b.position, 1, "b waits first in line");
  await t.rejects(runner.create<Payload>({ id: "c", kind: "test", status: "NOT_START", queue: "q", notifyHook: "", payload: { n: 3 } }), QueueFullError);
  t.equal(await runner.get("c"), undefined, "a refused task is not stored");
  t.same(runner.load("q"), { concurrency: 1, queueSize: 1, running: 1, queued: 1 });

  await m.waitStarted(1);
  t.equal((await runner.get<Payload>("a"))!.run.status, "SUBMITTED");
  await m.pending.get("a")!.ctx.progress(50);
  t.equal((await runner.get<Payload>("a"))!.run.status, "IN_PROGRESS");
  m.pending.get("a")!.resolve({ n: 1, result: "done-a" });
  await m.waitStarted(2);
  const doneA = (await runner.get<Payload>("a"))!;
  t.equal(doneA.run.status, "SUCCESS");
  t.equal(doneA.run.progress, 100);
  t.equal(doneA.payload.result, "done-a");
  t.equal(m.started[1], "b", "b starts when a finishes");
  m.pending.get("b")!.reject(new TaskFailure("engine says no"));
  await until(async () => (await runner.get<Payload>("b"))!.run.status === "FAILURE", "b fails");
  t.equal((await runner.get<Payload>("b"))!.run.failReason, "engine says no");
});

t.test("watchers see every committed change in order, ending at the terminal one", async (t) => {
  const storage = openSqliteStorage(tempDir());
  const runner = makeRunner(storage);
  const m = manualHandler();
  runner.register(m.handler);
  runner.defineQueue("q", { concurrency: 2, queueSize: 0 });
  await runner.start();
  t.teardown(async () => {
    await runner.stop();
    await storage.close();
  });
  await runner.create<Payload>({ id: "w", kind: "test", status: "NOT_START", queue: "q", notifyHook: "", payload: { n: 1 } });
  await m.waitStarted(1);
  const seen: string[] = [];
  const ac = new AbortController();
  const done = (async () => {
    for await (const s of watch<Payload>(
      runner.events,
      "w",
      () => runner.get<Payload>("w"),
      (x) => isTerminal(x.run.status),
      ac.signal,
    ))
      seen.push(`${s.run.status}:${s.run.progress}`);
  })();
  await until(() => seen.length === 1, "first state");
  const ctx = m.pending.get("w")!.ctx;
  await ctx.progress(30);
  await ctx.progress(20);
  await ctx.progress(70);
  m.pending.get("w")!.resolve({ n: 1 });
  await done;
  t.same(seen, ["SUBMITTED:0", "IN_PROGRESS:30", "IN_PROGRESS:70", "SUCCESS:100"]);
  t.equal(runner.events.watchers("w"), 0, "the watcher unsubscribed");
});

t.test("cancel: a waiting task leaves the line, a running one is aborted; finished tasks cannot be cancelled", async (t) => {
  const storage = openSqliteStorage(tempDir());
  const runner = makeRunner(storage);
  const m = manualHandler();
  runner.register(m.handler);
  runner.defineQueue("q", { concurrency: 1, queueSize: 5 });
  await runner.start();
  t.teardown(async () => {
    await runner.stop();
    await storage.close();
  });
  await runner.create<Payload>({ id: "r", kind: "test", status: "NOT_START", queue: "q", notifyHook: "", payload: { n: 1 } });
  await runner.create<Payload>({ id: "w1", kind: "test", status: "NOT_START", queue: "q", notifyHook: "", payload: { n: 2 } });
  await runner.create<Payload>({ id: "w2", kind: "test", status: "NOT_START", queue: "q", notifyHook: "", payload: { n: 3 } });
  await m.waitStarted(1);
  const c1 = await runner.cancel<Payload>("w1", "changed my mind");
  t.equal(c1.run.status, "CANCEL");
  t.equal(c1.run.failReason, "changed my mind");
  t.equal(await runner.position("w2"), 1, "w2 moved up");
  await runner.cancel("r");
  await m.waitStarted(2);
  t.equal(m.started[1], "w2", "the slot went to w2, not the cancelled w1");
  t.equal((await runner.get<Payload>("r"))!.run.status, "CANCEL", "the aborted execution did not overwrite CANCEL");
  m.pending.get("w2")!.resolve({ n: 3 });
  await until(async () => (await runner.get<Payload>("w2"))!.run.status === "SUCCESS", "w2 done");
  await t.rejects(runner.cancel("w2"), { name: "InvalidTransitionError" });
});

t.test("the sweep fails tasks past the timeout: running, queued and modal", async (t) => {
  const storage = openSqliteStorage(tempDir());
  let now = 1_000_000;
  const runner = makeRunner(storage, { now: () => now, timeoutMs: 5_000 });
  const m = manualHandler();
  runner.register(m.handler);
  runner.defineQueue("q", { concurrency: 1, queueSize: 5 });
  await runner.start();
  t.teardown(async () => {
    await runner.stop();
    await storage.close();
  });
  await runner.create<Payload>({ id: "run", kind: "test", status: "NOT_START", queue: "q", notifyHook: "", payload: { n: 1 } });
  await runner.create<Payload>({ id: "wait", kind: "test", status: "NOT_START", queue: "q", notifyHook: "", payload: { n: 2 } });
  await runner.create<Payload>({ id: "modal", kind: "test", status: "MODAL", queue: "q", notifyHook: "", payload: { n: 3 } });
  await m.waitStarted(1);
  now += 4_000;
  t.equal(await runner.sweep(), 0, "nothing is late yet");
  now += 2_000;
  t.equal(await runner.sweep(), 3);
  for (const id of ["run", "wait", "modal"]) {
    const task = (await runner.get<Payload>(id))!;
    t.equal(task.run.status, "FAILURE", id);
    t.match(task.run.failReason, /^timed out/, id);
  }
  t.match((await runner.get<Payload>("modal"))!.run.failReason, /modal/);
});

t.test("after a crash, running tasks resume or fail, queued ones keep their order, lost queues fail", async (t) => {
  const dir = tempDir();
  const s1 = openSqliteStorage(dir);
  const r1 = makeRunner(s1, { instanceId: "node-1" });
  const m1 = manualHandler();
  r1.register(m1.handler);
  r1.defineQueue("q", { concurrency: 2, queueSize: 5 });
  r1.defineQueue("gone", { concurrency: 1, queueSize: 1 });
  await r1.start();
  for (const [id, queue] of [
    ["resume-me", "q"],
    ["fail-me", "q"],
    ["wait-1", "q"],
    ["wait-2", "q"],
    ["lost", "gone"],
  ] as const) {
    await r1.create<Payload>({ id, kind: "test", status: "NOT_START", queue, notifyHook: "", payload: { n: 0 } });
  }
  await m1.waitStarted(3);
  await m1.pending.get("resume-me")!.ctx.progress(40);
  // The process dies here: nothing more is written (its leases stay), the storage is simply reopened
  // by the same instance restarting, which takes its own leases back at once.
  await r1.stop({ keepLeases: true });
  const s2 = openSqliteStorage(dir);
  const r2 = makeRunner(s2, { instanceId: "node-1" });
  const m2 = manualHandler({ resume: (task) => (task.id === "fail-me" ? "failed: interrupted by a restart" : true) });
  r2.register(m2.handler);
  r2.defineQueue("q", { concurrency: 2, queueSize: 5 });
  await r2.start();
  t.teardown(async () => {
    await r2.stop();
    await s2.close();
    await s1.close();
  });
  await m2.waitStarted(2);
  t.same(m2.started, ["resume-me", "wait-1"], "the resumed task and the first waiting one run");
  const resumed = (await r2.get<Payload>("resume-me"))!;
  t.equal(resumed.run.status, "IN_PROGRESS");
  t.equal(resumed.run.progress, 40, "progress kept");
  t.equal(resumed.run.runs, 2, "a second run");
  t.equal((await r2.get<Payload>("fail-me"))!.run.failReason, "failed: interrupted by a restart");
  t.match((await r2.get<Payload>("lost"))!.run.failReason, /queue gone no longer exists/);
  t.equal(await r2.position("wait-2"), 1);
  m2.pending.get("resume-me")!.resolve({ n: 0 });
  await m2.waitStarted(3);
  t.equal(m2.started[2], "wait-2");
});
