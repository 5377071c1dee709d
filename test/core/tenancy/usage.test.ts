// Usage records for images, image-bot submits and video, written through the
// real facades: one record per request, with the images and seconds the
// responses report, the credits the key was charged, and failures as
// `error:<code>` with 0 credits. Totals agree with the responses and with the
// key's spent credits.
import t from "tap";
import OpenAI from "openai";
import { Code, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AdminService } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import type { UsageRecord } from "../../../src/storage/types.js";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";

const server = await startServer({
  config: {
    local: { blocklist: ["forbidden-topic"], chunkDelayMs: 0, signingSecret: "", faultInjection: true, taskMs: 100 },
    imageBot: { tileSize: 32, pollIntervalMs: 50, accounts: [], bannedWords: [], translateModel: "" },
    prices: { chat: [], images: [{ model: "dall-e-2", perImage: 0.5 }], imageBot: { IMAGINE: 2, UPSCALE: 1, "*": 3 }, video: [{ model: "*", perSecond: 0.25 }] },
  } as never,
});
t.teardown(() => server.close());

const bearer = (k: string) => ({ headers: { authorization: `Bearer ${k}` } });
const admin = createClient(AdminService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
const created = await admin.createKey({ key: { name: "metered", budget: 100 } }, bearer(ADMIN_KEY));
const key = created.secret;
const keyId = created.key!.id;
const openai = new OpenAI({ apiKey: key, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function post(path: string, body: unknown, k = key) {
  const res = await fetch(server.baseUrl + path, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${k}` }, body: JSON.stringify(body) });
  return { status: res.status, requestId: res.headers.get("request-id") ?? "", body: (await res.json()) as any };
}
async function get(path: string) {
  const res = await fetch(server.baseUrl + path, { headers: { authorization: `Bearer ${key}` } });
  return (await res.json()) as any;
}
async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await fn();
  for (let i = 0; i < 400 && !ok(v); i++) {
    await sleep(25);
    v = await fn();
  }
  return v;
}
/** The key's records, once `n` of them are written (records are written after the response). */
const records = (n: number) =>
  until(
    () => server.deps.storage.usage.query({ keyId }),
    (r) => r.rows.length >= n,
  );
const byRequest = (rows: UsageRecord[], id: string) => rows.find((r) => r.requestId === id);

const expected = { requests: 0, images: 0, seconds: 0, credits: 0 };

t.test("images: one record per request with the images produced and their price", async (t) => {
  const res = await openai.images.generate({ model: "dall-e-2", prompt: "two cats", n: 2, size: "256x256", response_format: "b64_json" }).withResponse();
  t.equal(res.data.data?.length, 2);
  const bad = await openai.images
    .generate({ model: "dall-e-2", prompt: "a forbidden-topic poster", size: "256x256" })
    .withResponse()
    .catch((e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
  t.type(bad, OpenAI.BadRequestError);
  const rows = (await records(2)).rows;
  const ok = byRequest(rows, res.response.headers.get("request-id")!);
  t.match(ok, { format: "images", model: "dall-e-2", channel: "local", images: 2, seconds: 0, credits: 1, status: "ok" });
  t.ok(ok!.latencyMs >= 0);
  const failed = byRequest(rows, (bad as InstanceType<typeof OpenAI.APIError>).headers?.get("request-id") ?? "");
  t.match(failed, { format: "images", model: "dall-e-2", channel: "local", images: 0, credits: 0, status: `error:${Code.InvalidArgument}` }, "a refused prompt");
  Object.assign(expected, { requests: 2, images: 2, credits: 1 });
});

t.test("image-bot: a record per submit, priced by its action; refused submits cost nothing", async (t) => {
  const imagine = await post("/ib/submit/imagine", { prompt: "a red fox" });
  t.equal(imagine.body.code, 1);
  const done = await until(
    () => get(`/ib/task/${imagine.body.result}/fetch`),
    (x) => x.status === "SUCCESS" || x.status === "FAILURE",
  );
  t.equal(done.status, "SUCCESS");
  const u1 = done.buttons.find((b: { customId: string }) => b.customId.includes("upsample::1"));
  const upscale = await post("/ib/submit/action", { taskId: done.id, customId: u1.customId });
  t.equal(upscale.body.code, 1);
  // With the only account disabled, a submit is answered 24 and charged nothing.
  const off = await post("/ib/account/local/update", { enabled: false }, ADMIN_KEY);
  t.equal(off.status, 200);
  const refused = await post("/ib/submit/imagine", { prompt: "nobody home" });
  t.equal(refused.body.code, 24);
  await post("/ib/account/local/update", { enabled: true }, ADMIN_KEY);
  const rows = (await records(5)).rows;
  t.match(byRequest(rows, imagine.requestId), { format: "image-bot", model: "IMAGINE", channel: "local", credits: 2, status: "ok" });
  t.match(byRequest(rows, upscale.requestId), { format: "image-bot", model: "UPSCALE", channel: "local", credits: 1, status: "ok" });
  t.match(byRequest(rows, refused.requestId), { format: "image-bot", model: "IMAGINE", credits: 0, status: "rejected:24" });
  expected.requests += 3;
  expected.credits += 3;
});

t.test("video: seconds as the responses say, for create and remix; failures cost nothing", async (t) => {
  const gen = await post("/v1/video/generations", { model: "kling-v1", prompt: "a calico cat", duration: 2, size: "160x90", fps: 4 });
  t.equal(gen.status, 200);
  const v = await openai.videos.create({ model: "sora-2", prompt: "a harbour", seconds: "1" as OpenAI.Videos.VideoSeconds, size: "160x90" as OpenAI.Videos.VideoSize }).withResponse();
  t.equal(v.data.seconds, "1");
  const early = await openai.videos.remix(v.data.id, { prompt: "at night" }).catch((e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
  t.type(early, OpenAI.BadRequestError, "a video that is not ready does not remix");
  await until(
    () => openai.videos.retrieve(v.data.id),
    (x) => x.status === "completed" || x.status === "failed",
  );
  const remix = await openai.videos.remix(v.data.id, { prompt: "at night" }).withResponse();
  t.equal(remix.data.seconds, "1");
  const rows = (await records(9)).rows;
  t.match(byRequest(rows, gen.requestId), { format: "video", model: "kling-v1", channel: "local", seconds: 2, credits: 0.5, status: "ok" });
  t.match(byRequest(rows, v.response.headers.get("request-id")!), { format: "video", model: "sora-2", channel: "local", seconds: 1, credits: 0.25, status: "ok" });
  t.match(byRequest(rows, (early as InstanceType<typeof OpenAI.APIError>).headers?.get("request-id") ?? ""), { format: "video", seconds: 0, credits: 0, status: `error:${Code.FailedPrecondition}` });
  t.match(byRequest(rows, remix.response.headers.get("request-id")!), { format: "video", model: "sora-2", seconds: 1, credits: 0.25, status: "ok" });
  expected.requests += 4;
  expected.seconds += 4;
  expected.credits += 1;
});

t.test("totals agree with the responses and with what the key was charged", async (t) => {
  const u = await admin.queryUsage({ keyId }, bearer(ADMIN_KEY));
  t.equal(Number(u.totals!.requests), expected.requests);
  t.equal(Number(u.totals!.images), expected.images);
  t.equal(u.totals!.seconds, expected.seconds);
  t.equal(u.totals!.credits, expected.credits);
  const k = await admin.getKey({ id: keyId }, bearer(ADMIN_KEY));
  t.equal(k.key!.spent, expected.credits, "the budget was charged exactly the recorded credits");
  const video = await admin.queryUsage({ keyId, format: "video" }, bearer(ADMIN_KEY));
  t.equal(Number(video.totals!.requests), 4);
});
