import { randomUUID } from "node:crypto";
import t from "tap";
import { TaskEvents, watch, type TaskEventBus } from "../../../src/core/tasks/events.js";
import { redisEventBus } from "../../../src/core/tasks/redis-bus.js";
import type { StoredTask } from "../../../src/core/tasks/types.js";

const REDIS = "redis://127.0.0.1:6379";

function task(id: string, version: number, status: StoredTask["run"]["status"] = "IN_PROGRESS"): StoredTask {
  return { id, kind: "k", run: { status, progress: version * 10, submitTime: 1, queue: "q", notifyHook: "", seq: 0, runs: 1 }, payload: {}, version, createTime: 1, updateTime: version };
}

function until<T>(fn: () => T | undefined, ms = 3000): Promise<T> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      const v = fn();
      if (v !== undefined) return resolve(v);
      if (Date.now() - start > ms) return reject(new Error("timed out"));
      setTimeout(tick, 10);
    };
    tick();
  });
}

t.test("local listeners: per task and for every change, a throwing one does not stop the others", async (t) => {
  const ev = new TaskEvents();
  const seen: string[] = [];
  const off = ev.subscribe("a", () => {
    throw new Error("bad watcher");
  });
  ev.subscribe("a", (x, origin) => seen.push(`a:${x.version}:${origin}`));
  ev.subscribeAll((x) => seen.push(`all:${x.id}`));
  ev.emit(task("a", 2));
  ev.emit(task("b", 1));
  t.same(seen, ["a:2:local", "all:a", "all:b"]);
  t.equal(ev.watchers("a"), 2);
  off();
  t.equal(ev.watchers("a"), 1);
  t.equal(ev.shared, false);
});

t.test("the Redis bus carries changes to other instances, never back to their origin", async (t) => {
  const prefix = `og-test-${randomUUID()}:`;
  const busA = redisEventBus({ url: REDIS, prefix });
  const busB = redisEventBus({ url: REDIS, prefix });
  const other = redisEventBus({ url: REDIS, prefix: `${prefix}other:` });
  await Promise.all([busA.ready, busB.ready, other.ready]);
  t.teardown(() => Promise.all([busA.close(), busB.close(), other.close()]));
  const a = new TaskEvents();
  const b = new TaskEvents();
  const c = new TaskEvents();
  a.useBus(busA);
  b.useBus(busB);
  c.useBus(other);
  t.equal(a.shared, true);
  const atA: string[] = [];
  const atB: string[] = [];
  const atC: string[] = [];
  a.subscribeAll((x, o) => atA.push(`${x.id}@${x.version}:${o}`));
  b.subscribe("t1", (x, o) => atB.push(`${x.id}@${x.version}:${o}:${x.run.status}`));
  c.subscribeAll((x) => atC.push(x.id));
  a.emit(task("t1", 2));
  a.emit(task("t1", 3, "SUCCESS"));
  b.emit(task("t2", 1));
  await until(() => (atB.length === 2 && atA.length === 3 ? true : undefined));
  t.same(atB, ["t1@2:remote:IN_PROGRESS", "t1@3:remote:SUCCESS"]);
  t.same(atA, ["t1@2:local", "t1@3:local", "t2@1:remote"], "A sees its own changes once, locally");
  await new Promise((r) => setTimeout(r, 100));
  t.same(atC, [], "another key prefix is another cluster");
});

t.test("watch re-reads storage when changes may come from elsewhere, and yields each version once", async (t) => {
  const ev = new TaskEvents();
  const bus: TaskEventBus = { publish() {}, onRemote() {}, async close() {} };
  ev.useBus(bus);
  let stored = task("w", 1);
  const ac = new AbortController();
  const got: number[] = [];
  const it = watch(
    ev,
    "w",
    async () => stored,
    (x) => x.run.status === "SUCCESS",
    ac.signal,
    30,
  );
  const done = (async () => {
    for await (const x of it) got.push(x.version);
  })();
  await until(() => (got.length === 1 ? true : undefined));
  stored = task("w", 2); // changed elsewhere, message lost
  await until(() => (got.length === 2 ? true : undefined));
  ev.emit(task("w", 2)); // the late message is a duplicate
  stored = task("w", 4, "SUCCESS");
  ev.emit(task("w", 3));
  await done;
  t.same(got, [1, 2, 3, 4], "each version once, in order, ending at the terminal one");
});

t.test("without a bus, watch waits for events only and stops on abort", async (t) => {
  const ev = new TaskEvents();
  let loads = 0;
  const ac = new AbortController();
  const got: number[] = [];
  const done = (async () => {
    for await (const x of watch(
      ev,
      "x",
      async () => (loads++, task("x", 1)),
      () => false,
      ac.signal,
      5,
    ))
      got.push(x.version);
  })();
  await new Promise((r) => setTimeout(r, 60));
  ac.abort();
  await done;
  t.equal(loads, 1, "no polling of storage in a single instance");
  t.same(got, [1]);
});
