// The account pool: filters, the choice between accounts, admin updates that survive a restart.
import t from "tap";
import { AccountPool, matchesFilter, queueOf, type AccountSettings } from "../../../src/core/image-bot/accounts.js";
import { TaskRunner } from "../../../src/core/tasks/runner.js";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import { tempDir } from "../../helpers/app.js";

const acc = (id: string, p: Partial<AccountSettings> = {}): AccountSettings => ({
  id,
  channel: "local",
  channelId: "",
  instanceId: "",
  modes: ["FAST"],
  remark: "",
  remix: false,
  remixAutoSubmit: false,
  enabled: true,
  concurrency: 1,
  queueSize: 1,
  botTypes: ["PRIMARY_BOT", "ANIME_BOT"],
  ...p,
});

t.test("filters: channelId, instanceId, modes, remark substring, remix, remixAutoConsidered", async (t) => {
  const a = acc("a", { channelId: "c1", instanceId: "i1", modes: ["RELAX", "FAST"], remark: "Team Blue", remix: true, remixAutoSubmit: true });
  t.ok(matchesFilter(a, undefined));
  t.ok(matchesFilter(a, { channelId: "c1" }));
  t.notOk(matchesFilter(a, { channelId: "c2" }));
  t.ok(matchesFilter(a, { instanceId: "i1" }));
  t.notOk(matchesFilter(a, { instanceId: "a" }), "the id is the instance id only when none is set");
  t.ok(matchesFilter(acc("b"), { instanceId: "b" }));
  t.ok(matchesFilter(a, { modes: ["TURBO", "RELAX"] }));
  t.notOk(matchesFilter(a, { modes: ["TURBO"] }));
  t.ok(matchesFilter(a, { remark: "blue" }));
  t.notOk(matchesFilter(a, { remark: "red" }));
  t.ok(matchesFilter(a, { remix: true }));
  t.notOk(matchesFilter(a, { remix: false }));
  t.ok(matchesFilter(a, { remixAutoConsidered: true }));
  t.notOk(matchesFilter(a, { remixAutoConsidered: false }));
});

t.test("choice: a free slot first, then the shortest line; disabled, wrong bot type and full accounts never", async (t) => {
  const storage = openSqliteStorage(tempDir());
  const runner = new TaskRunner({
    storage,
    now: Date.now,
    timeoutMs: 60_000,
    sweepIntervalMs: 0,
    callbacks: { secret: "", allowPrivate: true, timeoutMs: 1000, maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10, pollMs: 1000, concurrency: 1 },
  });
  runner.register({ kind: "image-bot", execute: (_task, ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))) });
  const pool = new AccountPool([acc("a"), acc("b"), acc("off", { enabled: false }), acc("niji", { botTypes: ["ANIME_BOT"] })], storage.taskAccounts, runner, Date.now);
  await pool.load();
  await runner.start();
  t.teardown(async () => {
    await runner.stop();
    await storage.close();
  });
  const first = pool.choose({ botType: "PRIMARY_BOT" });
  t.match(first, { account: { id: "a" }, startsNow: true });
  await runner.create({ id: "1", kind: "image-bot", status: "NOT_START", queue: queueOf("a"), notifyHook: "", payload: {} });
  t.match(pool.choose({ botType: "PRIMARY_BOT" }), { account: { id: "b" }, startsNow: true }, "b is free");
  await runner.create({ id: "2", kind: "image-bot", status: "NOT_START", queue: queueOf("b"), notifyHook: "", payload: {} });
  await runner.create({ id: "3", kind: "image-bot", status: "NOT_START", queue: queueOf("a"), notifyHook: "", payload: {} });
  t.match(pool.choose({ botType: "PRIMARY_BOT" }), { account: { id: "b" }, startsNow: false }, "only b has room in its line");
  await runner.create({ id: "4", kind: "image-bot", status: "NOT_START", queue: queueOf("b"), notifyHook: "", payload: {} });
  t.same(pool.choose({ botType: "PRIMARY_BOT" }), { unavailable: "every matching account's queue is full" });
  t.match(pool.choose({ botType: "ANIME_BOT", filter: { instanceId: "niji" } }), { account: { id: "niji" } });
  t.same(pool.choose({ botType: "PRIMARY_BOT", filter: { remark: "nothing" } }), { unavailable: "no enabled account matches the request" });
  t.match(pool.get("a"), { running: 1, queued: 1 });
});

t.test("admin changes and last errors are stored and applied again on the next start", async (t) => {
  const dir = tempDir();
  const mk = () => {
    const storage = openSqliteStorage(dir);
    const runner = new TaskRunner({
      storage,
      now: () => 5000,
      timeoutMs: 60_000,
      sweepIntervalMs: 0,
      callbacks: { secret: "", allowPrivate: true, timeoutMs: 1000, maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10, pollMs: 1000, concurrency: 1 },
    });
    return { storage, runner, pool: new AccountPool([acc("a", { concurrency: 2 })], storage.taskAccounts, runner, () => 5000) };
  };
  const one = mk();
  await one.pool.load();
  await one.pool.update("a", { enabled: false, concurrency: 7, remark: "paused" });
  await one.pool.recordError("a", "upstream down");
  t.same(one.runner.load(queueOf("a")), { concurrency: 7, queueSize: 1, running: 0, queued: 0 }, "the queue follows");
  await one.storage.close();
  const two = mk();
  t.teardown(() => two.storage.close());
  await two.pool.load();
  t.match(two.pool.get("a"), { enabled: false, concurrency: 7, remark: "paused", lastError: "upstream down", lastErrorTime: 5000 });
  t.equal(await two.pool.update("nope", { enabled: true }), undefined);
});
