// openai 7 (pinned in test/clients/package.json) against the gateway's local
// engine, unchanged: every image model with the response format left out (as
// current code does) and with each one asked for, and streamed partial images
// for generations and edits.
import t from "tap";
import type OpenAI from "openai";
import sharp from "sharp";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";
import { installClients } from "./harness.js";

// openai 7 exists once the suite has installed it: imported after that.
await installClients();
const { default: OpenAIClient, toFile } = await import("openai");

let server: TestServer;
let client: OpenAI;
t.before(async () => {
  server = await startServer();
  client = new OpenAIClient({ apiKey: ADMIN_KEY, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
});
t.teardown(() => server?.close());

const MODELS = [
  { model: "dall-e-2", size: "256x256", fallback: "url" },
  { model: "dall-e-3", size: "1024x1024", fallback: "url" },
  { model: "gpt-image-1", size: "1024x1024", fallback: "b64_json" },
  { model: "gpt-image-1-mini", size: "1024x1024", fallback: "b64_json" },
] as const;

async function bytesOf(d: { url?: string | undefined; b64_json?: string | undefined }): Promise<Buffer> {
  if (d.b64_json) return Buffer.from(d.b64_json, "base64");
  const res = await fetch(d.url!);
  return Buffer.from(await res.arrayBuffer());
}

t.test("every model, the response format left out and each one asked for", async (t) => {
  for (const { model, size, fallback } of MODELS) {
    const plain = await client.images.generate({ model, prompt: "a lighthouse at dusk", size });
    const d = plain.data![0]!;
    t.ok(fallback === "url" ? d.url && !d.b64_json : d.b64_json && !d.url, `${model}: ${fallback} by default`);
    for (const format of ["url", "b64_json"] as const) {
      const asked = await client.images.generate({ model, prompt: "a lighthouse at dusk", size, response_format: format });
      const a = asked.data![0]!;
      t.ok(format === "url" ? a.url : a.b64_json, `${model}: ${format} when asked`);
      const meta = await sharp(await bytesOf(a)).metadata();
      t.equal(`${meta.width}x${meta.height}`, size, `${model}: ${format} is a real ${size} image`);
    }
  }
});

t.test("streamed partial images, generations and edits", async (t) => {
  for (const partial_images of [0, 1, 3]) {
    const stream = await client.images.generate({ model: "gpt-image-1", prompt: "a red fox", size: "1024x1024", quality: "low", stream: true, partial_images });
    const events = [];
    for await (const e of stream) events.push(e);
    t.same(
      events.map((e) => e.type),
      [...Array(partial_images).fill("image_generation.partial_image"), "image_generation.completed"],
      `${partial_images} previews, then the image`,
    );
    const done = events.at(-1)!;
    t.ok(done.type === "image_generation.completed" && done.usage.total_tokens > 0, "usage on the completed event");
    const meta = await sharp(Buffer.from(done.b64_json, "base64")).metadata();
    t.equal(meta.width, 1024);
  }
  const png = await sharp({ create: { width: 64, height: 64, channels: 4, background: "#3366ff" } })
    .png()
    .toBuffer();
  const edit = await client.images.edit({ model: "gpt-image-1", prompt: "make it warmer", image: await toFile(png, "in.png", { type: "image/png" }), stream: true, partial_images: 2 });
  const types = [];
  for await (const e of edit) types.push(e.type);
  t.same(types, ["image_edit.partial_image", "image_edit.partial_image", "image_edit.completed"], "an edit streams its own events");
  const refused = await client.images.generate({ model: "dall-e-3", prompt: "x", stream: true }).then(
    () => undefined,
    (e: unknown) => e as { status?: number; param?: string },
  );
  t.match(refused, { status: 400, param: "stream" }, "DALL-E models do not stream");
});
