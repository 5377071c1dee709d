import t from "tap";
import sharp from "sharp";
import { ADMIN_KEY, fetchBytes, file, makeMask, makePng, rawRgba, startImages } from "./helpers.js";

const env = await startImages();
t.teardown(() => env.server.close());
const { client } = env;

/** Counts pixels that differ, inside and outside a rectangle. */
function diffByRegion(a: Buffer, b: Buffer, w: number, inside: (x: number, y: number) => boolean) {
  let inChanged = 0;
  let inTotal = 0;
  let outChanged = 0;
  for (let p = 0; p < a.length / 4; p++) {
    const x = p % w;
    const y = Math.floor(p / w);
    const same = a[p * 4] === b[p * 4] && a[p * 4 + 1] === b[p * 4 + 1] && a[p * 4 + 2] === b[p * 4 + 2] && a[p * 4 + 3] === b[p * 4 + 3];
    if (inside(x, y)) {
      inTotal++;
      if (!same) inChanged++;
    } else if (!same) outChanged++;
  }
  return { inChanged, inTotal, outChanged };
}

t.test("edit one image (field `image`): its transparency is the mask, the rest stays pixel-identical", async (t) => {
  const src = await makePng(256, 256, { hole: true });
  const res = await client.images.edit({ model: "dall-e-2", image: await file(src, "hole.png"), prompt: "fill the hole with a sun", size: "256x256", response_format: "b64_json" });
  t.equal(res.data?.length, 1);
  const out = Buffer.from(res.data![0]!.b64_json!, "base64");
  const [a, b] = [await rawRgba(src), await rawRgba(out)];
  t.same([b.width, b.height], [256, 256]);
  const hole = (x: number, y: number) => x >= 64 && x < 192 && y >= 64 && y < 192;
  const d = diffByRegion(a.data, b.data, 256, hole);
  t.equal(d.outChanged, 0, "no pixel outside the transparent area changed");
  t.ok(d.inChanged > d.inTotal * 0.95, `the transparent area was painted (${d.inChanged}/${d.inTotal})`);
  t.notOk(res.usage, "no usage for IMG_MODEL_A");
});

t.test("edit two images (`image[]`) and a mask: the mask applies to the first", async (t) => {
  const first = await makePng(320, 256);
  const second = await makePng(200, 200, { seed: 90 });
  const mask = await makeMask(320, 256, { x0: 10, y0: 20, x1: 110, y1: 120 });
  const res = await client.images.edit({
    model: "gpt-image-1",
    image: [await file(first, "a.png"), await file(second, "b.png")],
    mask: await file(mask, "mask.png"),
    prompt: "put a hat on it",
    input_fidelity: "high",
    quality: "low",
    n: 1,
  });
  t.notOk(res.data![0]!.url, "gpt-image answers b64_json by default");
  const [a, b] = [await rawRgba(first), await rawRgba(Buffer.from(res.data![0]!.b64_json!, "base64"))];
  t.same([b.width, b.height], [320, 256], "size auto keeps the first image's size");
  const d = diffByRegion(a.data, b.data, 320, (x, y) => x >= 10 && x < 110 && y >= 20 && y < 120);
  t.equal(d.outChanged, 0, "outside the mask nothing changed");
  t.ok(d.inChanged > d.inTotal * 0.95, "inside the mask everything changed");
  // Both image[] parts arrived: image tokens are counted per input image.
  t.equal(res.usage!.input_tokens_details.image_tokens, 194 * 2);
  t.equal(res.usage!.output_tokens, Math.round((272 * 320 * 256) / (1024 * 1024)));
  t.equal(res.size, "320x256");
  t.equal(res.quality, "low");
});

t.test("multipart parts in any order, with `image[]` written by hand", async (t) => {
  const first = await makePng(256, 256, { seed: 5 });
  const mask = await makeMask(256, 256, { x0: 0, y0: 0, x1: 256, y1: 64 });
  const form = new FormData();
  form.append("mask", new Blob([mask], { type: "image/png" }), "mask.png");
  form.append("image[]", new Blob([first], { type: "image/png" }), "one.png");
  form.append("response_format", "b64_json");
  form.append("image[]", new Blob([await makePng(64, 64)], { type: "image/png" }), "two.png");
  form.append("prompt", "a sky");
  form.append("model", "IMG_MODEL_C");
  const res = await fetch(env.server.baseUrl + "/v1/images/edits", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, body: form });
  t.equal(res.status, 200);
  const body = (await res.json()) as { data: { b64_json: string }[]; usage: { input_tokens_details: { image_tokens: number } } };
  t.equal(body.usage.input_tokens_details.image_tokens, 194 * 2);
  const [a, b] = [await rawRgba(first), await rawRgba(Buffer.from(body.data[0]!.b64_json, "base64"))];
  const d = diffByRegion(a.data, b.data, 256, (_x, y) => y < 64);
  t.equal(d.outChanged, 0);
  t.ok(d.inChanged > 0);
});

t.test("IMG_MODEL_C without a mask or transparency reworks the whole image; JPEG input, WEBP output", async (t) => {
  const jpeg = await sharp(await makePng(256, 256, { alpha: false }))
    .jpeg()
    .toBuffer();
  const res = await client.images.edit({
    model: "gpt-image-1",
    image: await file(jpeg, "photo.jpg", "image/jpeg"),
    prompt: "make it autumn",
    output_format: "webp",
    response_format: "b64_json",
  } as never);
  const out = Buffer.from((res as { data: { b64_json: string }[] }).data[0]!.b64_json, "base64");
  const meta = await sharp(out).metadata();
  t.equal(meta.format, "webp");
  t.same([meta.width, meta.height], [256, 256]);
});

t.test("without a model, several images select IMG_MODEL_C (spec 4.2)", async (t) => {
  const res = await client.images.edit({
    image: [await file(await makePng(64, 64), "a.png"), await file(await makePng(64, 64, { seed: 3 }), "b.png")],
    prompt: "merge",
    response_format: "b64_json",
  } as never);
  t.ok((res as { usage?: unknown }).usage, "usage means IMG_MODEL_C served it");
});

t.test("variations stay recognisably close to the source", async (t) => {
  const src = await makePng(256, 256, { alpha: false });
  const res = await client.images.createVariation({ image: await file(src, "src.png"), size: "256x256", n: 2, response_format: "b64_json" });
  t.equal(res.data?.length, 2);
  const a = await rawRgba(src);
  const unrelated = await rawRgba(await makePng(256, 256, { alpha: false, seed: 120 }));
  const meanDiff = (x: Buffer, y: Buffer) => {
    let s = 0;
    for (let i = 0; i < x.length; i += 4) s += Math.abs(x[i]! - y[i]!) + Math.abs(x[i + 1]! - y[i + 1]!) + Math.abs(x[i + 2]! - y[i + 2]!);
    return s / ((x.length / 4) * 3);
  };
  const outs = await Promise.all(res.data!.map((d) => rawRgba(Buffer.from(d.b64_json!, "base64"))));
  for (const o of outs) {
    t.same([o.width, o.height], [256, 256]);
    const close = meanDiff(o.data, a.data);
    t.ok(close > 1, `changed (${close.toFixed(1)})`);
    t.ok(close < 30, `close to the source (${close.toFixed(1)})`);
    t.ok(close < meanDiff(unrelated.data, a.data), "closer than an unrelated image");
  }
  t.notOk(outs[0]!.data.equals(outs[1]!.data), "two different variations");
  const url = await client.images.createVariation({ image: await file(src, "src.png"), size: "256x256", model: "dall-e-2" });
  t.equal((await fetchBytes(url.data![0]!.url!)).status, 200);
});
