// The openai SDK (6.49) runs its whole videos workflow against the gateway's
// local engine, unchanged: create (multipart, as 6.49 sends it), retrieve
// until completed, list with pagination, downloadContent for all three
// variants, remix, delete; references as a file and as image_url; errors as
// the SDK's own classes. Plus the JSON create of older SDKs.
import t, { type Test } from "tap";
import OpenAI, { toFile } from "openai";
import sharp from "sharp";
import type { Video, VideoSeconds, VideoSize } from "openai/resources/videos";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";
import { auth, probeBytes, until } from "./helpers.js";

const TTL_MS = 24 * 3600 * 1000;
const server = await startServer({ config: { local: { blocklist: ["forbidden-topic"], chunkDelayMs: 0, signingSecret: "", faultInjection: true, taskMs: 200 } } });
t.teardown(() => server.close());
const client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: server.baseUrl + "/v1", maxRetries: 0 });

/** Small clips keep the suite fast; the SDK's types list only the official sizes and lengths. */
const tiny = { size: "160x90" as VideoSize, seconds: "1" as VideoSeconds };

/** Asserts that `p` rejects with an error matching `fields` (status, code, param). */
async function rejects(t: Test, p: PromiseLike<unknown>, fields: Record<string, unknown>, msg = "rejected as expected"): Promise<void> {
  try {
    await p;
    t.fail(msg);
  } catch (err) {
    t.match(err, fields, msg);
  }
}

async function completed(id: string, seen: Video[] = []): Promise<Video> {
  return until(
    async () => {
      const v = await client.videos.retrieve(id);
      seen.push(v);
      return v;
    },
    (v) => v.status === "completed" || v.status === "failed",
  );
}

t.test("create, retrieve until completed, download every variant", async (t) => {
  const created = await client.videos.create({ model: "sora-2", prompt: "A calico cat playing a piano on stage", seconds: "4", size: "720x1280" });
  t.match(created.id, /^video_[0-9a-f]{32}$/);
  t.equal(created.object, "video");
  t.equal(created.model, "sora-2");
  t.equal(created.prompt, "A calico cat playing a piano on stage");
  t.equal(created.seconds, "4");
  t.equal(created.size, "720x1280");
  t.ok(["queued", "in_progress"].includes(created.status));
  t.same([created.completed_at, created.expires_at, created.error, created.remixed_from_video_id], [null, null, null, null]);
  t.ok(Math.abs(created.created_at - Date.now() / 1000) < 60, "created_at is in seconds");

  const seen: Video[] = [];
  const done = await completed(created.id, seen);
  t.equal(done.status, "completed");
  t.equal(done.progress, 100);
  t.ok(
    seen.some((v) => v.status === "in_progress" && v.progress > 0 && v.progress < 100),
    "progress was visible while it ran",
  );
  const progress = seen.map((v) => v.progress);
  t.same(
    progress,
    [...progress].sort((a, b) => a - b),
    "progress never went down",
  );
  t.ok(done.completed_at! >= done.created_at);
  t.ok(Math.abs(done.expires_at! - (done.completed_at! + TTL_MS / 1000)) <= 2, "expires 24 hours after completion");

  const video = await client.videos.downloadContent(created.id);
  t.equal(video.headers.get("content-type"), "video/mp4");
  const facts = await probeBytes(new Uint8Array(await video.arrayBuffer()));
  t.same(facts, { format: "mp4", codec: "h264", width: 720, height: 1280, fps: 24, duration: 4, frames: 96 });

  const thumb = await client.videos.downloadContent(created.id, { variant: "thumbnail" });
  t.equal(thumb.headers.get("content-type"), "image/webp");
  const tm = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
  t.same([tm.format, tm.width! / tm.height!], ["webp", 720 / 1280], "the thumbnail is a frame of the video");

  const sprite = await client.videos.downloadContent(created.id, { variant: "spritesheet" });
  t.equal(sprite.headers.get("content-type"), "image/jpeg");
  const sm = await sharp(Buffer.from(await sprite.arrayBuffer())).metadata();
  t.same([sm.format, sm.width], ["jpeg", 5 * 160], "a grid five frames wide");
});

t.test("list pages with after/limit/order", async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await client.videos.create({ prompt: `list clip ${i}`, ...tiny })).id);
  const first = await client.videos.list({ limit: 2, order: "desc" });
  t.equal(first.data.length, 2);
  t.same(
    first.data.map((v) => v.id),
    [ids[2], ids[1]],
    "newest first",
  );
  t.equal(first.has_more, true);
  const all: string[] = [];
  for await (const v of client.videos.list({ limit: 2, order: "asc" })) all.push(v.id);
  t.same(all.slice(-3), ids, "the SDK pages with after=last_id to the end, oldest first");
  t.equal(new Set(all).size, all.length, "no video twice");
  const after = await client.videos.list({ after: ids[0], order: "asc", limit: 10 });
  t.same(
    after.data.map((v) => v.id),
    [ids[1], ids[2]],
  );
  await rejects(t, client.videos.list({ limit: 1000 }), { status: 400 });
  for (const id of ids) await completed(id);
});

t.test("remix a completed video", async (t) => {
  const parent = await client.videos.create({ prompt: "a quiet harbour at noon", ...tiny });
  await rejects(t, client.videos.remix(parent.id, { prompt: "at night" }), { status: 400, code: "video_not_ready" }, "only completed videos remix");
  await completed(parent.id);
  const remix = await client.videos.remix(parent.id, { prompt: "the same harbour at night" });
  t.equal(remix.remixed_from_video_id, parent.id);
  t.equal(remix.prompt, "the same harbour at night");
  t.same([remix.size, remix.seconds, remix.model], ["160x90", "1", "sora-2"], "a remix keeps its parent's size, length and model");
  const done = await completed(remix.id);
  t.equal(done.status, "completed");
  const a = Buffer.from(await (await client.videos.downloadContent(parent.id)).arrayBuffer());
  const b = Buffer.from(await (await client.videos.downloadContent(remix.id)).arrayBuffer());
  t.not(a.equals(b), true, "the remix is another video");
});

t.test("input_reference as a file and as image_url", async (t) => {
  const png = await sharp({ create: { width: 48, height: 27, channels: 3, background: { r: 10, g: 10, b: 240 } } })
    .png()
    .toBuffer();
  const withFile = await client.videos.create({ prompt: "from a blue frame", ...tiny, input_reference: await toFile(png, "blue.png", { type: "image/png" }) });
  t.equal((await completed(withFile.id)).status, "completed");
  const withUrl = await client.videos.create({ prompt: "from a data url", ...tiny, input_reference: { image_url: `data:image/png;base64,${png.toString("base64")}` } });
  t.equal((await completed(withUrl.id)).status, "completed");
  await rejects(t, client.videos.create({ prompt: "x", ...tiny, input_reference: await toFile(Buffer.from("not an image"), "x.png", { type: "image/png" }) }), {
    status: 400,
    code: "invalid_image",
    param: "input_reference",
  });
  await rejects(t, client.videos.create({ prompt: "x", ...tiny, input_reference: { file_id: "file_abc" } }), { status: 400, param: "input_reference" });
});

t.test("delete", async (t) => {
  const v = await client.videos.create({ prompt: "short lived", ...tiny });
  await completed(v.id);
  const res = await client.videos.delete(v.id);
  t.same(res, { id: v.id, object: "video.deleted", deleted: true });
  await rejects(t, client.videos.retrieve(v.id), { status: 404 });
  await rejects(t, client.videos.downloadContent(v.id), { status: 404 });
  const running = await client.videos.create({ prompt: "deleted while running", ...tiny });
  t.same(await client.videos.delete(running.id), { id: running.id, object: "video.deleted", deleted: true }, "a running video can be deleted too");
  await rejects(t, client.videos.delete(running.id), { status: 404 });
});

t.test("errors arrive as the SDK's error classes", async (t) => {
  await rejects(t, client.videos.create({ prompt: "", ...tiny }), { status: 400, param: "prompt", code: "missing_required_parameter" });
  await rejects(t, client.videos.create({ prompt: "x", size: "100x100x" as VideoSize }), { status: 400, param: "size" });
  await rejects(t, client.videos.create({ prompt: "x", seconds: "99" as VideoSeconds }), { status: 400, param: "seconds" });
  await rejects(t, client.videos.retrieve("video_doesnotexist"), { status: 404, code: "video_not_found" });
  const early = await client.videos.create({ prompt: "not yet", ...tiny });
  await rejects(t, client.videos.downloadContent(early.id), { status: 400, code: "video_not_ready" });
  const bad = new OpenAI({ apiKey: "sk-wrong", baseURL: server.baseUrl + "/v1", maxRetries: 0 });
  await rejects(t, bad.videos.list(), { status: 401 });
  const blocked = await client.videos.create({ prompt: "a forbidden-topic clip", ...tiny });
  const failed = await completed(blocked.id);
  t.equal(failed.status, "failed");
  t.same(failed.error, { code: "moderation_blocked", message: "Your request was blocked by our moderation system." });
  t.ok(failed.completed_at);
  t.equal(failed.expires_at, null);
  await rejects(t, client.videos.downloadContent(blocked.id), { status: 400, code: "video_not_ready" });
});

t.test("JSON create (older SDKs) and the same video through /v1/video/generations", async (t) => {
  const res = await fetch(`${server.baseUrl}/v1/videos`, {
    method: "POST",
    headers: { ...auth(ADMIN_KEY), "content-type": "application/json" },
    body: JSON.stringify({ model: "sora-2", prompt: "json create", seconds: "1", size: "160x90" }),
  });
  t.equal(res.status, 200);
  const v = (await res.json()) as Video;
  t.same([v.object, v.seconds, v.size], ["video", "1", "160x90"]);
  await completed(v.id);
  const task = (await (await fetch(`${server.baseUrl}/v1/video/generations/${v.id}`, { headers: auth(ADMIN_KEY) })).json()) as Record<string, unknown>;
  t.same([task.task_id, task.status], [v.id, "succeeded"]);
  const unknownField = await fetch(`${server.baseUrl}/v1/videos`, {
    method: "POST",
    headers: { ...auth(ADMIN_KEY), "content-type": "application/json" },
    body: JSON.stringify({ prompt: "x", colour: "red" }),
  });
  t.equal(unknownField.status, 400);
  t.match(await unknownField.json(), { error: { param: "colour", code: "unknown_parameter", type: "invalid_request_error" } });
  const noKey = await fetch(`${server.baseUrl}/v1/videos`);
  t.equal(noKey.status, 401);
  t.match(await noKey.json(), { error: { code: "invalid_api_key", type: "authentication_error" } });
});

t.test("the SDK's error classes", async (t) => {
  const err = await client.videos.retrieve("video_doesnotexist").catch((e: unknown) => e);
  t.ok(err instanceof OpenAI.NotFoundError, "NotFoundError");
  const bad = new OpenAI({ apiKey: "sk-wrong", baseURL: server.baseUrl + "/v1", maxRetries: 0 });
  t.ok((await bad.videos.retrieve("video_x").catch((e: unknown) => e)) instanceof OpenAI.AuthenticationError, "AuthenticationError");
  t.ok((await client.videos.create({ prompt: "" }).catch((e: unknown) => e)) instanceof OpenAI.BadRequestError, "BadRequestError");
});
