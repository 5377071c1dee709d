// Response formats and output settings through the openai SDK: every image
// model with the default and each explicit response_format (the GPT image
// models answer b64_json unless url is asked for, the DALL-E models url), and
// output_format, output_compression and background really applied to the
// bytes (decoded with sharp).
import t from "tap";
import sharp from "sharp";
import { ADMIN_KEY } from "../../helpers/app.js";
import { fetchBytes, file, makePng, startImages } from "./helpers.js";

const env = await startImages();
t.teardown(() => env.server.close());
const { client } = env;

const models = [
  { model: "dall-e-2", size: "256x256", byDefault: "url" },
  { model: "dall-e-3", size: "1024x1024", byDefault: "url" },
  { model: "gpt-image-1", size: "1024x1024", byDefault: "b64_json" },
  { model: "gpt-image-1-mini", size: "1024x1024", byDefault: "b64_json" },
] as const;

/** The image bytes of a response's first entry, wherever they are. */
async function bytesOf(d: { url?: string; b64_json?: string }): Promise<Buffer> {
  if (d.b64_json) return Buffer.from(d.b64_json, "base64");
  const got = await fetchBytes(d.url!);
  t.equal(got.status, 200);
  return got.bytes;
}

for (const m of models) {
  for (const asked of [undefined, "url", "b64_json"] as const) {
    t.test(`${m.model}, response_format ${asked ?? "unset"}`, async (t) => {
      const body = await client.images.generate({ model: m.model, prompt: "a lighthouse", size: m.size as never, ...(asked ? { response_format: asked } : {}) });
      const expected = asked ?? m.byDefault;
      const d = body.data![0]!;
      if (expected === "url") {
        t.match(d.url, /^http:\/\/.+\/files\/file_/, "a gateway url");
        t.notOk("b64_json" in d, "no b64_json");
      } else {
        t.ok(d.b64_json, "inline base64");
        t.notOk("url" in d, "no url");
      }
      const meta = await sharp(await bytesOf(d)).metadata();
      t.equal(meta.format, "png");
      t.equal(`${meta.width}x${meta.height}`, m.size);
    });
  }
}

t.test("the raw body of a gpt-image generation without response_format has b64_json and no url", async (t) => {
  const res = await fetch(env.server.baseUrl + "/v1/images/generations", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-image-1", prompt: "a boat", quality: "low" }),
  });
  t.equal(res.status, 200);
  const body = (await res.json()) as { data: Array<Record<string, unknown>> };
  t.same(Object.keys(body.data[0]!), ["b64_json"]);
});

t.test("edits: IMG_MODEL_C answers b64_json by default, IMG_MODEL_A a url", async (t) => {
  const hole = await makePng(64, 64, { hole: true });
  const c = await client.images.edit({ model: "gpt-image-1", image: await file(hole, "a.png"), prompt: "a hat", size: "1024x1024", quality: "low" });
  t.ok(c.data![0]!.b64_json);
  t.notOk(c.data![0]!.url);
  const a = await client.images.edit({ model: "dall-e-2", image: await file(hole, "a.png"), prompt: "a hat", size: "256x256" });
  t.ok(a.data![0]!.url);
  t.notOk(a.data![0]!.b64_json);
});

for (const model of ["gpt-image-1", "gpt-image-1-mini"]) {
  t.test(`${model}: jpeg and webp are those formats, output_compression applies`, async (t) => {
    for (const format of ["jpeg", "webp"] as const) {
      const sized: Record<number, number> = {};
      for (const compression of [5, 95]) {
        const body = await client.images.generate({ model, prompt: "a detailed harbour", size: "1024x1024", quality: "high", output_format: format, output_compression: compression });
        t.equal(body.output_format, format);
        const bytes = Buffer.from(body.data![0]!.b64_json!, "base64");
        const meta = await sharp(bytes).metadata();
        t.equal(meta.format, format, `${format} at ${compression}`);
        t.same([meta.width, meta.height], [1024, 1024]);
        sized[compression] = bytes.length;
      }
      t.ok(sized[5]! * 2 < sized[95]!, `${format}: compression 5 gives a much smaller file (${sized[5]} vs ${sized[95]} bytes)`);
    }
  });
}

t.test("background: transparent has fully transparent pixels (png, webp), opaque has none", async (t) => {
  const cases = [
    { model: "gpt-image-1", output_format: "png" },
    { model: "gpt-image-1", output_format: "webp" },
    { model: "gpt-image-1-mini", output_format: "png" },
  ] as const;
  for (const c of cases) {
    const body = await client.images.generate({ ...c, prompt: "a balloon", size: "1024x1024", quality: "low", background: "transparent" });
    t.equal(body.background, "transparent");
    const bytes = Buffer.from(body.data![0]!.b64_json!, "base64");
    t.equal((await sharp(bytes).metadata()).format, c.output_format);
    const alpha = (await sharp(bytes).ensureAlpha().stats()).channels[3]!;
    t.equal(alpha.min, 0, `${c.model} ${c.output_format}: transparent pixels`);
    t.equal(alpha.max, 255, `${c.model} ${c.output_format}: and opaque ones`);
  }
  const opaque = await client.images.generate({ model: "gpt-image-1", prompt: "a balloon", size: "1024x1024", quality: "low", background: "opaque" });
  t.equal(opaque.background, "opaque");
  t.equal((await sharp(Buffer.from(opaque.data![0]!.b64_json!, "base64")).ensureAlpha().stats()).channels[3]!.min, 255, "opaque: no transparent pixel");
});

t.test("an edit reworking a whole opaque photo with background transparent is transparent around the new content", async (t) => {
  const photo = await sharp(await makePng(96, 64, { alpha: false }))
    .jpeg()
    .toBuffer();
  const body = await client.images.edit({ model: "gpt-image-1", image: await file(photo, "photo.jpg", "image/jpeg"), prompt: "a sticker", background: "transparent", output_format: "webp" } as never);
  const bytes = Buffer.from(body.data![0]!.b64_json!, "base64");
  t.equal((await sharp(bytes).metadata()).format, "webp");
  const alpha = (await sharp(bytes).ensureAlpha().stats()).channels[3]!;
  t.equal(alpha.min, 0, "fully transparent background");
  t.equal(alpha.max, 255, "opaque content");
});

t.test("moderation and input_fidelity are accepted where the model has them", async (t) => {
  const gen = await client.images.generate({ model: "gpt-image-1-mini", prompt: "a tree", size: "1024x1024", quality: "low", moderation: "low" });
  t.equal(gen.data?.length, 1);
  const edit = await client.images.edit({ model: "gpt-image-1", image: await file(await makePng(64, 64), "a.png"), prompt: "a tree", quality: "low", input_fidelity: "high" });
  t.equal(edit.data?.length, 1);
});
