// The openai-videos provider against a fake OpenAI Videos API on loopback:
// multipart create with the channel key, polling with backoff until
// completed, downloads of all three variants, remix on the same upstream,
// resume from a saved upstream id, and failures mapped.
import t from "tap";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail } from "../../../src/core/errors.js";
import { silentLogger } from "../../../src/providers/shared/log.js";
import { openaiVideosClient } from "../../../src/providers/openai-videos/client.js";
import { openaiVideosProvider } from "../../../src/providers/openai-videos/provider.js";
import type { VideoJob } from "../../../src/core/ports.js";
import { fakeOpenAIVideos } from "./fake.js";

const KEY = "sk-upstream-123";
const fake = await fakeOpenAIVideos({ key: KEY });
t.teardown(() => fake.close());
const client = openaiVideosClient({ channel: "sora", baseUrl: fake.baseUrl, apiKey: KEY, maxBytes: 10 * 1024 * 1024, log: silentLogger });
t.teardown(() => client.close());
const provider = openaiVideosProvider(client, { firstMs: 5, maxMs: 20 });

const job = (over: Partial<VideoJob> = {}): VideoJob => ({
  taskId: "video_t",
  prompt: "a calico cat",
  upstreamModel: "sora-2",
  width: 720,
  height: 1280,
  duration: 4,
  fps: 24,
  seed: 3,
  given: { size: "720x1280", aspectRatio: "", duration: 4, fps: 0 },
  metadata: {},
  ...over,
});

/** The ConnectError a run ends with. */
async function failure(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error("the run succeeded");
}

function ctx() {
  const progress: number[] = [];
  const saved: Array<Record<string, unknown>> = [];
  return { progress, saved, ctx: { signal: new AbortController().signal, progress: async (p: number) => void progress.push(p), save: async (s: Record<string, unknown>) => void saved.push(s) } };
}

t.test("create, poll, download", async (t) => {
  const before = fake.calls.length;
  const c = ctx();
  const out = await provider.run(job({ reference: { data: new Uint8Array([137, 80, 78, 71]), mimeType: "image/png" } }), c.ctx);
  const calls = fake.calls.slice(before);
  const create = calls[0]!;
  t.equal(create.path, "/v1/videos");
  t.match(create.contentType, /^multipart\/form-data/);
  t.equal(create.auth, `Bearer ${KEY}`);
  t.same(create.fields, { model: "sora-2", prompt: "a calico cat", seconds: "4", size: "720x1280" });
  t.same(create.file, { field: "input_reference", name: "reference.png", type: "image/png", size: 4 });
  t.same(c.saved, [{ upstreamId: "video_up1" }], "the upstream id is saved before polling");
  t.ok(calls.filter((x) => x.method === "GET" && x.path === "/v1/videos/video_up1").length >= 2, "polled until completed");
  t.same(c.progress, [40], "upstream progress is reported");
  t.same(
    calls.filter((x) => x.path.includes("/content")).map((x) => x.path),
    ["/v1/videos/video_up1/content?variant=video", "/v1/videos/video_up1/content?variant=thumbnail", "/v1/videos/video_up1/content?variant=spritesheet"],
  );
  t.equal(out.video.mimeType, "video/mp4");
  t.equal(Buffer.from(out.video.data).subarray(4, 8).toString(), "ftyp", "real MP4 bytes");
  t.equal(out.thumbnail?.mimeType, "image/webp");
  t.equal(out.spritesheet?.mimeType, "image/jpeg");
  t.equal(out.upstreamId, "video_up1");
});

t.test("a remix of a video made here uses the upstream's remix", async (t) => {
  const before = fake.calls.length;
  const out = await provider.run(job({ prompt: "at night", remixOf: { prompt: "a calico cat", seed: 3, upstreamId: "video_up1" } }), ctx().ctx);
  const create = fake.calls[before]!;
  t.same([create.method, create.path, create.fields], ["POST", "/v1/videos/video_up1/remix", { prompt: "at night" }]);
  t.not(out.upstreamId, "video_up1");
});

t.test("a resumed job polls its saved upstream id instead of creating again", async (t) => {
  const first = await client.create({ fields: [["prompt", "resumed"]], files: [] }, new AbortController().signal);
  const before = fake.calls.length;
  const c = ctx();
  const out = await provider.run(job({ resume: { upstreamId: first.id } }), c.ctx);
  t.notOk(
    fake.calls.slice(before).some((x) => x.method === "POST"),
    "no second create",
  );
  t.same(c.saved, []);
  t.equal(out.upstreamId, first.id);
});

t.test("failures are mapped", async (t) => {
  const mod = await failure(provider.run(job({ prompt: "moderate me" }), ctx().ctx));
  t.same([mod.code, errorDetail(mod)?.reason], [Code.InvalidArgument, "moderation_blocked"]);
  t.notMatch(mod.rawMessage, /upstream says/, "the upstream's text is not passed on");
  const e500 = await failure(provider.run(job({ prompt: "http-500" }), ctx().ctx));
  t.same([e500.code, errorDetail(e500)?.reason], [Code.Internal, "upstream_error"]);
  const e400 = await failure(provider.run(job({ prompt: "http-400" }), ctx().ctx));
  t.same([e400.code, errorDetail(e400)?.reason], [Code.InvalidArgument, "upstream_invalid_request"]);
  const wrongKey = openaiVideosProvider(openaiVideosClient({ channel: "x", baseUrl: fake.baseUrl, apiKey: "sk-wrong", maxBytes: 1e6, log: silentLogger }), { firstMs: 1, maxMs: 1 });
  const auth = await failure(wrongKey.run(job(), ctx().ctx));
  t.same([auth.code, errorDetail(auth)?.reason], [Code.Internal, "upstream_auth"]);
  const tight = openaiVideosProvider(openaiVideosClient({ channel: "x", baseUrl: fake.baseUrl, apiKey: KEY, maxBytes: 1000, log: silentLogger }), { firstMs: 1, maxMs: 1 });
  const big = await failure(tight.run(job(), ctx().ctx));
  t.same([big.code, errorDetail(big)?.reason], [Code.Unavailable, "upstream_stream_truncated"], "a video over maxBytes is refused, not held");
  const dead = openaiVideosProvider(openaiVideosClient({ channel: "x", baseUrl: "http://127.0.0.1:9/v1", apiKey: KEY, maxBytes: 1e6, log: silentLogger }), { firstMs: 1, maxMs: 1 });
  const down = await failure(dead.run(job(), ctx().ctx));
  t.same([down.code, errorDetail(down)?.reason], [Code.Unavailable, "upstream_unavailable"]);
});

t.test("abort stops polling", async (t) => {
  const ac = new AbortController();
  const p = provider.run(job({ prompt: "slow" }), { signal: ac.signal, progress: async () => undefined, save: async () => undefined });
  setTimeout(() => ac.abort(new Error("stopped")), 60);
  await t.rejects(p);
});
