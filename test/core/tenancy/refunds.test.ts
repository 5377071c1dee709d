// A durable task is charged when it is accepted; if it then fails or is
// cancelled the charge goes back to the key. A remix reserves the worst case.
import t from "tap";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AdminService } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import { Status, VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";

const server = await startServer({
  config: {
    local: { blocklist: ["forbidden-topic"], chunkDelayMs: 0, signingSecret: "", faultInjection: true, taskMs: 3000 },
    imageBot: { tileSize: 32, pollIntervalMs: 50, accounts: [], bannedWords: [], translateModel: "" },
    prices: { chat: [], images: [], imageBot: { IMAGINE: 2 }, video: [{ model: "*", perSecond: 1 }] },
  } as never,
});
t.teardown(() => server.close());

const bearer = (k: string) => ({ headers: { authorization: `Bearer ${k}` } });
const admin = createClient(AdminService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function newKey(budget: number) {
  const c = await admin.createKey({ key: { name: "refund", budget } }, bearer(ADMIN_KEY));
  return { id: c.key!.id, secret: c.secret };
}
const spent = async (id: string) => (await admin.getKey({ id }, bearer(ADMIN_KEY))).key!.spent;
async function spentBecomes(id: string, want: number) {
  let v = await spent(id);
  for (let i = 0; i < 200 && v !== want; i++) {
    await sleep(25);
    v = await spent(id);
  }
  return v;
}
async function post(path: string, body: unknown, k: string) {
  const res = await fetch(server.baseUrl + path, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${k}` }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

t.test("a cancelled image-bot task gives its charge back", async (t) => {
  const k = await newKey(10);
  const sub = await post("/ib/submit/imagine", { prompt: "a slow fox" }, k.secret);
  t.equal(sub.body.code, 1);
  t.equal(await spent(k.id), 2, "charged on acceptance");
  const cancel = await post(`/ib/task/${sub.body.result as string}/cancel`, {}, k.secret);
  t.equal(cancel.status, 200);
  t.equal(await spentBecomes(k.id, 0), 0, "refunded after the cancel");
  const usage = await admin.queryUsage({ keyId: k.id }, bearer(ADMIN_KEY));
  t.equal(usage.totals?.credits, 0, "the usage totals net the refund");
  t.ok(usage.records.some((r) => r.status === "refund:cancel" && r.credits === -2));
});

t.test("a video that fails after it was accepted gives its charge back", async (t) => {
  const k = await newKey(10);
  const gen = await post("/v1/video/generations", { model: "kling-v1", prompt: "forbidden-topic on a boat", duration: 2, size: "160x90", fps: 4 }, k.secret);
  t.equal(gen.status, 200, "accepted");
  let status = "";
  for (let i = 0; i < 400 && status !== "failed"; i++) {
    await sleep(25);
    const res = await fetch(`${server.baseUrl}/v1/video/generations/${gen.body.task_id as string}`, { headers: { authorization: `Bearer ${k.secret}` } });
    status = ((await res.json()) as { status: string }).status;
  }
  t.equal(status, "failed");
  t.equal(await spentBecomes(k.id, 0), 0, "refunded");
  const usage = await admin.queryUsage({ keyId: k.id }, bearer(ADMIN_KEY));
  t.ok(
    usage.records.some((r) => r.status === "ok" && r.credits === 2),
    "it was charged 2 seconds when accepted",
  );
  t.ok(
    usage.records.some((r) => r.status === "refund:failure" && r.credits === -2),
    "and refunded when it failed",
  );
  t.equal(usage.totals?.credits, 0);
});

t.test("a video cancelled while it renders gives its charge back and stays, failed with code cancelled", async (t) => {
  const k = await newKey(10);
  const videos = createClient(VideoService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
  const v = (await videos.createVideo({ model: "kling-v1", prompt: "a slow boat", duration: 3, size: "160x90", fps: 4 }, bearer(k.secret))).video!;
  t.equal(await spent(k.id), 3, "charged 3 seconds on acceptance");
  const cancelled = (await videos.cancelVideo({ id: v.id }, bearer(k.secret))).video!;
  t.match({ status: cancelled.status, code: cancelled.error?.code, message: cancelled.error?.message }, { status: Status.FAILED, code: "cancelled", message: "cancelled by the client" });
  t.equal(await spentBecomes(k.id, 0), 0, "refunded after the cancel");
  const usage = await admin.queryUsage({ keyId: k.id }, bearer(ADMIN_KEY));
  t.ok(usage.records.some((r) => r.status === "refund:cancel" && r.credits === -3));
  await sleep(3200);
  const later = (await videos.getVideo({ id: v.id }, bearer(k.secret))).video!;
  t.same([later.status, later.error?.code, later.url], [Status.FAILED, "cancelled", ""], "it stays cancelled: the engine finishing late does not overwrite it");
});

t.test("a remix reserves the longest video at the dearest price", async (t) => {
  const k = await newKey(5);
  const res = await fetch(`${server.baseUrl}/v1/videos/video_unknown/remix`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${k.secret}` },
    body: JSON.stringify({ prompt: "at night" }),
  });
  t.equal(res.status, 403, "a budget of 5 cannot cover a 60-second worst case, so the budget can never be overdrawn by a remix");
  t.equal(await spent(k.id), 0);
});

t.test("a budget is spent to the last credit: every task it pays for is accepted, then code 25", async (t) => {
  const k = await newKey(6);
  const codes: unknown[] = [];
  for (let i = 0; i < 4; i++) codes.push((await post("/ib/submit/imagine", { prompt: `budget ${i}` }, k.secret)).body.code);
  t.same(
    codes.map((c) => (c === 22 ? 1 : c)),
    [1, 1, 1, 25],
    "6 credits buy three 2-credit tasks, no fewer",
  );
  t.equal(await spent(k.id), 6);
  const broke = await post("/ib/submit/imagine", { prompt: "one more" }, k.secret);
  t.same([broke.status, broke.body.code], [403, 25]);
});
