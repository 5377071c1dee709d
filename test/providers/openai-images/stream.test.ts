// Streamed generations and edits relayed from an OpenAI-compatible upstream,
// driven with the openai SDK: the upstream is asked for SSE with
// partial_images, its partial images pass through as they come, its completed
// images (and usage) arrive as the gateway's completed events; failures in the
// middle of the stream reach the client in the gateway's words; an upstream
// that does not stream, or fails before its first event, is handled.
import t from "tap";
import OpenAI, { toFile } from "openai";
import sharp from "sharp";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";
import { startFakeUpstream, UPSTREAM_KEY } from "./fake-upstream.js";

const fake = await startFakeUpstream();
t.teardown(() => fake.close());

const streamModels = ["stream-error", "stream-moderated", "stream-garbage", "stream-empty", "ignores-stream", "flaky-stream", "garbage", "rate"];
const aliases = { "gpt-image-1": "IMG_MODEL_C", "gpt-image-1-mini": "IMG_MODEL_D", ...Object.fromEntries(streamModels.map((m) => [m, "IMG_MODEL_C"])) };
const channel = (over: Record<string, unknown>) => ({ provider: "openai", baseUrl: fake.url + "/v1", apiKey: UPSTREAM_KEY, modelMap: {}, priority: 0, weight: 1, enabled: true, ...over });
const server = await startServer({
  config: {
    images: { aliases, urlTtlMs: 3_600_000, sweepIntervalMs: 60_000 },
    channels: [
      channel({ name: "main", models: ["gpt-image-1", "gpt-image-1-mini", "stream-error", "stream-moderated", "stream-garbage", "stream-empty", "ignores-stream", "garbage", "rate"] }),
      channel({ name: "unreachable", models: ["flaky-stream"], baseUrl: "http://127.0.0.1:9/v1", priority: 10 }),
      channel({ name: "fallback", models: ["flaky-stream"], priority: 1, modelMap: { "flaky-stream": "gpt-image-1" } }),
    ],
  } as never,
});
t.teardown(() => server.close());
const client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: server.baseUrl + "/v1", maxRetries: 0 });
const last = () => fake.requests[fake.requests.length - 1]!;

/** The usage of a completed event. */
const usageOf = (e: { type: string }) => (e as OpenAI.Images.ImageGenCompletedEvent).usage;

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

t.test("a streamed generation asks the upstream for SSE and relays its partial and completed images", async (t) => {
  const events = await collect(await client.images.generate({ model: "gpt-image-1", prompt: "a kite", quality: "low", stream: true, partial_images: 2 }));
  t.same(last().json, { model: "gpt-image-1", prompt: "a kite", n: 1, quality: "low", partial_images: 2, stream: true }, "stream and partial_images go up");
  t.same(
    events.map((e) => e.type),
    ["image_generation.partial_image", "image_generation.partial_image", "image_generation.completed"],
  );
  t.same(
    events.filter((e) => e.type === "image_generation.partial_image").map((e) => (e as { partial_image_index: number }).partial_image_index),
    [0, 1],
  );
  for (const e of events) t.ok(Buffer.from(e.b64_json, "base64").equals(fake.png), `${e.type}: the upstream's bytes`);
  const done = events[2]!;
  t.same(usageOf(done), { input_tokens: 5, input_tokens_details: { text_tokens: 3, image_tokens: 2 }, output_tokens: 40, total_tokens: 45 }, "the upstream's usage");
  t.equal(done.size, "48x32", "the size of what was made");
  t.equal(done.output_format, "png");
  t.equal(done.quality, "low");
});

t.test("n = 2: each upstream completed image is relayed, their usage added up on the last", async (t) => {
  const events = await collect(await client.images.generate({ model: "gpt-image-1", prompt: "two kites", n: 2, stream: true, partial_images: 1 }));
  t.same(
    events.map((e) => e.type),
    ["image_generation.partial_image", "image_generation.partial_image", "image_generation.completed", "image_generation.completed"],
  );
  t.equal(usageOf(events[2]!).total_tokens, 0, "the first completed event carries zeros");
  t.same(usageOf(events[3]!), { input_tokens: 10, input_tokens_details: { text_tokens: 6, image_tokens: 4 }, output_tokens: 80, total_tokens: 90 }, "the last one the sum");
});

t.test("a streamed edit goes up as multipart with stream=true and comes back as image_edit events", async (t) => {
  const png = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 0, g: 90, b: 0, alpha: 1 } } })
    .png()
    .toBuffer();
  const events = await collect(await client.images.edit({ model: "gpt-image-1", prompt: "snow", image: await toFile(png, "a.png", { type: "image/png" }), stream: true, partial_images: 3 }));
  const up = last();
  t.equal(up.path, "/v1/images/edits");
  const fields = Object.fromEntries(up.parts!.filter((p) => !p.filename).map((p) => [p.name, p.value]));
  t.same(fields, { model: "gpt-image-1", prompt: "snow", n: "1", partial_images: "3", stream: "true" });
  t.same(
    events.map((e) => e.type),
    ["image_edit.partial_image", "image_edit.partial_image", "image_edit.partial_image", "image_edit.completed"],
  );
});

t.test("an upstream that answers whole: one completed event, no partial images", async (t) => {
  const events = await collect(await client.images.generate({ model: "ignores-stream", prompt: "x", size: "1024x1024", stream: true, partial_images: 2 }));
  t.same(
    events.map((e) => e.type),
    ["image_generation.completed"],
  );
  t.ok(Buffer.from(events[0]!.b64_json, "base64").equals(fake.png));
});

t.test("a route that fails before its first event falls over to the next one", async (t) => {
  const events = await collect(await client.images.generate({ model: "flaky-stream", prompt: "x", size: "1024x1024", stream: true }));
  t.same(
    events.map((e) => e.type),
    ["image_generation.completed"],
  );
  t.equal(last().json?.model, "gpt-image-1", "served by the fallback channel");
});

t.test("failures in the middle of the stream reach the client as an error event in the gateway's words", async (t) => {
  const cases: Array<[string, string, string]> = [
    ["stream-error", "upstream_error", "server_error"],
    ["stream-moderated", "moderation_blocked", "image_generation_user_error"],
    ["stream-garbage", "upstream_bad_response", "server_error"],
    ["stream-empty", "upstream_bad_response", "server_error"],
  ];
  for (const [model, code, type] of cases) {
    const seen: string[] = [];
    const err = await (async () => {
      for await (const e of await client.images.generate({ model, prompt: "x", size: "1024x1024", stream: true, partial_images: 1 })) seen.push(e.type);
    })().catch((e: unknown) => e);
    t.ok(err instanceof OpenAI.APIError, `${model}: the SDK throws`);
    t.same(seen, ["image_generation.partial_image"], `${model}: after the partial image`);
    const e = err as InstanceType<typeof OpenAI.APIError>;
    t.equal(e.code, code, `${model}: code`);
    t.equal(e.type, type, `${model}: type`);
    t.notMatch(e.message, UPSTREAM_KEY, `${model}: no upstream text`);
    t.notMatch(e.message, /upstream broke/);
  }
});

t.test("failures before the first event keep their HTTP status", async (t) => {
  type APIError = InstanceType<typeof OpenAI.APIError>;
  const rate = (await client.images.generate({ model: "rate", prompt: "x", size: "1024x1024", stream: true }).catch((e: unknown) => e)) as APIError;
  t.equal(rate.status, 429, "an upstream 429");
  t.equal(rate.code, "rate_limit_exceeded");
  t.equal(rate.headers?.get("retry-after"), "7");
  const garbage = (await client.images.generate({ model: "garbage", prompt: "x", size: "1024x1024", stream: true }).catch((e: unknown) => e)) as APIError;
  t.equal(garbage.status, 503, "a 200 that is neither SSE nor JSON");
  t.equal(garbage.code, "upstream_bad_response");
});
