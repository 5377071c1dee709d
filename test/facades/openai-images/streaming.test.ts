// Streamed generations and edits on the local engine, read with the openai
// SDK (client.images.generate/edit with stream: true) and, for the framing,
// raw with eventsource-parser: partial_images previews that get sharper, then
// one completed event per image with usage, matching what the same request
// answers unstreamed.
import t from "tap";
import type OpenAI from "openai";
import sharp from "sharp";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ADMIN_KEY } from "../../helpers/app.js";
import { file, makePng, rawRgba, startImages } from "./helpers.js";

const env = await startImages();
t.teardown(() => env.server.close());
const { client } = env;

/** The usage of a completed event. */
const usageOf = (e: { type: string }) => (e as OpenAI.Images.ImageGenCompletedEvent).usage;

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** Mean absolute difference of two decoded images of the same size, per channel value. */
async function distance(a: Buffer, b: Buffer): Promise<number> {
  const [ra, rb] = [await rawRgba(a), await rawRgba(b)];
  let sum = 0;
  for (let i = 0; i < ra.data.length; i++) sum += Math.abs(ra.data[i]! - rb.data[i]!);
  return sum / ra.data.length;
}

// `seed` is a gateway extension the SDK's types do not know.
const params = { model: "gpt-image-1", prompt: "a lighthouse on a cliff", size: "1024x1024", quality: "low", seed: 3 } as OpenAI.Images.ImageGenerateParamsNonStreaming;
const streamed = (extra: Partial<OpenAI.Images.ImageGenerateParamsStreaming>) => client.images.generate({ ...params, ...extra, stream: true });

for (const partials of [0, 1, 2, 3]) {
  t.test(`generation with partial_images ${partials}: ${partials} previews, then one completed event with usage`, async (t) => {
    const events = await collect(await streamed({ partial_images: partials }));
    t.equal(events.length, partials + 1);
    const previews = events.slice(0, partials);
    const done = events[partials]!;
    t.same(
      previews.map((e) => [e.type, (e as { partial_image_index: number }).partial_image_index]),
      Array.from({ length: partials }, (_, i) => ["image_generation.partial_image", i]),
    );
    t.equal(done.type, "image_generation.completed");
    const whole = await client.images.generate(params);
    t.same(usageOf(done), whole.usage, "usage as the unstreamed call reports it");
    t.ok(usageOf(done).output_tokens > 0);
    const final = Buffer.from(done.b64_json, "base64");
    t.ok(final.equals(Buffer.from(whole.data![0]!.b64_json!, "base64")), "the same image as unstreamed");
    t.match(done, { background: "opaque", output_format: "png", quality: "low", size: "1024x1024" });
    t.type(done.created_at, "number");
    let before = Infinity;
    for (const p of previews) {
      t.match(p, { background: "opaque", output_format: "png", quality: "low", size: "1024x1024" });
      const bytes = Buffer.from(p.b64_json, "base64");
      const meta = await sharp(bytes).metadata();
      t.same([meta.format, meta.width, meta.height], ["png", 1024, 1024], "a preview of the final size and format");
      const d = await distance(bytes, final);
      t.ok(d > 0 && d < before, `preview ${(p as { partial_image_index: number }).partial_image_index} is closer to the final image (${d.toFixed(2)})`);
      before = d;
    }
  });
}

t.test("previews are deterministic", async (t) => {
  const a = await collect(await streamed({ partial_images: 2 }));
  const b = await collect(await streamed({ partial_images: 2 }));
  t.same(
    a.map((e) => e.b64_json),
    b.map((e) => e.b64_json),
  );
});

t.test("gpt-image-1-mini: previews and result in the output format; usage zeros (the model reports none)", async (t) => {
  const events = await collect(
    await client.images.generate({
      model: "gpt-image-1-mini",
      prompt: "a red kite",
      size: "1024x1024",
      quality: "low",
      output_format: "jpeg",
      output_compression: 40,
      stream: true,
      partial_images: 1,
    }),
  );
  t.same(
    events.map((e) => e.type),
    ["image_generation.partial_image", "image_generation.completed"],
  );
  for (const e of events) {
    t.equal(e.output_format, "jpeg");
    t.equal((await sharp(Buffer.from(e.b64_json, "base64")).metadata()).format, "jpeg", `${e.type} is a jpeg`);
  }
  t.same(usageOf(events[1]!), { input_tokens: 0, input_tokens_details: { text_tokens: 0, image_tokens: 0 }, output_tokens: 0, total_tokens: 0 });
});

t.test("transparent background: previews and result keep the transparency", async (t) => {
  const events = await collect(
    await client.images.generate({ model: "gpt-image-1", prompt: "a balloon", size: "1024x1024", quality: "low", background: "transparent", output_format: "webp", stream: true, partial_images: 2 }),
  );
  for (const e of events) {
    t.equal(e.background, "transparent");
    const alpha = (await sharp(Buffer.from(e.b64_json, "base64")).ensureAlpha().stats()).channels[3]!;
    t.equal(alpha.min, 0, `${e.type}: transparent pixels`);
  }
});

t.test("n = 2: previews and a completed event per image; the request's usage on the last", async (t) => {
  const events = await collect(await streamed({ n: 2, partial_images: 1 }));
  t.same(
    events.map((e) => e.type),
    ["image_generation.partial_image", "image_generation.partial_image", "image_generation.completed", "image_generation.completed"],
  );
  const whole = await client.images.generate({ ...params, n: 2 });
  t.equal(usageOf(events[2]!).total_tokens, 0);
  t.same(usageOf(events[3]!), whole.usage);
  t.ok(Buffer.from(events[2]!.b64_json, "base64").equals(Buffer.from(whole.data![0]!.b64_json!, "base64")));
  t.ok(Buffer.from(events[3]!.b64_json, "base64").equals(Buffer.from(whole.data![1]!.b64_json!, "base64")));
});

t.test("a streamed edit: image_edit events; without a model, streaming selects IMG_MODEL_C", async (t) => {
  const hole = await makePng(64, 64, { hole: true });
  const events = await collect(await client.images.edit({ image: await file(hole, "a.png"), prompt: "a sun", quality: "low", stream: true, partial_images: 2 }));
  t.same(
    events.map((e) => e.type),
    ["image_edit.partial_image", "image_edit.partial_image", "image_edit.completed"],
  );
  const done = events[2]!;
  t.equal(done.size, "64x64", "auto size: the input's");
  t.ok(usageOf(done).input_tokens_details.image_tokens > 0, "the input image counts");
  const meta = await sharp(Buffer.from(done.b64_json, "base64")).metadata();
  t.same([meta.width, meta.height], [64, 64]);
});

t.test("the raw stream: text/event-stream, an event line naming each data's type, errors before the 200 keep their status", async (t) => {
  const res = await fetch(env.server.baseUrl + "/v1/images/generations", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ ...params, stream: true, partial_images: 1 }),
  });
  t.equal(res.status, 200);
  t.match(res.headers.get("content-type"), /^text\/event-stream/);
  const messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => messages.push(e) });
  parser.feed(await res.text());
  t.same(
    messages.map((m) => m.event),
    ["image_generation.partial_image", "image_generation.completed"],
  );
  for (const m of messages) t.equal(JSON.parse(m.data).type, m.event);

  const refused = await fetch(env.server.baseUrl + "/v1/images/generations", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "dall-e-3", prompt: "x", stream: true }),
  });
  t.equal(refused.status, 400);
  t.same(await refused.json(), {
    error: { message: "Unsupported value: 'stream' does not support true with this model. Supported values are: false.", type: "invalid_request_error", param: "stream", code: "unsupported_value" },
  });
  const blocked = (await client.images.generate({ model: "gpt-image-1", prompt: "forbidden-topic", stream: true }).catch((e: unknown) => e)) as { status: number; code: string };
  t.equal(blocked.status, 400, "a refusal before the first event is a 400");
  t.equal(blocked.code, "moderation_blocked");
});
