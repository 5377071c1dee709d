// POST and GET /v1/video/generations against a real gateway with the local
// engine: the task of spec 2.7 from processing to succeeded with a URL whose
// file ffprobe confirms (duration, fps, size), failed tasks with their error,
// the same task through /v1/videos, and every error status in spec 7.6's body.
import t from "tap";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import sharp from "sharp";
import { AdminService } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";
import { auth, probeBytes, until } from "./helpers.js";

const server = await startServer({ config: { local: { blocklist: ["forbidden-topic"], chunkDelayMs: 0, signingSecret: "", faultInjection: true, taskMs: 150 } } });
t.teardown(() => server.close());
const base = server.baseUrl;

async function post(body: unknown, key: string | null = ADMIN_KEY, raw?: string) {
  const res = await fetch(`${base}/v1/video/generations`, { method: "POST", headers: { "content-type": "application/json", ...(key ? auth(key) : {}) }, body: raw ?? JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
async function get(id: string, key: string | null = ADMIN_KEY) {
  const res = await fetch(`${base}/v1/video/generations/${id}`, { headers: key ? auth(key) : {} });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const finished = (id: string) =>
  until(
    () => get(id),
    (r) => r.body.status !== "processing",
  );

async function newKey(key: Record<string, unknown>): Promise<string> {
  const admin = createClient(AdminService, createConnectTransport({ baseUrl: base, httpVersion: "1.1" }));
  const res = await admin.createKey({ key: { name: "video-test", ...key } }, { headers: auth(ADMIN_KEY) });
  return res.secret;
}

t.test("submit, poll to succeeded, and the file is what the metadata says", async (t) => {
  const sub = await post({ model: "kling-v1", prompt: "a calico cat on a skateboard", duration: 2, size: "160x90", fps: 8, seed: 1234 });
  t.equal(sub.status, 200);
  t.same(Object.keys(sub.body).sort(), ["status", "task_id"]);
  t.match(sub.body.task_id, /^video_[0-9a-f]{32}$/);
  t.equal(sub.body.status, "processing");
  const id = sub.body.task_id as string;

  const first = await get(id);
  t.equal(first.status, 200);
  t.equal(first.body.status, "processing");
  t.notOk("url" in first.body, "no url while processing");
  t.equal(first.body.error, null);

  const done = await finished(id);
  t.equal(done.body.status, "succeeded");
  t.equal(done.body.format, "mp4");
  t.equal(done.body.error, null);
  t.same(done.body.metadata, { duration: 2, fps: 8, height: 90, seed: 1234, width: 160 });
  for (const v of Object.values(done.body.metadata as Record<string, number>)) t.ok(Number.isInteger(v), "metadata values are integers");
  t.match(done.body.url, new RegExp(`^${base}/files/file_[0-9a-f]{32}\\?exp=\\d+&sig=[0-9a-f]{64}$`));

  const file = await fetch(done.body.url as string);
  t.equal(file.status, 200);
  t.equal(file.headers.get("content-type"), "video/mp4");
  const facts = await probeBytes(new Uint8Array(await file.arrayBuffer()));
  t.same(facts, { format: "mp4", codec: "h264", width: 160, height: 90, fps: 8, duration: 2, frames: 16 }, "ffprobe agrees with the metadata");

  const viaOpenAI = await fetch(`${base}/v1/videos/${id}`, { headers: auth(ADMIN_KEY) });
  const v = (await viaOpenAI.json()) as Record<string, unknown>;
  t.same([v.id, v.status, v.seconds, v.size, v.model, v.prompt], [id, "completed", "2", "160x90", "kling-v1", "a calico cat on a skateboard"], "the same task through /v1/videos");
});

t.test("aspect ratio, an image data URL, defaults", async (t) => {
  const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 0, g: 200, b: 0 } } })
    .png()
    .toBuffer();
  const sub = await post({ prompt: "a field", aspect_ratio: "1:1", duration: 1, fps: 4, image: `data:image/png;base64,${png.toString("base64")}` });
  t.equal(sub.status, 200);
  const done = await finished(sub.body.task_id as string);
  t.equal(done.body.status, "succeeded");
  t.match(done.body.metadata, { duration: 1, fps: 4, width: 720, height: 720 });
  t.ok(Number.isInteger((done.body.metadata as { seed: number }).seed), "a drawn seed is reported");
});

t.test("a task the engine refuses ends failed with its error", async (t) => {
  const sub = await post({ prompt: "about forbidden-topic", size: "160x90", duration: 1, fps: 4 });
  t.equal(sub.status, 200);
  const done = await finished(sub.body.task_id as string);
  t.equal(done.body.status, "failed");
  t.same(done.body.error, { code: "moderation_blocked", message: "Your request was blocked by our moderation system." });
  t.notOk("url" in done.body);
});

t.test("400: every bad request, in spec 7.6's body", async (t) => {
  const cases: Array<[unknown, string, string]> = [
    [{}, "prompt", "missing_required_parameter"],
    [{ prompt: "" }, "prompt", "missing_required_parameter"],
    [{ prompt: "x", size: "wide" }, "size", "invalid_value"],
    [{ prompt: "x", size: "161x90" }, "size", "invalid_value"],
    [{ prompt: "x", aspect_ratio: "9:1" }, "aspect_ratio", "invalid_value"],
    [{ prompt: "x", duration: 600 }, "duration", "invalid_value"],
    [{ prompt: "x", duration: "soon" }, "duration", "invalid_type"],
    [{ prompt: "x", fps: 500 }, "fps", "invalid_value"],
    [{ prompt: "x", colour: "red" }, "colour", "unknown_parameter"],
    [{ prompt: "x", image: "ftp://example.com/a.png" }, "image", "invalid_image"],
    [{ prompt: "x", image: "data:image/png;base64,bm90IGFuIGltYWdl" }, "image", "invalid_image"],
    [{ prompt: "x", image: "http://127.0.0.1/a.png" }, "image", "invalid_image"],
  ];
  for (const [body, param, code] of cases) {
    const r = await post(body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.match(r.body, { code, param, type: "invalid_request_error", message: String });
    t.same(Object.keys(r.body).sort(), ["code", "message", "param", "type"]);
  }
  const badJson = await post(null, ADMIN_KEY, "{not json");
  t.same([badJson.status, badJson.body.code, badJson.body.type], [400, "invalid_json", "invalid_request_error"]);
  const badId = await get("bad id!");
  t.same([badId.status, badId.body.param, badId.body.type], [400, "task_id", "invalid_request_error"]);
});

t.test("401: no key or a wrong key, on both methods", async (t) => {
  for (const r of [await post({ prompt: "x" }, null), await post({ prompt: "x" }, "sk-wrong"), await get("video_0", null), await get("video_0", "sk-wrong")]) {
    t.equal(r.status, 401);
    t.match(r.body, { code: "invalid_api_key", type: "authentication_error", param: "", message: String });
  }
});

t.test("403: a key without the video format, or without the model", async (t) => {
  const imagesOnly = await newKey({ formats: ["images"] });
  const p = await post({ prompt: "x" }, imagesOnly);
  t.same([p.status, p.body.code, p.body.type], [403, "format_not_allowed", "permission_error"]);
  const g = await get("video_0", imagesOnly);
  t.equal(g.status, 403);
  const otherModels = await newKey({ models: ["veo-*"] });
  const m = await post({ prompt: "x", model: "sora-2" }, otherModels);
  t.same([m.status, m.body.code], [403, "model_not_allowed"]);
});

t.test("404: an unknown task, or another key's task", async (t) => {
  const r = await get("video_00000000000000000000000000000000");
  t.same([r.status, r.body.code, r.body.type], [404, "video_not_found", "not_found_error"]);
  const mine = await post({ prompt: "mine", size: "160x90", duration: 1, fps: 4 });
  const other = await newKey({});
  const theirs = await get(mine.body.task_id as string, other);
  t.equal(theirs.status, 404, "another key cannot see it");
  const unknownPath = await fetch(`${base}/v1/video/generations/a/b`, { headers: auth(ADMIN_KEY) });
  t.equal(unknownPath.status, 404);
  t.match(await unknownPath.json(), { code: "unknown_url", type: "not_found_error" });
});

t.test("429 and 500: engine faults at submission, and an unreadable stored task", async (t) => {
  const limited = await post({ prompt: "x #fault:rate_limit" });
  t.same([limited.status, limited.body.type], [429, "rate_limit_error"]);
  const internal = await post({ prompt: "x #fault:internal" });
  t.equal(internal.status, 500);
  t.same(internal.body, { code: null, message: "The server had an error while processing your request.", param: "", type: "server_error" });

  const sub = await post({ prompt: "to be corrupted", size: "160x90", duration: 1, fps: 4 });
  const id = sub.body.task_id as string;
  await finished(id);
  const rec = (await server.deps.storage.tasks.get(id))!;
  await server.deps.storage.tasks.update(id, rec.version, { status: rec.status, data: { garbage: true } });
  const broken = await get(id);
  t.equal(broken.status, 500);
  t.same(broken.body, { code: null, message: "The server had an error while processing your request.", param: "", type: "server_error" });
});
