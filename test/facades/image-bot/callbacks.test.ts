// notifyHook callbacks over HTTP: the full task JSON on every status or
// progress change, in order, signed the Standard Webhooks way, retried after a
// failing receiver; the global hook; and the SSRF refusal without
// OMNIGATE_CALLBACK_ALLOW_PRIVATE.
import t from "tap";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook } from "../../../src/core/tasks/webhook-signing.js";
import { client, startIb } from "./ib-helpers.js";

const SECRET = "whsec_" + Buffer.from("callback-secret-of-32-bytes-long").toString("base64");

async function receiver(failFirst = 0) {
  const got: { headers: Record<string, string>; body: string }[] = [];
  let n = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      got.push({ headers: req.headers as Record<string, string>, body });
      res.statusCode = ++n <= failFirst ? 500 : 200;
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const until = async (cond: () => boolean, what: string) => {
  for (let i = 0; i < 800; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};

t.test("callbacks: order, signature, retries, stable ids", async (t) => {
  const rx = await receiver(2);
  const s = await startIb({ taskMs: 140, tasks: { callbackSecret: SECRET } });
  t.teardown(async () => {
    await s.close();
    await rx.close();
  });
  const ib = client(s);
  const sub = await ib.post("/submit/imagine", { prompt: "call me", notifyHook: rx.url, state: "cb-state" });
  const final = await ib.waitFor(sub.body.result);
  await until(() => rx.got.some((r) => JSON.parse(r.body).status === "SUCCESS"), "the SUCCESS callback");
  const bodies = rx.got.map((r) => JSON.parse(r.body));
  const delivered = bodies.slice(2);
  t.same(
    delivered.map((b) => `${b.status}:${b.progress}`),
    ["SUBMITTED:0%", "IN_PROGRESS:10%", "IN_PROGRESS:25%", "IN_PROGRESS:40%", "IN_PROGRESS:55%", "IN_PROGRESS:70%", "IN_PROGRESS:85%", "SUCCESS:100%"],
    "every change, in order, after two failed attempts of the first",
  );
  t.same(delivered.at(-1), final, "the body is the full task JSON, as fetch shows it");
  t.equal(delivered[0].state, "cb-state");
  t.equal(rx.got[0]!.headers["webhook-id"], rx.got[2]!.headers["webhook-id"], "the retried first message kept its webhook-id");
  t.equal(new Set(rx.got.slice(2).map((r) => r.headers["webhook-id"])).size, delivered.length, "one id per message");
  for (const r of rx.got) t.ok(verifyWebhook(SECRET, r.headers, r.body, Math.floor(Date.now() / 1000)), `signature of ${r.headers["webhook-id"]}`);
  t.notOk(verifyWebhook("whsec_" + Buffer.from("another-secret").toString("base64"), rx.got[3]!.headers, rx.got[3]!.body, Math.floor(Date.now() / 1000)));
});

t.test("the global hook serves tasks that give none", async (t) => {
  const rx = await receiver();
  const s = await startIb({ taskMs: 40, tasks: { notifyHook: rx.url } });
  t.teardown(async () => {
    await s.close();
    await rx.close();
  });
  const task = await client(s).run("/submit/imagine", { prompt: "global" });
  await until(() => rx.got.some((r) => JSON.parse(r.body).status === "SUCCESS"), "global callback");
  t.ok(rx.got.every((r) => JSON.parse(r.body).id === task.id));
  t.notOk(rx.got[0]!.headers["webhook-signature"], "unsigned without a secret");
  t.ok(rx.got[0]!.headers["webhook-id"]);
});

t.test("without ALLOW_PRIVATE: a loopback notifyHook is refused at submit, a loopback global hook is never called", async (t) => {
  const rx = await receiver();
  const s = await startIb({ taskMs: 40, tasks: { callbackAllowPrivate: false, notifyHook: rx.url } });
  t.teardown(async () => {
    await s.close();
    await rx.close();
  });
  const ib = client(s);
  for (const hook of [rx.url, "http://localhost:9/cb", "http://[::1]:9/cb", "http://169.254.169.254/latest/meta-data", "http://10.0.0.8/cb"]) {
    const r = await ib.post("/submit/imagine", { prompt: "x", notifyHook: hook });
    t.same(r, { status: 400, body: { code: 21, description: "notifyHook points to a private or loopback address", properties: {}, result: null } }, hook);
  }
  const task = await ib.run("/submit/imagine", { prompt: "global but private" });
  t.equal(task.status, "SUCCESS", "the refused callbacks do not affect the task");
  const outbox = await s.deps.storage.outbox.listForTask(task.id);
  t.ok(outbox.length > 0);
  for (let i = 0; i < 100 && (await s.deps.storage.outbox.listForTask(task.id)).some((m) => m.status === "pending"); i++) await new Promise((r) => setTimeout(r, 20));
  const settled = await s.deps.storage.outbox.listForTask(task.id);
  t.ok(
    settled.every((m) => m.status === "dead" && m.attempts === 1 && /^refused/.test(m.lastError ?? "")),
    "every message refused once, no retries",
  );
  t.equal(rx.got.length, 0, "the receiver never heard from the gateway");
});
