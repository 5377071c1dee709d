// Both video interfaces through upstream channels (fake upstreams on
// loopback): an OpenAI-videos-compatible API for "sora-*" (model renamed by
// modelMap) and a remote /v1/video/generations gateway for "kling*". Results
// are re-hosted by the gateway, the Video reports the real file, remix uses
// the upstream's remix, upstream failures end as failed tasks with a code.
import t from "tap";
import OpenAI from "openai";
import type { VideoSeconds, VideoSize } from "openai/resources/videos";
import { channelSchema } from "../../../src/config.js";
import { fakeOpenAIVideos, clip, UPSTREAM_MARKER } from "../../providers/openai-videos/fake.js";
import { fakeVideoGateway } from "../../providers/video-gateway/fake.js";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";
import { auth, probeBytes, until } from "./helpers.js";

const sora = await fakeOpenAIVideos({ key: "sk-sora-upstream", pollsToFinish: 2 });
const gw = await fakeVideoGateway({ key: "gw-upstream", style: "omnigate" });
t.teardown(async () => {
  await sora.close();
  await gw.close();
});
const server = await startServer({
  config: {
    channels: [
      channelSchema.parse({ name: "sora-up", provider: "openai-videos", baseUrl: sora.baseUrl, apiKey: "sk-sora-upstream", models: ["sora-*"], modelMap: { "sora-2": "sora-2-pro" } }),
      channelSchema.parse({ name: "gw-up", provider: "video-gateway", baseUrl: gw.baseUrl, apiKey: "gw-upstream", models: ["kling*"] }),
    ],
    video: {
      concurrency: 2,
      channelConcurrency: 4,
      queueSize: 100,
      ttlMs: 3_600_000,
      timeoutMs: 60_000,
      pollMs: 10,
      maxPollMs: 40,
      maxBytes: 50 * 1024 * 1024,
      allowPrivateUrls: false,
      fontFile: "",
      notifyHook: "",
    },
  },
});
t.teardown(() => server.close());
const client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: server.baseUrl + "/v1", maxRetries: 0 });
const media = await clip();
const done = (id: string) =>
  until(
    () => client.videos.retrieve(id),
    (v) => v.status === "completed" || v.status === "failed",
  );
const task = async (id: string) => (await (await fetch(`${server.baseUrl}/v1/video/generations/${id}`, { headers: auth(ADMIN_KEY) })).json()) as Record<string, unknown>;

t.test("/v1/videos through an OpenAI-videos upstream, re-hosted", async (t) => {
  const v = await client.videos.create({ model: "sora-2", prompt: "a calico cat", seconds: "4", size: "720x1280" });
  const finished = await done(v.id);
  const create = sora.calls.find((c) => c.method === "POST" && c.path === "/v1/videos")!;
  t.same(create.fields, { model: "sora-2-pro", prompt: "a calico cat", seconds: "4", size: "720x1280" }, "modelMap renamed the model");
  t.equal(create.auth, "Bearer sk-sora-upstream", "the channel's key, not the client's");
  t.equal(finished.status, "completed");
  t.equal(finished.model, "sora-2", "clients keep seeing their model name");
  t.same([finished.size, finished.seconds], ["64x48", "1"], "the Video reports the file the upstream really made");
  const bytes = Buffer.from(await (await client.videos.downloadContent(v.id)).arrayBuffer());
  t.ok(bytes.equals(media.mp4), "the upstream's video, served by the gateway");
  const thumb = await client.videos.downloadContent(v.id, { variant: "thumbnail" });
  t.equal(thumb.headers.get("content-type"), "image/webp");
  t.ok(Buffer.from(await thumb.arrayBuffer()).equals(media.webp), "the upstream's own thumbnail");
  const g = await task(v.id);
  t.match(g.url, new RegExp(`^${server.baseUrl}/files/`), "the URL is the gateway's, not the upstream's");

  const remix = await client.videos.remix(v.id, { prompt: "at night" });
  t.equal((await done(remix.id)).status, "completed");
  const remixCall = sora.calls.find((c) => c.path.endsWith("/remix"))!;
  t.same([remixCall.path, remixCall.fields], ["/v1/videos/video_up1/remix", { prompt: "at night" }], "remixed on the upstream, by its id");
});

t.test("/v1/video/generations through a remote video gateway", async (t) => {
  const sub = (await (
    await fetch(`${server.baseUrl}/v1/video/generations`, {
      method: "POST",
      headers: { ...auth(ADMIN_KEY), "content-type": "application/json" },
      body: JSON.stringify({ model: "kling-v1", prompt: "a red fox", duration: 1, aspect_ratio: "16:9", seed: 9, metadata: { mode: "pro" } }),
    })
  ).json()) as { task_id: string };
  const finished = await until(
    () => task(sub.task_id),
    (x) => x.status !== "processing",
  );
  t.equal(finished.status, "succeeded");
  t.same(gw.calls[0]!.body, { model: "kling-v1", prompt: "a red fox", duration: 1, fps: 24, seed: 9, aspect_ratio: "16:9", metadata: { mode: "pro" } });
  t.same(finished.metadata, { duration: 1, fps: 4, height: 48, seed: 9, width: 80 }, "metadata of the real file");
  const file = await fetch(finished.url as string);
  t.equal(file.headers.get("content-type"), "video/mp4");
  t.match(await probeBytes(new Uint8Array(await file.arrayBuffer())), { width: 80, height: 48, fps: 4 });
  const sprite = await client.videos.downloadContent(sub.task_id, { variant: "spritesheet" });
  t.equal(sprite.headers.get("content-type"), "image/jpeg", "stills cut from the upstream's frames by the gateway");
});

t.test("upstream failures end as failed videos with a code", async (t) => {
  const tiny = { size: "160x90" as VideoSize, seconds: "1" as VideoSeconds };
  const blocked = await done((await client.videos.create({ model: "sora-2", prompt: "moderate me", ...tiny })).id);
  t.same([blocked.status, blocked.error?.code], ["failed", "moderation_blocked"]);
  const broken = await done((await client.videos.create({ model: "sora-2", prompt: "http-500", ...tiny })).id);
  t.same([broken.status, broken.error?.code], ["failed", "upstream_error"]);
  t.notMatch(broken.error?.message ?? "", /boom/, "the upstream's text stays in the log");
  const gwBlocked = await done((await client.videos.create({ model: "kling-v1", prompt: "moderate me", ...tiny })).id);
  t.same([gwBlocked.status, gwBlocked.error?.code], ["failed", "moderation_blocked"]);
  await t.rejects(client.videos.create({ model: "local-only", prompt: "x", ...tiny }), { status: 400, param: "model", code: "model_not_found" }, "no channel, no local engine once channels exist");
});

t.test("an upstream's failed video with its own code and text: the client sees only the gateway's words", async (t) => {
  const tiny = { size: "160x90" as VideoSize, seconds: "1" as VideoSeconds };
  for (const model of ["sora-2", "kling-v1"]) {
    const v = await done((await client.videos.create({ model, prompt: "leaky", ...tiny })).id);
    t.same([v.status, v.error?.code], ["failed", "video_generation_failed"], model);
    const seen = JSON.stringify([v, await task(v.id)]);
    t.notMatch(seen, UPSTREAM_MARKER, `${model}: no upstream string in either interface`);
  }
});
