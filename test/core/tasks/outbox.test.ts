// Callbacks from the durable outbox: order per task, retries with backoff
// after a failing receiver, Standard Webhooks signatures with a stable
// webhook-id, and the SSRF refusal.
import t from "tap";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { backoffMs } from "../../../src/core/tasks/outbox.js";
import { TaskRunner } from "../../../src/core/tasks/runner.js";
import type { ExecContext, TaskHandler } from "../../../src/core/tasks/types.js";
import { verifyWebhook } from "../../../src/core/tasks/webhook-signing.js";
import { webhookSender } from "../../../src/core/tasks/webhook-sender.js";
import { isPrivateAddress } from "../../../src/core/tasks/ssrf.js";
import { hostname } from "node:os";
import { lookup } from "node:dns/promises";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import { tempDir } from "../../helpers/app.js";

interface Received {
  headers: Record<string, string>;
  body: string;
}

async function receiver(failFirst = 0) {
  const got: Received[] = [];
  let calls = 0;
  const server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      calls++;
      got.push({ headers: req.headers as Record<string, string>, body });
      res.statusCode = calls <= failFirst ? 503 : 204;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { got, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const steps: TaskHandler<{ steps: number[] }> = {
  kind: "cb",
  async execute(task, ctx: ExecContext<{ steps: number[] }>) {
    for (const p of task.payload.steps) await ctx.progress(p);
    return task.payload;
  },
  callbackBody: (task) => JSON.stringify({ id: task.id, status: task.run.status, progress: task.run.progress }),
};

function runnerFor(dir: string, opts: { allowPrivate: boolean; secret?: string; attempts?: number }) {
  const storage = openSqliteStorage(dir);
  const runner = new TaskRunner({
    storage,
    now: Date.now,
    timeoutMs: 60_000,
    sweepIntervalMs: 0,
    callbacks: { secret: opts.secret ?? "", allowPrivate: opts.allowPrivate, timeoutMs: 2000, maxAttempts: opts.attempts ?? 5, baseDelayMs: 20, maxDelayMs: 100, pollMs: 20, concurrency: 4 },
  });
  runner.register(steps);
  runner.defineQueue("q", { concurrency: 4, queueSize: 10 });
  return { storage, runner };
}

const until = async (cond: () => Promise<boolean> | boolean, what: string) => {
  for (let i = 0; i < 500; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};

t.test("backoff doubles from the base up to the cap", async (t) => {
  t.same(
    [1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, 100, 1000)),
    [100, 200, 400, 800, 1000, 1000],
  );
});

t.test("every change is delivered in order, signed, with a stable id per message across retries", async (t) => {
  const rx = await receiver(2);
  const { storage, runner } = runnerFor(tempDir(), { allowPrivate: true, secret: "whsec_" + Buffer.from("k".repeat(24)).toString("base64") });
  await runner.start();
  t.teardown(async () => {
    await runner.stop();
    await storage.close();
    await rx.close();
  });
  await runner.create({ id: "t1", kind: "cb", status: "NOT_START", queue: "q", notifyHook: rx.url, payload: { steps: [25, 60] } });
  await until(async () => (await storage.outbox.listForTask("t1")).filter((m) => m.status === "delivered").length === 4, "4 deliveries");
  const delivered = rx.got.filter((_, i) => i >= 2);
  t.same(
    delivered.map((r) => JSON.parse(r.body)),
    [
      { id: "t1", status: "SUBMITTED", progress: 0 },
      { id: "t1", status: "IN_PROGRESS", progress: 25 },
      { id: "t1", status: "IN_PROGRESS", progress: 60 },
      { id: "t1", status: "SUCCESS", progress: 100 },
    ],
    "in order, after the receiver recovered",
  );
  t.equal(rx.got[0]!.headers["webhook-id"], rx.got[1]!.headers["webhook-id"], "a retried message keeps its webhook-id");
  t.equal(rx.got[1]!.headers["webhook-id"], rx.got[2]!.headers["webhook-id"], "and the successful attempt too");
  t.equal(new Set(delivered.map((r) => r.headers["webhook-id"])).size, 4, "each message has its own id");
  for (const r of rx.got) {
    t.ok(verifyWebhook("whsec_" + Buffer.from("k".repeat(24)).toString("base64"), r.headers, r.body, Math.floor(Date.now() / 1000)), "signature verifies");
    t.equal(r.headers["content-type"], "application/json");
  }
  const first = (await storage.outbox.listForTask("t1"))[0]!;
  t.equal(first.attempts, 3, "two failures, then success");
  t.equal((await runner.get("t1"))!.run.status, "SUCCESS", "the failing receiver did not affect the task");
});

t.test("a receiver that never recovers: the message goes dead after the attempts, the next one follows", async (t) => {
  const rx = await receiver(1000);
  const { storage, runner } = runnerFor(tempDir(), { allowPrivate: true, attempts: 2 });
  await runner.start();
  t.teardown(async () => {
    await runner.stop();
    await storage.close();
    await rx.close();
  });
  await runner.create({ id: "t2", kind: "cb", status: "NOT_START", queue: "q", notifyHook: rx.url, payload: { steps: [] } });
  await until(async () => (await storage.outbox.listForTask("t2")).every((m) => m.status === "dead") && (await storage.outbox.listForTask("t2")).length === 2, "both dead");
  const msgs = await storage.outbox.listForTask("t2");
  t.same(
    msgs.map((m) => [m.seq, m.status, m.attempts, m.lastError]),
    [
      [1, "dead", 2, "receiver answered HTTP 503"],
      [2, "dead", 2, "receiver answered HTTP 503"],
    ],
  );
  t.equal(rx.got.length, 4);
  t.equal(JSON.parse(rx.got[2]!.body).status, "SUCCESS", "the second message waited for the first to be given up");
});

t.test("without ALLOW_PRIVATE, a loopback receiver is never called", async (t) => {
  const rx = await receiver();
  const { storage, runner } = runnerFor(tempDir(), { allowPrivate: false });
  await runner.start();
  t.teardown(async () => {
    await runner.stop();
    await storage.close();
    await rx.close();
  });
  await runner.create({ id: "t3", kind: "cb", status: "NOT_START", queue: "q", notifyHook: rx.url, payload: { steps: [] } });
  await until(async () => (await storage.outbox.listForTask("t3")).length === 2 && (await storage.outbox.listForTask("t3")).every((m) => m.status === "dead"), "refused");
  const msgs = await storage.outbox.listForTask("t3");
  t.same(
    msgs.map((m) => [m.attempts, m.lastError]),
    [
      [1, "refused: the callback URL points to a private or loopback address"],
      [1, "refused: the callback URL points to a private or loopback address"],
    ],
    "refused at once, no retries",
  );
  t.equal(rx.got.length, 0);
});

t.test("a host name that resolves to a private address is refused at connection time", async (t) => {
  const rx = await receiver();
  t.teardown(() => rx.close());
  const host = hostname();
  const addrs = await lookup(host, { all: true }).catch(() => []);
  if (addrs.length === 0 || !addrs.every((a) => isPrivateAddress(a.address))) {
    t.comment(`${host} does not resolve to private addresses here; nothing to check`);
    return;
  }
  const sender = webhookSender({ secret: "", allowPrivate: false, timeoutMs: 2000 });
  t.teardown(() => sender.close());
  const out = await sender.send({ id: "msg_x", url: rx.url.replace("127.0.0.1", host), body: "{}" }, Date.now());
  t.same(out, { ok: false, retry: false, error: "refused: the callback host resolves to a private or loopback address" });
  t.equal(rx.got.length, 0);
});
