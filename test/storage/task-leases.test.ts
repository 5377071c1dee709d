// Task scheduling in storage, on SQLite and PostgreSQL, each through two
// handles on one database (two SQLite connections to one file, two pg pools
// on one schema), as two gateway instances see it: claims and their limits,
// take-over after an expired lease, fencing by version, renewal and release,
// admission with room, the waiting line, and callback claims.
import t, { type Test } from "tap";
import { openPostgresStorage } from "../../src/storage/postgres/pg-storage.js";
import { openSqliteStorage } from "../../src/storage/sqlite/sqlite-storage.js";
import { NoRoomError, type OutboxMessage, type Storage, type TaskRecord } from "../../src/storage/types.js";
import { tempDir } from "../helpers/app.js";
import { pgSchema } from "../helpers/pg.js";

type Open = (t: Test) => Promise<{ a: Storage; b: Storage }>;

const T0 = 1_000_000;
const rec = (id: string, queue: string, status = "NOT_START", time = T0): TaskRecord => ({ id, kind: "test", status, data: { id }, createTime: time, updateTime: time, version: 1, queue });
const msg = (id: string, taskId: string, seq: number, time = T0): OutboxMessage => ({
  id,
  taskId,
  seq,
  url: "http://x/cb",
  body: "{}",
  status: "pending",
  attempts: 0,
  nextAttemptTime: time,
  createTime: time,
  updateTime: time,
});
const claimOpts = (owner: string, now: number, concurrency: number) => ({ owner, now, leaseMs: 1000, concurrency });

function suite(name: string, open: Open): void {
  t.test(`${name}: claims respect the concurrency, in line order, once`, async (t) => {
    const { a, b } = await open(t);
    for (const id of ["w1", "w2", "w3"]) await a.outbox.insertTask(rec(id, "q"), []);
    await a.outbox.insertTask(rec("other", "q2"), []);
    await a.outbox.insertTask(rec("modal", "q", "MODAL"), []);
    const first = await a.tasks.claim("q", claimOpts("A", T0, 2));
    t.same(
      first.claimed.map((r) => [r.id, r.leaseOwner, r.leaseUntil, r.version]),
      [
        ["w1", "A", T0 + 1000, 2],
        ["w2", "A", T0 + 1000, 2],
      ],
      "the first two of the line, leased, version incremented",
    );
    t.match(first, { running: 2, waiting: 1 });
    t.equal(await a.tasks.queuePosition("w3", T0), 1, "w3 is next");
    t.equal(await a.tasks.queuePosition("w1", T0), 0, "a claimed task is not waiting");
    const second = await b.tasks.claim("q", claimOpts("B", T0 + 10, 2));
    t.same(second.claimed, [], "no free slot for B");
    t.match(second, { running: 2, waiting: 1 });
    // A finishes w1 with its last write (ending the lease): the slot frees, B takes w3.
    const w1 = (await a.tasks.get("w1"))!;
    t.ok(await a.outbox.updateTask("w1", w1.version, { status: "SUCCESS", data: { done: true }, releaseLease: true }, []));
    t.match(await a.tasks.get("w1"), { leaseOwner: undefined, leaseUntil: 0 });
    t.same(
      (await b.tasks.claim("q", claimOpts("B", T0 + 20, 2))).claimed.map((r) => r.id),
      ["w3"],
    );
    t.same(
      (await b.tasks.claim("q2", claimOpts("B", T0 + 20, 5))).claimed.map((r) => r.id),
      ["other"],
      "queues are separate",
    );
  });

  t.test(`${name}: an expired lease is taken over (running tasks first) and fences the former owner`, async (t) => {
    const { a, b } = await open(t);
    await a.outbox.insertTask(rec("run", "q"), []);
    await a.outbox.insertTask(rec("wait", "q"), []);
    const [claimed] = (await a.tasks.claim("q", claimOpts("A", T0, 1))).claimed;
    const started = (await a.outbox.updateTask("run", claimed!.version, { status: "IN_PROGRESS", data: { p: 10 } }, []))!;
    t.same(await a.tasks.renewLeases("A", ["run"], T0 + 500, 1000), ["run"], "renewed while valid");
    t.equal((await a.tasks.get("run"))!.leaseUntil, T0 + 1500);
    t.same((await b.tasks.claim("q", claimOpts("B", T0 + 1400, 1))).claimed, [], "not before the lease ends");
    const took = await b.tasks.claim("q", claimOpts("B", T0 + 1500, 1));
    t.same(
      took.claimed.map((r) => [r.id, r.status, r.leaseOwner]),
      [["run", "IN_PROGRESS", "B"]],
      "the running task is taken over before the waiting one",
    );
    t.equal(took.claimed[0]!.version, started.version + 1, "the take-over increments the version");
    t.equal(await a.outbox.updateTask("run", started.version, { status: "SUCCESS", data: {} }, []), undefined, "A's stale write fails");
    t.same(await a.tasks.renewLeases("A", ["run"], T0 + 1600, 1000), [], "A cannot renew what B holds");
    t.equal(await a.tasks.releaseLeases("A", ["run"]), 0, "nor release it");
    t.equal((await a.tasks.get("run"))!.leaseOwner, "B");
    t.same(await b.tasks.renewLeases("B", ["run"], T0 + 3000, 1000), [], "an expired lease is not renewed: it is lost");
  });

  t.test(`${name}: renewal skips finished tasks; a finished task keeps its slot until its lease ends`, async (t) => {
    const { a, b } = await open(t);
    await a.outbox.insertTask(rec("x", "q"), []);
    await a.outbox.insertTask(rec("y", "q"), []);
    const x = (await a.tasks.claim("q", claimOpts("A", T0, 1))).claimed[0]!;
    // Cancelled from another instance: the status changes, A's lease stays until A notices.
    await b.outbox.updateTask("x", x.version, { status: "CANCEL", data: {} }, []);
    t.same((await b.tasks.claim("q", claimOpts("B", T0 + 10, 1))).claimed, [], "the cancelled task still runs on A: its slot is held");
    t.same(await a.tasks.renewLeases("A", ["x"], T0 + 20, 1000), [], "A's renewal tells it the task is over");
    t.equal(await a.tasks.releaseLeases("A", ["x"]), 1);
    t.same(
      (await b.tasks.claim("q", claimOpts("B", T0 + 30, 1))).claimed.map((r) => r.id),
      ["y"],
    );
    t.equal(await b.tasks.releaseLeases("B"), 1, "release of all an owner's leases");
    t.equal(await b.tasks.releaseLeases("B", []), 0);
  });

  t.test(`${name}: admission with room is atomic; MODAL takes no room; confirm goes to the end of the line`, async (t) => {
    const { a, b } = await open(t);
    const room = { concurrency: 1, queueSize: 2, now: T0 };
    await a.outbox.insertTask(rec("m", "q", "MODAL"), []);
    const tries = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).outbox.insertTask(rec(`t${i}`, "q"), [], room)));
    t.equal(tries.filter((r) => r.status === "fulfilled").length, 3, "exactly concurrency + queueSize admitted across both handles");
    t.ok(
      tries.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason instanceof NoRoomError),
      "the others get NoRoomError",
    );
    const m = (await a.tasks.get("m"))!;
    await t.rejects(a.outbox.updateTask("m", m.version, { status: "NOT_START", data: {}, queue: "q" }, [], room), { name: "NoRoomError" });
    t.equal((await a.tasks.get("m"))!.status, "MODAL", "a refused confirm changes nothing");
    const ok = (await a.outbox.updateTask("m", m.version, { status: "NOT_START", data: {}, queue: "q2" }, [], room))!;
    t.match(ok, { status: "NOT_START", queue: "q2" });
    await a.outbox.insertTask(rec("n", "q2"), []);
    t.equal(await a.tasks.queuePosition("m", T0), 1);
    t.equal(await a.tasks.queuePosition("n", T0), 2);
    const admitted = tries.flatMap((r, i) => (r.status === "fulfilled" ? [`t${i}`] : []));
    const positions = await Promise.all(admitted.map((id) => a.tasks.queuePosition(id, T0)));
    t.same([...positions].sort(), [1, 2, 3], "admitted tasks hold distinct places");
  });

  t.test(`${name}: racing claims from two instances never exceed the concurrency`, async (t) => {
    const { a, b } = await open(t);
    for (let i = 0; i < 12; i++) await a.outbox.insertTask(rec(`r${String(i).padStart(2, "0")}`, "q"), []);
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).tasks.claim("q", claimOpts(i % 2 ? "A" : "B", T0, 3))));
    const ids = results.flatMap((r) => r.claimed.map((x) => x.id));
    t.equal(ids.length, 3, "three claimed in all");
    t.same([...ids].sort(), ["r00", "r01", "r02"], "the head of the line, each once");
  });

  t.test(`${name}: callbacks are claimed by one worker, in order per task, until settled or expired`, async (t) => {
    const { a, b } = await open(t);
    await a.outbox.insertTask(rec("t1", "q"), [msg("m1", "t1", 1), msg("m2", "t1", 2)]);
    await a.outbox.insertTask(rec("t2", "q"), [msg("n1", "t2", 1)]);
    const gotA = await a.outbox.claimDue("A", T0, 10, 5000);
    t.same(gotA.map((m) => m.id).sort(), ["m1", "n1"], "the first message of each task");
    t.same(await b.outbox.claimDue("B", T0 + 10, 10, 5000), [], "claimed messages are not handed to B");
    t.same((await a.outbox.claimDue("A", T0 + 10, 10, 5000)).map((m) => m.id).sort(), ["m1", "n1"], "its own claims count as free (a restart under the same name)");
    await b.outbox.settle("m1", { status: "delivered", attempts: 1, nextAttemptTime: T0, updateTime: T0 + 20, owner: "B" });
    t.equal((await a.outbox.listForTask("t1"))[0]!.status, "pending", "a settle by a worker without the claim is ignored");
    await a.outbox.settle("m1", { status: "delivered", attempts: 1, nextAttemptTime: T0, updateTime: T0 + 20, owner: "A" });
    t.same(
      (await b.outbox.claimDue("B", T0 + 30, 10, 5000)).map((m) => m.id),
      ["m2"],
      "the next of t1 goes once m1 is settled",
    );
    t.same(
      (await a.outbox.claimDue("A", T0 + 5011, 10, 5000)).map((m) => m.id),
      ["n1"],
      "n1's claim expired: claimed again (at least once)",
    );
    t.same(await a.outbox.claimDue("C", T0 + 5020, 10, 5000), [], "m2 is B's, n1 is A's: nothing for a third worker");
    const racing = await Promise.all([a.outbox.claimDue("A", T0 + 20_000, 10, 5000), b.outbox.claimDue("B", T0 + 20_000, 10, 5000)]);
    t.same(
      racing
        .flat()
        .map((m) => m.id)
        .sort(),
      ["m2", "n1"],
      "two workers at once: each message to one",
    );
  });
}

suite("sqlite", async (t) => {
  const dir = tempDir();
  const a = openSqliteStorage(dir);
  const b = openSqliteStorage(dir);
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  return { a, b };
});

suite("postgres", async (t) => {
  const handles: Storage[] = [];
  t.teardown(() => Promise.all(handles.map((h) => h.close())));
  const { url, schema } = await pgSchema(t);
  const a = await openPostgresStorage({ url, schema, poolSize: 4 });
  handles.push(a);
  const b = await openPostgresStorage({ url, schema, poolSize: 4 });
  handles.push(b);
  return { a, b };
});
