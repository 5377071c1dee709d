// Two task runners (two gateway instances) sharing one database, on SQLite (two
// connections to one file) and PostgreSQL (two pools on one schema): a queue's
// concurrency and room hold across them, a runner that stops renewing loses
// its tasks to the other after the lease and they finish exactly once, a
// write after a lost lease is fenced off, a cancel on one instance stops the
// execution on the other, and callbacks from both outbox workers arrive in
// order per task with stable ids.
import t, { type Test } from "tap";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { TaskRunner, type RunnerOptions } from "../../../src/core/tasks/runner.js";
import { LeaseLostError, QueueFullError, type StoredTask, type TaskHandler } from "../../../src/core/tasks/types.js";
import { webhookSender } from "../../../src/core/tasks/webhook-sender.js";
import { openPostgresStorage } from "../../../src/storage/postgres/pg-storage.js";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import type { Storage } from "../../../src/storage/types.js";
import { tempDir } from "../../helpers/app.js";
import { pgSchema } from "../../helpers/pg.js";

/** Two handles on one fresh database; `beforeClose` runs (e.g. stops runners) before they close. */
type Open = (t: Test) => Promise<{ a: Storage; b: Storage; beforeClose: (fn: () => Promise<void>) => void }>;

interface Payload {
  steps: number;
  stepMs: number;
  done?: string;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
const until = async (cond: () => Promise<boolean> | boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
};

/** Records what every execution does, across both runners. */
class Probe {
  inFlight = 0;
  peak = 0;
  readonly entries = new Map<string, string[]>();
  readonly aborts = new Map<string, unknown>();
  readonly finished = new Map<string, number>();

  handler(instance: string): TaskHandler<Payload> {
    return {
      kind: "job",
      execute: async (task, ctx) => {
        this.entries.set(task.id, [...(this.entries.get(task.id) ?? []), instance]);
        this.peak = Math.max(this.peak, ++this.inFlight);
        try {
          const steps = task.payload.steps;
          // A resumed task goes on from its stored progress.
          for (let i = Math.floor((task.run.progress * (steps + 1)) / 100); i < steps; i++) {
            await sleep(task.payload.stepMs, ctx.signal);
            await ctx.progress(Math.round(((i + 1) * 100) / (steps + 1)));
          }
          return { ...task.payload, done: instance };
        } catch (err) {
          if (ctx.signal.aborted) this.aborts.set(task.id, ctx.signal.reason);
          throw err;
        } finally {
          this.inFlight--;
        }
      },
      resume: () => true,
      callbackBody: (task) => JSON.stringify({ id: task.id, status: task.run.status, progress: task.run.progress }),
    };
  }

  onFinished = (task: StoredTask) => this.finished.set(task.id, (this.finished.get(task.id) ?? 0) + 1);
}

function runner(storage: Storage, probe: Probe, instanceId: string, extra: Partial<RunnerOptions> = {}): TaskRunner {
  const r = new TaskRunner({
    storage,
    now: Date.now,
    timeoutMs: 60_000,
    sweepIntervalMs: 0,
    callbacks: { secret: "", allowPrivate: true, timeoutMs: 2000, maxAttempts: 5, baseDelayMs: 20, maxDelayMs: 100, pollMs: 30, concurrency: 4 },
    instanceId,
    // Long enough that a loaded machine does not lose leases where no take-over is meant.
    leaseMs: 2000,
    claimPollMs: 30,
    onFinished: probe.onFinished,
    ...extra,
  });
  r.register(probe.handler(instanceId));
  return r;
}

const job = (id: string, steps = 3, stepMs = 20, notifyHook = "") => ({ id, kind: "job", status: "NOT_START" as const, queue: "q", notifyHook, payload: { steps, stepMs } });

async function pair(t: Test, open: Open, limits: { concurrency: number; queueSize: number }, extra: Partial<RunnerOptions> = {}, start = true) {
  const { a: sa, b: sb, beforeClose } = await open(t);
  const probe = new Probe();
  const a = runner(sa, probe, "A", extra);
  const b = runner(sb, probe, "B", extra);
  for (const r of [a, b]) r.defineQueue("q", limits);
  beforeClose(async () => {
    await a.stop();
    await b.stop();
  });
  if (start) {
    await a.start();
    await b.start();
  }
  return { a, b, sa, sb, probe };
}

function suite(name: string, open: Open): void {
  t.test(`${name}: the concurrency holds across two instances and every task finishes once`, async (t) => {
    const { a, b, sa, probe } = await pair(t, open, { concurrency: 3, queueSize: 100 });
    let storagePeak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await sa.tasks.listByStatus("job", ["SUBMITTED", "IN_PROGRESS"], 1000);
        storagePeak = Math.max(storagePeak, rows.length);
        await sleep(5);
      }
    })();
    const ids = Array.from({ length: 24 }, (_, i) => `j${String(i).padStart(2, "0")}`);
    const make = (i: number) => (i % 2 ? b : a).create(job(ids[i]!, 3, 5 + (i % 4) * 10));
    const first = [await make(0), await make(1)];
    t.same(
      first.map((x) => x.position),
      [0, 0],
      "the first two start at once",
    );
    await Promise.all(ids.slice(2).map((_, i) => make(i + 2)));
    await until(async () => (await a.getMany(ids)).every((x) => x.run.status === "SUCCESS"), "all done");
    sampling = false;
    await sampler;
    t.ok(probe.peak <= 3, `at most 3 executions at once (peak ${probe.peak})`);
    t.ok(probe.peak >= 2, "and more than one");
    t.ok(storagePeak <= 3, `at most 3 running in storage at once (peak ${storagePeak})`);
    const by = [...probe.entries.values()].flat();
    t.comment(`ran on A: ${by.filter((x) => x === "A").length}, on B: ${by.filter((x) => x === "B").length}`);
    t.same(
      ids.filter((id) => probe.entries.get(id)?.length !== 1 || probe.finished.get(id) !== 1),
      [],
      "each task ran once and finished once",
    );
  });

  t.test(`${name}: admission holds across instances (concurrency + queueSize, the rest refused)`, async (t) => {
    const { a, b } = await pair(t, open, { concurrency: 1, queueSize: 2 });
    const tries = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a).create(job(`x${i}`, 20, 50))));
    const ok = tries.filter((r) => r.status === "fulfilled") as PromiseFulfilledResult<{ position: number }>[];
    t.equal(ok.length, 3, "three accepted");
    t.ok(
      tries.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason instanceof QueueFullError),
      "the others are QueueFullError",
    );
    t.same(ok.map((r) => r.value.position).sort(), [0, 1, 2], "one runs, two wait in line");
    for (const r of tries) if (r.status === "fulfilled") await a.cancel((r.value as { task: { id: string } }).task.id).catch(() => undefined);
  });

  t.test(`${name}: an instance that stops renewing loses its tasks after the lease; the other finishes them once`, async (t) => {
    const { a: sa, b: sb, beforeClose } = await open(t);
    const probe = new Probe();
    // A's renewals fail from some point on (as when it is cut off from the database or frozen).
    let cut = false;
    const tasksA = Object.create(sa.tasks) as Storage["tasks"];
    const unreachable = () => Promise.reject(new Error("database unreachable"));
    tasksA.renewLeases = (...args) => (cut ? unreachable() : sa.tasks.renewLeases(...args));
    tasksA.claim = (...args) => (cut ? unreachable() : sa.tasks.claim(...args));
    const a = runner({ ...sa, tasks: tasksA } as Storage, probe, "A", { leaseMs: 600 });
    const b = runner(sb, probe, "B", { leaseMs: 600 });
    a.defineQueue("q", { concurrency: 2, queueSize: 10 });
    b.defineQueue("q", { concurrency: 2, queueSize: 10 });
    beforeClose(async () => {
      await a.stop();
      await b.stop();
    });
    await a.start();
    await a.create(job("k1", 30, 40));
    await a.create(job("k2", 30, 40));
    await until(() => probe.entries.get("k2") !== undefined, "A runs both");
    await b.start();
    await sleep(300);
    t.same([probe.entries.get("k1"), probe.entries.get("k2")], [["A"], ["A"]], "B waits while A's leases are renewed");
    cut = true;
    await until(() => probe.entries.get("k1")?.length === 2 && probe.entries.get("k2")?.length === 2, "B takes both over");
    // B may claim before A's next check; until then A's writes are refused.
    await until(() => probe.aborts.has("k1") && probe.aborts.has("k2"), "A stops both");
    t.type(probe.aborts.get("k1"), LeaseLostError, `A stopped its execution when it could not renew in time (${String(probe.aborts.get("k1"))})`);
    await until(async () => (await b.getMany(["k1", "k2"])).every((x) => x.run.status === "SUCCESS"), "both done");
    const done = await b.getMany<Payload>(["k1", "k2"]);
    t.same(
      done.map((x) => [x.payload.done, x.run.runs, probe.finished.get(x.id)]),
      [
        ["B", 2, 1],
        ["B", 2, 1],
      ],
      "finished by B on a second run, onFinished once",
    );
  });

  t.test(`${name}: a write after the lease was lost is fenced off`, async (t) => {
    const { a: sa, b: sb, beforeClose } = await open(t);
    const probe = new Probe();
    let fenced: unknown;
    let release: (() => void) | undefined;
    // A renews and polls rarely: only the check in its write can stop it.
    const a = runner(sa, probe, "A", { leaseMs: 60_000, claimPollMs: 60_000 });
    a.register<Payload>({
      kind: "job",
      execute: async (task, ctx) => {
        await new Promise<void>((r) => (release = r));
        try {
          await ctx.progress(50);
        } catch (err) {
          fenced = err;
          throw err;
        }
        return task.payload;
      },
      resume: () => true,
    });
    const b = runner(sb, probe, "B");
    for (const r of [a, b]) r.defineQueue("q", { concurrency: 1, queueSize: 1 });
    beforeClose(async () => {
      await a.stop();
      await b.stop();
    });
    await a.start();
    await a.create(job("f", 2, 10));
    await until(() => release !== undefined, "A runs f");
    // A's lease ends behind its back (as if it expired unnoticed); B takes the task over.
    await sa.tasks.releaseLeases("A", ["f"]);
    await b.start();
    await until(() => probe.entries.get("f")?.[0] === "B", "B runs f");
    const before = (await b.get("f"))!;
    release!();
    await until(async () => (await b.get("f"))!.run.status === "SUCCESS", "B finishes f");
    const after = (await b.get<Payload>("f"))!;
    await until(() => fenced !== undefined, "A's write is refused");
    t.type(fenced, LeaseLostError, "A's progress write was refused: the task is leased to B");
    t.equal(after.payload.done, "B", "B's result stands");
    t.equal(before.run.runs, 2, "B's run was the second");
    t.equal(probe.finished.get("f"), 1, "finished once");
  });

  t.test(`${name}: a cancel on one instance stops the execution on the other`, async (t) => {
    const { a, b, probe } = await pair(t, open, { concurrency: 1, queueSize: 5 }, {}, false);
    await b.start();
    // One long step without writes (like waiting on an upstream): only B's lease renewal can tell it about the cancel.
    await b.create(job("c1", 1, 20_000));
    await b.create(job("c2", 2, 10));
    await until(() => probe.entries.get("c1") !== undefined, "B runs c1");
    t.same(probe.entries.get("c1"), ["B"]);
    await a.start();
    const cancelled = await a.cancel("c1", "cancelled on A");
    t.equal(cancelled.run.status, "CANCEL");
    await until(() => probe.aborts.has("c1"), "B's execution stops", 3000);
    t.type(probe.aborts.get("c1"), LeaseLostError, "B's renewal found the task finished");
    await until(async () => (await a.get("c2"))!.run.status === "SUCCESS", "the freed slot goes to c2");
    const c1 = (await a.get("c1"))!;
    t.match(c1.run, { status: "CANCEL", failReason: "cancelled on A" }, "B wrote nothing over the cancel");
    t.equal(probe.finished.get("c1"), 1);
  });

  t.test(`${name}: callbacks from two outbox workers arrive in order per task, with stable ids`, async (t) => {
    const got: { id: string; task: string; status: string; progress: number }[] = [];
    const inFlight = new Set<string>();
    const seen = new Map<string, number>();
    const retried = new Set<string>();
    let concurrentDuplicates = 0;
    const rx = createServer((req, res) => {
      let body = "";
      const wid = String(req.headers["webhook-id"]);
      if (inFlight.has(wid)) concurrentDuplicates++;
      inFlight.add(wid);
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const b = JSON.parse(body) as { id: string; status: string; progress: number };
        // The first attempt of every third message fails, to force retries.
        if (!seen.has(wid)) seen.set(wid, seen.size);
        const fail = seen.get(wid)! % 3 === 0 && !retried.has(wid);
        if (fail) retried.add(wid);
        setTimeout(() => {
          inFlight.delete(wid);
          if (!fail) got.push({ id: wid, task: b.id, status: b.status, progress: b.progress });
          res.statusCode = fail ? 503 : 204;
          res.end();
        }, 5);
      });
    });
    await new Promise<void>((r) => rx.listen(0, "127.0.0.1", r));
    t.teardown(() => new Promise<void>((r) => rx.close(() => r())));
    const hook = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/cb`;
    const sent = { A: 0, B: 0 };
    const counting = (who: "A" | "B") => {
      const real = webhookSender({ secret: "", allowPrivate: true, timeoutMs: 2000 });
      return { send: (m: { id: string; url: string; body: string }, now: number) => (sent[who]++, real.send(m, now)), close: () => real.close() };
    };
    const { a: sa, b: sb, beforeClose } = await open(t);
    const probe = new Probe();
    const a = runner(sa, probe, "A", { sender: counting("A") });
    const b = runner(sb, probe, "B", { sender: counting("B") });
    for (const r of [a, b]) r.defineQueue("q", { concurrency: 4, queueSize: 50 });
    beforeClose(async () => {
      await a.stop();
      await b.stop();
    });
    await a.start();
    await b.start();
    const ids = Array.from({ length: 12 }, (_, i) => `cb${i}`);
    await Promise.all(ids.map((id, i) => (i % 2 ? b : a).create(job(id, 4, 10, hook))));
    await until(async () => (await a.getMany(ids)).every((x) => x.run.status === "SUCCESS"), "all done");
    const stored = (await Promise.all(ids.map((id) => sa.outbox.listForTask(id)))).flat();
    await until(async () => (await Promise.all(ids.map((id) => sa.outbox.listForTask(id)))).flat().every((m) => m.status === "delivered"), "every callback delivered");
    const ordered = (xs: typeof got) => xs.every((x, k) => k === 0 || x.progress >= xs[k - 1]!.progress);
    t.same(
      ids.filter((id) => !ordered(got.filter((g) => g.task === id))),
      [],
      "each task's callbacks arrived in order",
    );
    t.same(new Set(got.map((g) => g.id)), new Set(stored.map((m) => m.id)), "every stored message arrived, under its own webhook-id");
    t.same(
      ids.map((id) => got.filter((g) => g.task === id).at(-1)?.status),
      ids.map(() => "SUCCESS"),
      "the last callback of each is its terminal one",
    );
    t.equal(concurrentDuplicates, 0, "no message was being sent twice at once");
    t.ok(sent.A > 0 && sent.B > 0, `both workers delivered (A ${sent.A}, B ${sent.B})`);
  });
}

/** Registers (first, so it runs first) the teardown that runs the hooks, then closes the handles. */
function closing(t: Test, handles: Storage[]) {
  const hooks: Array<() => Promise<void>> = [];
  t.teardown(async () => {
    for (const h of hooks) await h();
    await Promise.all(handles.map((s) => s.close()));
  });
  return (fn: () => Promise<void>) => void hooks.push(fn);
}

suite("sqlite", async (t) => {
  const dir = tempDir();
  const handles = [openSqliteStorage(dir), openSqliteStorage(dir)];
  return { a: handles[0]!, b: handles[1]!, beforeClose: closing(t, handles) };
});

suite("postgres", async (t) => {
  const handles: Storage[] = [];
  const beforeClose = closing(t, handles);
  const { url, schema } = await pgSchema(t);
  for (let i = 0; i < 2; i++) handles.push(await openPostgresStorage({ url, schema, poolSize: 6 }));
  return { a: handles[0]!, b: handles[1]!, beforeClose };
});
