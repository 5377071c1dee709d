import t from "tap";
import { writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { configureConnection, openSqliteStorage, PAGE_CACHE_KIB } from "../../src/storage/sqlite/sqlite-storage.js";
import { migrations } from "../../src/storage/sqlite/migrations.js";
import { StorageError, type ApiKeyRecord } from "../../src/storage/types.js";
import { tempDir } from "../helpers/app.js";

const key = (id: string, hash: string): ApiKeyRecord => ({
  id,
  name: id,
  hash,
  prefix: "sk-og-abcd",
  admin: false,
  formats: ["messages"],
  models: ["claude-*"],
  budget: 10,
  spent: 0,
  limits: { requestsPerMinute: 60, tokensPerMinute: 0, concurrentRequests: 2 },
  createTime: 1_700_000_000_000,
});

t.test("a connection runs with WAL, foreign keys and SQLite's own 2 MB page cache, not better-sqlite3's 16 MB", async (t) => {
  const db = new Database(path.join(tempDir(), "c.db"));
  t.teardown(() => db.close());
  t.equal(db.pragma("cache_size", { simple: true }), -16000, "better-sqlite3's build default, which configureConnection overrides");
  configureConnection(db);
  t.equal(PAGE_CACHE_KIB, 2000);
  t.equal(db.pragma("cache_size", { simple: true }), -2000);
  t.equal(db.pragma("journal_mode", { simple: true }), "wal");
  t.equal(db.pragma("synchronous", { simple: true }), 1, "NORMAL");
  t.equal(db.pragma("foreign_keys", { simple: true }), 1);
  t.equal(db.pragma("busy_timeout", { simple: true }), 5000);
});

t.test("migrations run on an empty dir and only once", async (t) => {
  const dir = path.join(tempDir(), "nested", "data");
  const s = openSqliteStorage(dir);
  t.same(
    await s.migrations(),
    migrations.map((m) => m.version).sort((a, b) => a - b),
  );
  await s.close();
  const again = openSqliteStorage(dir);
  t.same(
    await again.migrations(),
    migrations.map((m) => m.version).sort((a, b) => a - b),
    "re-opening applies nothing twice",
  );
  await again.close();
});

t.test("keys survive a restart", async (t) => {
  const dir = tempDir();
  const s = openSqliteStorage(dir);
  await s.keys.insert(key("key_a", "h1"));
  await s.close();
  const s2 = openSqliteStorage(dir);
  t.teardown(() => s2.close());
  const k = await s2.keys.findByHash("h1");
  t.same(k, key("key_a", "h1"));
  t.equal(await s2.keys.count(), 1);
  const upd = await s2.keys.update("key_a", { revokeTime: 5 });
  t.equal(upd?.revokeTime, 5);
  t.same(await s2.keys.list(), [], "revoked keys are hidden by default");
  t.equal((await s2.keys.list({ includeRevoked: true })).length, 1);
  t.equal(await s2.keys.update("nope", { name: "x" }), undefined);
});

t.test("an unwritable data dir fails with a clear message", async (t) => {
  const dir = tempDir();
  const file = path.join(dir, "a-file");
  writeFileSync(file, "x");
  t.throws(() => openSqliteStorage(path.join(file, "data")), new StorageError(""), "throws a StorageError");
  t.throws(() => openSqliteStorage(path.join(file, "data")), { message: /OMNIGATE_DATA_DIR: .*a-file\/data is not a writable directory/ });
});

t.test("tasks: insert, optimistic update, list", async (t) => {
  const s = openSqliteStorage(tempDir());
  t.teardown(() => s.close());
  for (let i = 0; i < 3; i++) await s.tasks.insert({ id: `t${i}`, kind: "image-bot", status: "SUBMITTED", data: { n: i }, createTime: 1000 + i, updateTime: 1000 + i, version: 1 });
  const ok = await s.tasks.update("t1", 1, { status: "SUCCESS", data: { n: 1, done: true } });
  t.equal(ok?.version, 2);
  t.same(ok?.data, { n: 1, done: true });
  t.equal(await s.tasks.update("t1", 1, { status: "FAILURE", data: {} }), undefined, "a stale version does not write");
  t.same(
    (await s.tasks.getMany(["t2", "missing", "t0"])).map((x) => x.id),
    ["t2", "t0"],
    "keeps the requested order, skips unknown ids",
  );
  t.same(
    (await s.tasks.listByStatus("image-bot", ["SUBMITTED"])).map((x) => x.id),
    ["t0", "t2"],
  );
  t.same(
    (await s.tasks.list("image-bot", { limit: 2 })).map((x) => x.id),
    ["t2", "t1"],
    "newest first",
  );
  t.same(
    (await s.tasks.list("image-bot", { after: "t1" })).map((x) => x.id),
    ["t0"],
    "cursor paging",
  );
  t.same(
    (await s.tasks.list("image-bot", { order: "asc", after: "t0" })).map((x) => x.id),
    ["t1", "t2"],
  );
  t.equal(await s.tasks.delete("t0"), true);
  t.equal(await s.tasks.get("t0"), undefined);
});

t.test("usage: records and totals", async (t) => {
  const s = openSqliteStorage(tempDir());
  t.teardown(() => s.close());
  const base = { keyId: "k1", format: "messages", model: "m", channel: "local", images: 0, seconds: 0, status: "ok", latencyMs: 3, requestId: "r" };
  await s.usage.record({ ...base, time: 1, inputTokens: 5, outputTokens: 7, credits: 0.5 });
  await s.usage.record({ ...base, time: 2, inputTokens: 1, outputTokens: 2, credits: 0.25, keyId: "k2" });
  const all = await s.usage.query({});
  t.same(all.totals, { requests: 2, inputTokens: 6, outputTokens: 9, images: 0, seconds: 0, credits: 0.75 });
  const k1 = await s.usage.query({ keyId: "k1" });
  t.equal(k1.rows.length, 1);
  t.equal(k1.totals.inputTokens, 5);
  t.equal((await s.usage.query({ since: 2 })).totals.requests, 1);
});

t.test("files: metadata and expiry listing", async (t) => {
  const s = openSqliteStorage(tempDir());
  t.teardown(() => s.close());
  await s.files.insert({ id: "f1", mimeType: "image/png", size: 10, createTime: 1, expireTime: 100, kind: "image" });
  await s.files.insert({ id: "f2", mimeType: "image/png", size: 10, createTime: 1, kind: "image" });
  t.same(
    (await s.files.listExpired(100, 10)).map((f) => f.id),
    ["f1"],
  );
  t.equal((await s.files.get("f2"))?.expireTime, undefined);
  t.equal(await s.files.delete("f1"), true);
});

t.test("usage: records are batched, yet queries and close see every one", async (t) => {
  const dir = tempDir();
  const s = openSqliteStorage(dir);
  const base = { keyId: "kb", format: "messages", model: "m", channel: "local", inputTokens: 1, outputTokens: 1, images: 0, seconds: 0, credits: 0, status: "ok", latencyMs: 1, requestId: "r" };
  for (let i = 0; i < 300; i++) await s.usage.record({ ...base, time: i });
  t.equal((await s.usage.query({ keyId: "kb" })).totals.requests, 300, "a query flushes what is queued");
  await s.usage.record({ ...base, time: 1000 });
  await s.close();
  const again = openSqliteStorage(dir);
  t.teardown(() => again.close());
  t.equal((await again.usage.query({ keyId: "kb" })).totals.requests, 301, "close flushed the last record");
});

t.test("usage: rows written in groups keep every field of every record", async (t) => {
  const s = openSqliteStorage(tempDir());
  t.teardown(() => s.close());
  // 70 records in one flush: two groups of 32, then one of 4 and one of 2.
  const recs = Array.from({ length: 70 }, (_, i) => ({
    time: 1000 + i,
    keyId: `k${i % 3}`,
    format: i % 2 ? "messages" : "generate-content",
    model: `m${i}`,
    channel: `c${i}`,
    inputTokens: i,
    outputTokens: 2 * i,
    images: i % 4,
    seconds: i / 2,
    credits: i / 8,
    status: i % 5 ? "ok" : "error:14",
    latencyMs: 3 * i,
    requestId: `req_${i}`,
  }));
  for (const r of recs) await s.usage.record(r);
  const got = await s.usage.query({ limit: 100 });
  t.equal(got.rows.length, 70);
  const byTime = new Map(got.rows.map((r) => [r.time, r]));
  for (const r of recs) t.match(byTime.get(r.time), r, `record ${r.time}`);
  t.equal(got.totals.inputTokens, (69 * 70) / 2);
});

t.test("usage: every flush size writes exactly its records (full groups and the smaller groups of the rest)", async (t) => {
  const s = openSqliteStorage(tempDir());
  t.teardown(() => s.close());
  const base = { keyId: "kg", format: "messages", model: "m", channel: "c", inputTokens: 1, outputTokens: 1, images: 0, seconds: 0, credits: 0, status: "ok", latencyMs: 1, requestId: "r" };
  let time = 0;
  let total = 0;
  for (const n of [1, 31, 32, 33, 63, 64, 65, 5, 5, 97, 16, 3]) {
    for (let i = 0; i < n; i++) await s.usage.record({ ...base, time: time++ });
    total += n;
    // A query flushes what is queued, so each n is one flush.
    const got = await s.usage.query({ keyId: "kg", limit: 1000 });
    t.equal(got.totals.requests, total, `after a flush of ${n}`);
    t.same(
      got.rows.map((r) => r.time).sort((a, b) => a - b),
      Array.from({ length: total }, (_, i) => i),
    );
  }
});
