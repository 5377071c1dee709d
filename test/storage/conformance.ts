// The storage conformance suite: every method of every store, run against each
// backend (sqlite-conformance.test.ts, postgres-conformance.test.ts) so the
// gateway behaves the same whichever one it runs on.
import type { Test } from "tap";
import type { ApiKeyRecord, CachedContentRecord, OutboxMessage, Storage, StoredResponseRecord, TaskRecord, UsageRecord } from "../../src/storage/types.js";

export interface OpenedStorage {
  /** A fresh, empty storage; the backend closes it and removes its data on teardown. */
  storage: Storage;
  /** Another handle on the same database (as a second instance would open it); closed on teardown. */
  again(): Promise<Storage>;
}

export type OpenStorage = (t: Test) => Promise<OpenedStorage>;

const T0 = 1_700_000_000_000;

export const key = (id: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id,
  name: `name of ${id}`,
  hash: `hash-${id}`,
  prefix: "sk-og-abcd",
  admin: false,
  formats: ["messages", "image-bot"],
  models: ["claude-*"],
  budget: 0,
  spent: 0,
  limits: { requestsPerMinute: 60, tokensPerMinute: 1000, concurrentRequests: 2 },
  createTime: T0,
  ...over,
});

const task = (id: string, over: Partial<TaskRecord> = {}): TaskRecord => ({
  id,
  kind: "image-bot",
  status: "SUBMITTED",
  ownerKeyId: "key_a",
  data: { prompt: `p ${id}`, nested: { list: [1, 2.5, "x", null, true] } },
  createTime: T0,
  updateTime: T0,
  version: 1,
  ...over,
});

const msg = (id: string, taskId: string, seq: number, over: Partial<OutboxMessage> = {}): OutboxMessage => ({
  id,
  taskId,
  seq,
  url: "http://127.0.0.1:9/cb",
  body: JSON.stringify({ id: taskId, seq }),
  status: "pending",
  attempts: 0,
  nextAttemptTime: T0,
  createTime: T0,
  updateTime: T0,
  ...over,
});

export const usage = (over: Partial<UsageRecord> = {}): UsageRecord => ({
  time: T0,
  keyId: "key_a",
  format: "messages",
  model: "claude-x",
  channel: "local",
  inputTokens: 10,
  outputTokens: 20,
  images: 0,
  seconds: 0,
  credits: 0.5,
  status: "ok",
  latencyMs: 12,
  requestId: "req",
  ...over,
});

const cached = (id: string, over: Partial<CachedContentRecord> = {}): CachedContentRecord => ({
  id,
  ownerKeyId: "key_a",
  model: "gemini-x",
  displayName: `cache ${id}`,
  content: new Uint8Array([0, 1, 2, 255, 0, 128]),
  totalTokens: 42,
  createTime: T0,
  updateTime: T0,
  expireTime: T0 + 1000,
  ...over,
});

const stored = (id: string, over: Partial<StoredResponseRecord> = {}): StoredResponseRecord => ({
  id,
  ownerKeyId: "key_a",
  model: "gpt-x",
  status: "completed",
  previousResponseId: "",
  createTime: T0,
  expireTime: T0 + 1000,
  response: JSON.stringify({ id, text: "h\u00e9llo \u0000 \ud83d\ude00" }),
  input: '[{"id":"msg_1"}]',
  context: '[{"id":"msg_1"},{"id":"msg_2"}]',
  ...over,
});

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
/** The fields every task write round-trips (the runner's scheduling fields are covered with its claims). */
const core = (r: TaskRecord | undefined) =>
  r && { id: r.id, kind: r.kind, status: r.status, ownerKeyId: r.ownerKeyId, data: r.data, createTime: r.createTime, updateTime: r.updateTime, version: r.version };

export function storageConformance(t: Test, open: OpenStorage): void {
  const store = async (t: Test) => (await open(t)).storage;

  t.test("migrations and close", async (t) => {
    const { storage, again } = await open(t);
    const applied = await storage.migrations();
    t.ok(applied.length > 0, "some migrations are applied");
    t.same(
      applied,
      [...applied].sort((a, b) => a - b),
      "oldest first",
    );
    t.equal(new Set(applied).size, applied.length, "each once");
    const second = await again();
    t.same(await second.migrations(), applied, "opening again applies nothing twice");
    await second.close();
    await t.resolves(second.close(), "close is idempotent");
  });

  t.test("keys", async (t) => {
    t.test("insert, get, findByHash round-trip every field", async (t) => {
      const s = await store(t);
      const full = key("key_full", { admin: true, budget: 12.5, spent: 0.25, expireTime: T0 + 5, revokeTime: T0 + 6, formats: [], models: [] });
      await s.keys.insert(full);
      await s.keys.insert(key("key_min"));
      t.same(await s.keys.get("key_full"), full);
      t.same(await s.keys.findByHash("hash-key_min"), key("key_min"));
      t.equal((await s.keys.get("key_min"))!.expireTime, undefined);
      t.equal(await s.keys.get("nope"), undefined);
      t.equal(await s.keys.findByHash("nope"), undefined);
      t.equal(await s.keys.count(), 2);
    });

    t.test("ids and hashes are unique", async (t) => {
      const s = await store(t);
      await s.keys.insert(key("key_a"));
      await t.rejects(s.keys.insert(key("key_a", { hash: "other" })), "duplicate id");
      await t.rejects(s.keys.insert(key("key_b", { hash: "hash-key_a" })), "duplicate hash");
      t.equal(await s.keys.count(), 1);
    });

    t.test("upsert inserts, then replaces the row with the same id", async (t) => {
      const s = await store(t);
      await s.keys.upsert(key("key_a", { name: "first" }));
      await s.keys.upsert(key("key_a", { name: "second", spent: 3, admin: true, revokeTime: T0 }));
      t.same(await s.keys.get("key_a"), key("key_a", { name: "second", spent: 3, admin: true, revokeTime: T0 }));
      t.equal(await s.keys.count(), 1);
    });

    t.test("list pages by id, hiding revoked keys unless asked", async (t) => {
      const s = await store(t);
      for (const id of ["key_c", "key_a", "key_e", "key_b", "key_d"]) await s.keys.insert(key(id, id === "key_b" ? { revokeTime: T0 } : {}));
      t.same(ids(await s.keys.list()), ["key_a", "key_c", "key_d", "key_e"]);
      t.same(ids(await s.keys.list({ includeRevoked: true })), ["key_a", "key_b", "key_c", "key_d", "key_e"]);
      t.same(ids(await s.keys.list({ limit: 2 })), ["key_a", "key_c"]);
      t.same(ids(await s.keys.list({ limit: 2, after: "key_c" })), ["key_d", "key_e"]);
      t.same(ids(await s.keys.list({ includeRevoked: true, limit: 2, after: "key_a" })), ["key_b", "key_c"]);
      t.same(await s.keys.list({ after: "key_e" }), []);
    });

    t.test("update patches the given fields only; undefined clears", async (t) => {
      const s = await store(t);
      await s.keys.insert(key("key_a", { expireTime: T0 + 1, budget: 5 }));
      const u = await s.keys.update("key_a", { name: "renamed", models: ["gpt-*"], limits: { requestsPerMinute: 1, tokensPerMinute: 2, concurrentRequests: 3 }, expireTime: undefined });
      const want = key("key_a", { name: "renamed", models: ["gpt-*"], limits: { requestsPerMinute: 1, tokensPerMinute: 2, concurrentRequests: 3 }, budget: 5 });
      t.same(u, want, "returns the updated record");
      t.same(await s.keys.get("key_a"), want, "and stores it");
      t.equal((await s.keys.update("key_a", { revokeTime: T0 + 9 }))!.revokeTime, T0 + 9);
      t.same(ids(await s.keys.list()), []);
      t.equal(await s.keys.update("nope", { name: "x" }), undefined);
      t.equal(await s.keys.count(), 1, "update never inserts");
    });

    t.test("update does not undo a concurrent reservation", async (t) => {
      const s = await store(t);
      await s.keys.insert(key("key_a", { budget: 100 }));
      await Promise.all([...Array.from({ length: 20 }, () => s.keys.reserveCredits("key_a", 1)), s.keys.update("key_a", { name: "x" }), s.keys.update("key_a", { admin: true })]);
      const k = (await s.keys.get("key_a"))!;
      t.equal(k.spent, 20);
      t.equal(k.name, "x");
      t.equal(k.admin, true);
    });

    t.test("reserveCredits: never overdraws, even under 200 concurrent calls", async (t) => {
      const s = await store(t);
      await s.keys.insert(key("key_a", { budget: 10 }));
      const results = await Promise.all(Array.from({ length: 200 }, () => s.keys.reserveCredits("key_a", 1)));
      t.equal(results.filter(Boolean).length, 10, "exactly the budget is granted");
      t.equal((await s.keys.get("key_a"))!.spent, 10);
      t.equal(await s.keys.reserveCredits("key_a", 0.5), false, "a refused reservation...");
      t.equal((await s.keys.get("key_a"))!.spent, 10, "...changes nothing");
      t.equal(await s.keys.reserveCredits("missing", 1), false);
    });

    t.test("reserveCredits: fractions, exact fill, unlimited budget", async (t) => {
      const s = await store(t);
      await s.keys.insert(key("key_f", { budget: 0.3 }));
      t.same([await s.keys.reserveCredits("key_f", 0.1), await s.keys.reserveCredits("key_f", 0.1), await s.keys.reserveCredits("key_f", 0.1)], [true, true, true], "0.1 x 3 fills 0.3");
      t.equal(await s.keys.reserveCredits("key_f", 0.01), false);
      await s.keys.insert(key("key_u", { hash: "hu", budget: 0 }));
      t.equal(await s.keys.reserveCredits("key_u", 1e6), true, "budget 0 is unlimited");
      t.equal((await s.keys.get("key_u"))!.spent, 1e6);
    });

    t.test("reserveCredits holds across instances", async (t) => {
      const { storage, again } = await open(t);
      const other = await again();
      await storage.keys.insert(key("key_a", { budget: 25 }));
      const results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? storage : other).keys.reserveCredits("key_a", 1)));
      t.equal(results.filter(Boolean).length, 25);
      t.equal((await other.keys.get("key_a"))!.spent, 25);
    });

    t.test("adjustSpent adds, never below zero", async (t) => {
      const s = await store(t);
      await s.keys.insert(key("key_a", { budget: 10, spent: 4 }));
      await Promise.all(Array.from({ length: 50 }, () => s.keys.adjustSpent("key_a", 0.5)));
      t.equal((await s.keys.get("key_a"))!.spent, 29, "concurrent adjustments all count, past the budget");
      await s.keys.adjustSpent("key_a", -30);
      t.equal((await s.keys.get("key_a"))!.spent, 0, "clamped at zero");
      await t.resolves(s.keys.adjustSpent("missing", 1));
    });

    t.test("insertIfEmpty: one key when instances start together", async (t) => {
      const { storage, again } = await open(t);
      const handles = [storage, await again(), await again()];
      const results = await Promise.all(handles.map((h, i) => h.keys.insertIfEmpty(key(`key_${i}`))));
      t.equal(results.filter(Boolean).length, 1, "exactly one insert wins");
      t.equal(await storage.keys.count(), 1);
      const winner = results.indexOf(true);
      t.same(await storage.keys.get(`key_${winner}`), key(`key_${winner}`));
      t.equal(await storage.keys.insertIfEmpty(key("key_late")), false);
      t.equal(await storage.keys.get("key_late"), undefined);
    });
  });

  t.test("tasks", async (t) => {
    t.test("insert and get round-trip; ids are unique", async (t) => {
      const s = await store(t);
      const a = task("t_a", { ownerKeyId: undefined, data: { s: "nul \u0000 and 'quotes' \"x\" ü", n: 1.5, big: 2 ** 40 } });
      await s.tasks.insert(a);
      t.same(core(await s.tasks.get("t_a")), a);
      t.equal(await s.tasks.get("missing"), undefined);
      await t.rejects(s.tasks.insert(task("t_a")), "duplicate id");
    });

    t.test("update: optimistic version check", async (t) => {
      const s = await store(t);
      await s.tasks.insert(task("t_a"));
      const before = Date.now();
      const u = await s.tasks.update("t_a", 1, { status: "IN_PROGRESS", data: { step: 1 } });
      t.match(u, { id: "t_a", status: "IN_PROGRESS", data: { step: 1 }, version: 2, createTime: T0, ownerKeyId: "key_a", kind: "image-bot" });
      t.ok(u!.updateTime >= before, "update time is set");
      t.same(await s.tasks.get("t_a"), u);
      t.equal(await s.tasks.update("t_a", 1, { status: "FAILURE", data: {} }), undefined, "a stale version writes nothing");
      t.equal((await s.tasks.get("t_a"))!.status, "IN_PROGRESS");
      t.equal(await s.tasks.update("missing", 1, { status: "x", data: {} }), undefined);
      const racing = await Promise.all(Array.from({ length: 10 }, (_, i) => s.tasks.update("t_a", 2, { status: `S${i}`, data: { i } })));
      t.equal(racing.filter(Boolean).length, 1, "one of ten concurrent writers wins");
      t.equal((await s.tasks.get("t_a"))!.version, 3);
    });

    t.test("getMany keeps the requested order and skips unknown ids", async (t) => {
      const s = await store(t);
      for (const id of ["t0", "t1", "t2"]) await s.tasks.insert(task(id));
      t.same(ids(await s.tasks.getMany(["t2", "missing", "t0"])), ["t2", "t0"]);
      t.same(await s.tasks.getMany([]), []);
    });

    t.test("listByStatus filters kind and status, oldest first, limited", async (t) => {
      const s = await store(t);
      await s.tasks.insert(task("t3", { createTime: T0 + 3 }));
      await s.tasks.insert(task("t1", { createTime: T0 + 1 }));
      await s.tasks.insert(task("t2", { createTime: T0 + 2, status: "SUCCESS" }));
      await s.tasks.insert(task("t4", { createTime: T0 + 4, status: "IN_PROGRESS" }));
      await s.tasks.insert(task("v1", { createTime: T0, kind: "video" }));
      t.same(ids(await s.tasks.listByStatus("image-bot", ["SUBMITTED"])), ["t1", "t3"]);
      t.same(ids(await s.tasks.listByStatus("image-bot", ["SUBMITTED", "IN_PROGRESS"])), ["t1", "t3", "t4"]);
      t.same(ids(await s.tasks.listByStatus("image-bot", ["SUBMITTED", "IN_PROGRESS"], 2)), ["t1", "t3"]);
      t.same(ids(await s.tasks.listByStatus("video", ["SUBMITTED"])), ["v1"]);
      t.same(await s.tasks.listByStatus("image-bot", []), []);
    });

    t.test("list: newest first by default, cursor paging with ties, owner filter", async (t) => {
      const s = await store(t);
      // Two tasks share each create time: ids break the tie.
      const all = ["a", "b", "c", "d", "e", "f", "g"].map((id, i) => task(`t_${id}`, { createTime: T0 + Math.floor(i / 2), ownerKeyId: i % 3 === 0 ? "key_x" : "key_a" }));
      for (const x of [...all].reverse()) await s.tasks.insert(x);
      await s.tasks.insert(task("v_1", { kind: "video" }));
      const desc = ["t_g", "t_f", "t_e", "t_d", "t_c", "t_b", "t_a"];
      t.same(ids(await s.tasks.list("image-bot")), desc);
      t.same(ids(await s.tasks.list("image-bot", { order: "asc" })), [...desc].reverse());
      for (const order of ["asc", "desc"] as const) {
        const seen: string[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await s.tasks.list("image-bot", { order, limit: 2, ...(after ? { after } : {}) });
          seen.push(...ids(page));
          if (page.length < 2) break;
          after = page.at(-1)!.id;
        }
        t.same(seen, order === "desc" ? desc : [...desc].reverse(), `pages of 2 (${order}) visit every task once, in order`);
      }
      t.same(ids(await s.tasks.list("image-bot", { ownerKeyId: "key_x" })), ["t_g", "t_d", "t_a"]);
      t.same(ids(await s.tasks.list("image-bot", { ownerKeyId: "key_x", after: "t_g", limit: 1 })), ["t_d"]);
      t.same(ids(await s.tasks.list("image-bot", { after: "unknown", limit: 2 })), ["t_g", "t_f"], "an unknown cursor is ignored");
      t.same(ids(await s.tasks.list("video")), ["v_1"]);
    });

    t.test("delete", async (t) => {
      const s = await store(t);
      await s.tasks.insert(task("t_a"));
      t.equal(await s.tasks.delete("t_a"), true);
      t.equal(await s.tasks.delete("t_a"), false);
      t.equal(await s.tasks.get("t_a"), undefined);
    });
  });

  t.test("usage", async (t) => {
    t.test("query: newest first, filters, limit, totals over every match", async (t) => {
      const s = await store(t);
      await s.usage.record(usage({ time: T0 + 1, requestId: "r1" }));
      await s.usage.record(usage({ time: T0 + 2, requestId: "r2", keyId: "key_b", inputTokens: 1, outputTokens: 2, credits: 0.25 }));
      await s.usage.record(usage({ time: T0 + 3, requestId: "r3", format: "openai-images", model: "img", images: 2, credits: 1 }));
      await s.usage.record(usage({ time: T0 + 4, requestId: "r4", format: "video", model: "vid", seconds: 2.5, inputTokens: 3_000_000_000 }));
      const all = await s.usage.query({});
      t.same(
        all.rows.map((r) => r.requestId),
        ["r4", "r3", "r2", "r1"],
      );
      t.same(all.rows[0], usage({ time: T0 + 4, requestId: "r4", format: "video", model: "vid", seconds: 2.5, inputTokens: 3_000_000_000 }), "every field round-trips");
      t.same(all.totals, { requests: 4, inputTokens: 3_000_000_021, outputTokens: 62, images: 2, seconds: 2.5, credits: 2.25 });
      t.same(
        (await s.usage.query({ keyId: "key_b" })).rows.map((r) => r.requestId),
        ["r2"],
      );
      t.same((await s.usage.query({ format: "openai-images" })).totals.images, 2);
      t.same(
        (await s.usage.query({ model: "vid" })).rows.map((r) => r.requestId),
        ["r4"],
      );
      t.same(
        (await s.usage.query({ since: T0 + 2, until: T0 + 4 })).rows.map((r) => r.requestId),
        ["r3", "r2"],
        "since inclusive, until exclusive",
      );
      const limited = await s.usage.query({ limit: 1, keyId: "key_a" });
      t.same(
        limited.rows.map((r) => r.requestId),
        ["r4"],
      );
      t.equal(limited.totals.requests, 3, "totals ignore the limit");
      t.same((await s.usage.query({ keyId: "nobody" })).totals, { requests: 0, inputTokens: 0, outputTokens: 0, images: 0, seconds: 0, credits: 0 });
    });

    t.test("records are batched, yet queries and close see every one", async (t) => {
      const { storage, again } = await open(t);
      for (let i = 0; i < 700; i++) await storage.usage.record(usage({ time: T0 + i, keyId: "key_batch" }));
      t.equal((await storage.usage.query({ keyId: "key_batch" })).totals.requests, 700, "a query flushes what is queued");
      await storage.usage.record(usage({ time: T0 + 9999, keyId: "key_batch" }));
      await Promise.all(Array.from({ length: 20 }, (_, i) => storage.usage.record(usage({ time: T0 + 10_000 + i, keyId: "key_batch" }))));
      await storage.close();
      const second = await again();
      t.equal((await second.usage.query({ keyId: "key_batch" })).totals.requests, 721, "close flushed the last records");
    });
  });

  t.test("files", async (t) => {
    const s = await store(t);
    const f1 = { id: "file_1", mimeType: "image/png", size: 3_000_000_000, createTime: T0, expireTime: T0 + 100, ownerKeyId: "key_a", kind: "image" };
    await s.files.insert(f1);
    await s.files.insert({ id: "file_2", mimeType: "video/mp4", size: 10, createTime: T0, kind: "video" });
    await s.files.insert({ id: "file_3", mimeType: "image/png", size: 1, createTime: T0, expireTime: T0 + 50, kind: "image-bot" });
    await s.files.insert({ id: "file_4", mimeType: "image/png", size: 1, createTime: T0, expireTime: T0 + 101, kind: "upload" });
    t.same(await s.files.get("file_1"), f1);
    t.same(await s.files.get("file_2"), { id: "file_2", mimeType: "video/mp4", size: 10, createTime: T0, expireTime: undefined, ownerKeyId: undefined, kind: "video" });
    await t.rejects(s.files.insert(f1), "duplicate id");
    t.same(ids(await s.files.listExpired(T0 + 100, 10)), ["file_3", "file_1"], "expired at now (inclusive), soonest first; no expiry never");
    t.same(ids(await s.files.listExpired(T0 + 100, 1)), ["file_3"], "limited");
    t.same(await s.files.listExpired(T0 + 49, 10), []);
    t.same([...(await s.files.existing(["file_9", "file_2", "file_1", "x'); DROP TABLE files; --", "file_4"]))].sort(), ["file_1", "file_2", "file_4"], "existing: the ids that have a record");
    t.same([...(await s.files.existing([]))], [], "existing: none asked, none found");
    const many = Array.from({ length: 40_000 }, (_, i) => `file_m${i}`);
    t.same([...(await s.files.existing([...many, "file_3"]))], ["file_3"], "existing: a list longer than a statement's parameter limit");
    t.equal(await s.files.delete("file_1"), true);
    t.equal(await s.files.delete("file_1"), false);
    t.equal(await s.files.get("file_1"), undefined);
  });

  t.test("files: names and a key's files newest first", async (t) => {
    const s = await store(t);
    const up = (id: string, createTime: number, ownerKeyId: string, kind = "file") => ({ id, mimeType: "text/plain", size: 5, createTime, ownerKeyId, kind, filename: `${id}.txt` });
    // Two files share a creation time: the id orders them.
    for (const f of [
      up("file_a1", T0, "key_a"),
      up("file_a2", T0 + 1, "key_a"),
      up("file_a3", T0 + 1, "key_a"),
      up("file_a4", T0 + 2, "key_a"),
      up("file_b1", T0 + 3, "key_b"),
      up("file_v1", T0 + 4, "key_a", "video"),
    ]) {
      await s.files.insert(f);
    }
    t.same(await s.files.get("file_a1"), up("file_a1", T0, "key_a"), "the file name round-trips");
    t.same(ids(await s.files.list({ kind: "file", ownerKeyId: "key_a", limit: 10 })), ["file_a4", "file_a3", "file_a2", "file_a1"], "one key's files of one kind, newest first, ties by id");
    t.same(ids(await s.files.list({ kind: "file", limit: 10 })), ["file_b1", "file_a4", "file_a3", "file_a2", "file_a1"], "every key's");
    t.same(ids(await s.files.list({ kind: "file", ownerKeyId: "key_a", limit: 2 })), ["file_a4", "file_a3"], "limited");
    t.same(
      ids(await s.files.list({ kind: "file", ownerKeyId: "key_a", limit: 2, after: { createTime: T0 + 1, id: "file_a3" } })),
      ["file_a2", "file_a1"],
      "after a file: the older ones, a tie resumed by id",
    );
    t.same(
      ids(await s.files.list({ kind: "file", ownerKeyId: "key_a", limit: 2, before: { createTime: T0, id: "file_a1" } })),
      ["file_a3", "file_a2"],
      "before a file: the nearest newer ones, still newest first",
    );
    t.same(ids(await s.files.list({ kind: "file", ownerKeyId: "key_a", limit: 10, before: { createTime: T0 + 1, id: "file_a2" } })), ["file_a4", "file_a3"], "before, a tie resumed by id");
    t.same(await s.files.list({ kind: "file", ownerKeyId: "key_c", limit: 10 }), [], "a key with none");
    await s.files.insert({ ...up("file_a5", T0 + 5, "key_a"), size: 3_000_000_000, expireTime: T0 + 100 });
    t.equal(await s.files.totalSize({ kind: "file", ownerKeyId: "key_a", now: T0 }), 4 * 5 + 3_000_000_000, "totalSize: one key's bytes of one kind, past 32 bits");
    t.equal(await s.files.totalSize({ kind: "file", ownerKeyId: "key_a", now: T0 + 100 }), 4 * 5, "expired files do not count");
    t.equal(await s.files.totalSize({ kind: "file", ownerKeyId: "key_c", now: T0 }), 0, "a key with none holds 0");
  });

  t.test("cachedContents", async (t) => {
    const s = await store(t);
    const big = new Uint8Array(200_000).map((_, i) => (i * 31) % 256);
    await s.cachedContents.insert(cached("c1", { content: big }));
    await s.cachedContents.insert(cached("c3", { expireTime: T0 + 10 }));
    await s.cachedContents.insert(cached("c2", { expireTime: T0 + 20 }));
    await s.cachedContents.insert(cached("c4"));
    await s.cachedContents.insert(cached("c0", { ownerKeyId: "key_b" }));
    const got = await s.cachedContents.get("c1");
    t.ok(got!.content instanceof Uint8Array, "content is a Uint8Array");
    t.ok(Buffer.from(got!.content).equals(Buffer.from(big)), "bytes round-trip");
    t.same(await s.cachedContents.get("c3"), cached("c3", { expireTime: T0 + 10 }));
    t.equal(await s.cachedContents.get("nope"), undefined);
    await t.rejects(s.cachedContents.insert(cached("c1")), "duplicate id");

    t.same(ids(await s.cachedContents.list("key_a", T0)), ["c1", "c2", "c3", "c4"], "the owner's, in id order");
    t.same(ids(await s.cachedContents.list("key_a", T0 + 10)), ["c1", "c2", "c4"], "expired at now (inclusive) are hidden");
    t.same(ids(await s.cachedContents.list("key_a", T0, { limit: 2 })), ["c1", "c2"]);
    t.same(ids(await s.cachedContents.list("key_a", T0, { limit: 2, after: "c2" })), ["c3", "c4"]);
    t.same(ids(await s.cachedContents.list("key_b", T0)), ["c0"]);

    const u = await s.cachedContents.update("c3", { expireTime: T0 + 5000, updateTime: T0 + 5 });
    t.same(u, cached("c3", { expireTime: T0 + 5000, updateTime: T0 + 5 }));
    t.same(await s.cachedContents.get("c3"), u);
    t.equal(await s.cachedContents.update("nope", { expireTime: 1, updateTime: 1 }), undefined);

    t.equal(await s.cachedContents.deleteExpired(T0 + 1000, 2), 2, "up to the limit");
    t.equal(await s.cachedContents.deleteExpired(T0 + 1000, 10), 2, "the rest");
    t.same(ids(await s.cachedContents.list("key_a", 0)), ["c3"], "only the unexpired one is left");
    t.equal(await s.cachedContents.deleteExpired(T0 + 1000, 10), 0);
    t.equal(await s.cachedContents.delete("c3"), true);
    t.equal(await s.cachedContents.delete("c3"), false);
  });

  t.test("responses", async (t) => {
    const s = await store(t);
    const r = s.responses;
    const mine = { id: "resp_1", ownerKeyId: "key_a", now: T0 };
    const big = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ id: `item_${i}`, text: "x".repeat(50) })));
    t.equal(await r.put(stored("resp_1", { context: big })), true);
    t.same(await r.get(mine, ["response", "input", "context"]), stored("resp_1", { context: big }), "every field round-trips, a context of 1 MB too");
    t.same(await r.get(mine, ["input"]), stored("resp_1", { response: "", context: "" }), "only the documents asked for");
    t.same(await r.get(mine, []), stored("resp_1", { response: "", input: "", context: "" }));
    t.equal(await r.get({ ...mine, ownerKeyId: "key_b" }, ["response"]), undefined, "another key's: none");
    t.equal(await r.get({ ...mine, now: T0 + 1000 }, ["response"]), undefined, "expired at now (inclusive): none");
    t.equal(await r.get({ ...mine, id: "resp_2" }, ["response"]), undefined);

    t.equal(await r.put(stored("resp_1", { status: "cancelled", expireTime: T0 + 5000, previousResponseId: "resp_0" })), true, "the owner replaces its row");
    t.same(await r.get({ ...mine, now: T0 + 1000 }, ["response", "input", "context"]), stored("resp_1", { status: "cancelled", expireTime: T0 + 5000, previousResponseId: "resp_0" }));
    t.equal(await r.put(stored("resp_1", { ownerKeyId: "key_b", status: "hijacked" })), false, "another key's put changes nothing");
    t.equal((await r.get(mine, []))?.status, "cancelled");

    t.equal(await r.delete({ ...mine, ownerKeyId: "key_b" }), false, "another key's delete: nothing");
    t.equal(await r.delete({ ...mine, now: T0 + 5000 }), false, "an expired row is left to the sweep");
    t.equal(await r.delete(mine), true);
    t.equal(await r.delete(mine), false);

    for (const [id, expireTime] of [
      ["resp_e1", T0 + 10],
      ["resp_e2", T0 + 20],
      ["resp_e3", T0 + 30],
      ["resp_k", T0 + 100],
    ] as const) {
      await r.put(stored(id, { expireTime }));
    }
    t.equal(await r.deleteExpired(T0 + 30, 2), 2, "up to the limit");
    t.equal(await r.deleteExpired(T0 + 30, 10), 1, "the rest");
    t.equal(await r.deleteExpired(T0 + 30, 10), 0);
    t.ok(await r.get({ id: "resp_k", ownerKeyId: "key_a", now: T0 + 30 }, []), "the unexpired one is kept");
  });

  t.test("outbox", async (t) => {
    t.test("insertTask writes the task and its messages in one transaction", async (t) => {
      const s = await store(t);
      await s.outbox.insertTask(task("t_a"), [msg("m1", "t_a", 1), msg("m2", "t_a", 2, { lastError: "boom", attempts: 2 })]);
      t.same(core(await s.tasks.get("t_a")), task("t_a"));
      t.same(await s.outbox.listForTask("t_a"), [msg("m1", "t_a", 1), msg("m2", "t_a", 2, { lastError: "boom", attempts: 2 })]);
      await s.outbox.insertTask(task("t_none"), []);
      t.same(await s.outbox.listForTask("t_none"), []);
      await t.rejects(s.outbox.insertTask(task("t_b"), [msg("m3", "t_b", 1), msg("m1", "t_b", 2)]), "a duplicate message id fails the whole write");
      t.equal(await s.tasks.get("t_b"), undefined, "so the task is not written");
      t.same(await s.outbox.listForTask("t_b"), []);
      await t.rejects(s.outbox.insertTask(task("t_a"), [msg("m4", "t_a", 3)]), "a duplicate task id fails the whole write");
      t.equal((await s.outbox.listForTask("t_a")).length, 2, "so no message is added");
    });

    t.test("updateTask: version check and messages, atomically", async (t) => {
      const s = await store(t);
      await s.outbox.insertTask(task("t_a"), [msg("m1", "t_a", 1)]);
      const u = await s.outbox.updateTask("t_a", 1, { status: "IN_PROGRESS", data: { p: 1 } }, [msg("m2", "t_a", 2)]);
      t.match(u, { id: "t_a", version: 2, status: "IN_PROGRESS", data: { p: 1 } });
      t.same(await s.tasks.get("t_a"), u);
      t.same(ids(await s.outbox.listForTask("t_a")), ["m1", "m2"]);
      t.equal(await s.outbox.updateTask("t_a", 1, { status: "FAILURE", data: {} }, [msg("m3", "t_a", 3)]), undefined, "a stale version...");
      t.same(ids(await s.outbox.listForTask("t_a")), ["m1", "m2"], "...adds no message");
      t.equal(await s.outbox.updateTask("missing", 1, { status: "x", data: {} }, [msg("m4", "missing", 1)]), undefined);
      t.same(await s.outbox.listForTask("missing"), []);
      await t.rejects(s.outbox.updateTask("t_a", 2, { status: "SUCCESS", data: {} }, [msg("m1", "t_a", 3)]), "a failing message insert...");
      t.match(await s.tasks.get("t_a"), { version: 2, status: "IN_PROGRESS" }, "...rolls the task update back");
      t.same(await s.outbox.updateTask("t_a", 2, { status: "SUCCESS", data: {} }, []), await s.tasks.get("t_a"), "no messages is fine");
      const racing = await Promise.all(Array.from({ length: 8 }, (_, i) => s.outbox.updateTask("t_a", 3, { status: "X", data: { i } }, [msg(`r${i}`, "t_a", 10 + i)])));
      t.equal(racing.filter(Boolean).length, 1, "one concurrent writer wins");
      t.equal((await s.outbox.listForTask("t_a")).length, 3, "and only its message is written");
    });

    t.test("due: each task's lowest pending message when it is due, oldest first", async (t) => {
      const s = await store(t);
      await s.outbox.insertTask(task("t_a"), [msg("a1", "t_a", 1, { nextAttemptTime: T0 + 5 }), msg("a2", "t_a", 2, { nextAttemptTime: T0 })]);
      await s.outbox.insertTask(task("t_b"), [msg("b1", "t_b", 1, { nextAttemptTime: T0 + 2 }), msg("b2", "t_b", 2, { nextAttemptTime: T0 + 2 })]);
      await s.outbox.insertTask(task("t_c"), [msg("c1", "t_c", 1, { nextAttemptTime: T0 + 50 })]);
      await s.outbox.insertTask(task("t_d"), [msg("d1", "t_d", 1, { status: "delivered" }), msg("d2", "t_d", 2, { nextAttemptTime: T0 + 1 })]);
      await s.outbox.insertTask(task("t_e"), [msg("e1", "t_e", 1, { status: "dead" }), msg("e2", "t_e", 2, { status: "delivered" })]);
      t.same(ids(await s.outbox.due(T0 + 10, 100)), ["d2", "b1", "a1"], "a2 waits behind a1 although it is due; settled ones never block");
      t.same(ids(await s.outbox.due(T0 + 10, 2)), ["d2", "b1"], "limited");
      t.same(ids(await s.outbox.due(T0 + 1, 100)), ["d2"], "not yet due");
      t.same(await s.outbox.due(T0 - 1, 100), []);
      await s.outbox.settle("a1", { status: "delivered", attempts: 1, nextAttemptTime: T0 + 5, updateTime: T0 + 6 });
      await s.outbox.settle("b1", { status: "pending", attempts: 1, nextAttemptTime: T0 + 30, lastError: "HTTP 500", updateTime: T0 + 6 });
      t.same(ids(await s.outbox.due(T0 + 10, 100)), ["a2", "d2"], "a1 delivered releases a2; b1 retried later keeps b2 waiting");
      t.same(ids(await s.outbox.due(T0 + 100, 100)), ["a2", "d2", "b1", "c1"]);
    });

    t.test("settle records the outcome; listForTask is in seq order", async (t) => {
      const s = await store(t);
      await s.outbox.insertTask(task("t_a"), [msg("m3", "t_a", 3), msg("m1", "t_a", 1), msg("m2", "t_a", 2)]);
      await s.outbox.settle("m1", { status: "pending", attempts: 1, nextAttemptTime: T0 + 100, lastError: "timeout", updateTime: T0 + 1 });
      t.same((await s.outbox.listForTask("t_a"))[0], msg("m1", "t_a", 1, { attempts: 1, nextAttemptTime: T0 + 100, lastError: "timeout", updateTime: T0 + 1 }));
      await s.outbox.settle("m1", { status: "dead", attempts: 5, nextAttemptTime: T0 + 100, updateTime: T0 + 2 });
      const m1 = (await s.outbox.listForTask("t_a"))[0]!;
      t.equal(m1.status, "dead");
      t.equal(m1.lastError, undefined, "an undefined lastError clears it");
      t.same(ids(await s.outbox.listForTask("t_a")), ["m1", "m2", "m3"]);
      t.same(await s.outbox.listForTask("nope"), []);
      await t.resolves(s.outbox.settle("nope", { status: "delivered", attempts: 1, nextAttemptTime: 0, updateTime: 0 }));
    });

    t.test("deleteSettledBefore removes old delivered and dead messages, up to the limit", async (t) => {
      const s = await store(t);
      await s.outbox.insertTask(task("t_a"), [
        msg("m1", "t_a", 1, { status: "delivered", updateTime: T0 }),
        msg("m2", "t_a", 2, { status: "dead", updateTime: T0 + 1 }),
        msg("m3", "t_a", 3, { status: "delivered", updateTime: T0 + 2 }),
        msg("m4", "t_a", 4, { status: "delivered", updateTime: T0 + 10 }),
        msg("m5", "t_a", 5, { status: "pending", updateTime: T0 }),
      ]);
      t.equal(await s.outbox.deleteSettledBefore(T0 + 10, 2), 2, "limited");
      t.equal(await s.outbox.deleteSettledBefore(T0 + 10, 10), 1);
      t.same(ids(await s.outbox.listForTask("t_a")), ["m4", "m5"], "newer and pending ones stay");
      t.equal(await s.outbox.deleteSettledBefore(T0 + 10, 10), 0, "before is exclusive");
    });
  });

  t.test("taskAccounts", async (t) => {
    const s = await store(t);
    await s.taskAccounts.put({ kind: "image-bot", id: "acc_b", data: { disabled: true }, updateTime: T0 });
    await s.taskAccounts.put({ kind: "image-bot", id: "acc_a", data: { lastError: "x" }, updateTime: T0 });
    await s.taskAccounts.put({ kind: "video", id: "acc_a", data: { n: 1 }, updateTime: T0 });
    t.same(await s.taskAccounts.get("image-bot", "acc_b"), { kind: "image-bot", id: "acc_b", data: { disabled: true }, updateTime: T0 });
    t.equal(await s.taskAccounts.get("image-bot", "nope"), undefined);
    t.same(ids(await s.taskAccounts.list("image-bot")), ["acc_a", "acc_b"]);
    await s.taskAccounts.put({ kind: "image-bot", id: "acc_b", data: { disabled: false }, updateTime: T0 + 1 });
    t.same(await s.taskAccounts.get("image-bot", "acc_b"), { kind: "image-bot", id: "acc_b", data: { disabled: false }, updateTime: T0 + 1 }, "put replaces");
    t.same(await s.taskAccounts.list("video"), [{ kind: "video", id: "acc_a", data: { n: 1 }, updateTime: T0 }]);
    t.same(await s.taskAccounts.list("none"), []);
  });
}
