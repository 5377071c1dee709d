// The local image engine, driven directly: real images, determinism, masks,
// variations, transparency, prompt rewriting and usage.
import t from "tap";
import sharp from "sharp";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail } from "../../../src/core/errors.js";
import { artSvg, wrapText } from "../../../src/providers/local/images/art.js";
import { localImageProvider } from "../../../src/providers/local/images/provider.js";
import { revisePrompt } from "../../../src/providers/local/images/prompt-rewrite.js";
import { imageUsage, inputImageTokens, outputImageTokens } from "../../../src/providers/local/images/usage.js";
import type { CallContext, ImageInput, ImageJob } from "../../../src/core/ports.js";

const engine = localImageProvider({ blocklist: ["forbidden-topic"] });
const ctx: CallContext = { signal: new AbortController().signal, requestId: "r", upstreamModel: "m" };
const given: ImageJob["given"] = { size: "", quality: "", style: "", outputFormat: "", background: "", moderation: "", inputFidelity: "", responseFormat: "", user: "" };
const job = (o: Partial<ImageJob>): ImageJob => ({
  operation: "generate",
  profile: "IMG_MODEL_A",
  prompt: "a quiet harbour",
  images: [],
  n: 1,
  width: 128,
  height: 128,
  quality: "standard",
  style: "",
  outputFormat: "png",
  background: "opaque",
  given,
  ...o,
});
const run = async (o: Partial<ImageJob>) => (await engine.run(job(o), ctx)).images.map((i) => Buffer.from(i.data));

async function input(w: number, h: number, alphaAt?: (x: number, y: number) => number): Promise<ImageInput> {
  const data = Buffer.alloc(w * h * 4);
  for (let p = 0; p < w * h; p++) {
    const x = p % w;
    const y = Math.floor(p / w);
    data.set([(x * 7) % 256, (y * 5) % 256, 90, alphaAt ? alphaAt(x, y) : 255], p * 4);
  }
  const png = await sharp(data, { raw: { width: w, height: h, channels: 4 } })
    .png()
    .toBuffer();
  return { data: png, mimeType: "image/png", filename: "in.png", format: "png", width: w, height: h };
}
const raw = async (b: Uint8Array) => (await sharp(b).ensureAlpha().raw().toBuffer({ resolveWithObject: true })).data;

t.test("deterministic per prompt, seed and index", async (t) => {
  const [a1, a2] = [await run({ seed: 1 }), await run({ seed: 1 })];
  t.ok(a1[0]!.equals(a2[0]!));
  t.notOk(a1[0]!.equals((await run({ seed: 2 }))[0]!));
  t.notOk(a1[0]!.equals((await run({ seed: 1, prompt: "a loud harbour" }))[0]!));
  const two = await run({ seed: 1, n: 2 });
  t.ok(two[0]!.equals(a1[0]!), "image 0 of n=2 is the n=1 image");
  t.notOk(two[0]!.equals(two[1]!));
});

t.test("sizes, formats and transparency", async (t) => {
  const [jpeg] = await run({ profile: "IMG_MODEL_D", outputFormat: "jpeg", width: 150, height: 90, outputCompression: 40 });
  t.match(await sharp(jpeg!).metadata(), { format: "jpeg", width: 150, height: 90 });
  const [webp] = await run({ profile: "IMG_MODEL_C", outputFormat: "webp", background: "transparent" });
  const wm = await sharp(webp!).metadata();
  t.match(wm, { format: "webp", hasAlpha: true });
  const [dallePng] = await run({ profile: "IMG_MODEL_B", outputFormat: "webp" });
  t.equal((await sharp(dallePng!).metadata()).format, "png", "older profiles always answer PNG");
  const [clear] = await run({ profile: "IMG_MODEL_D", background: "transparent" });
  t.equal((await sharp(clear!).stats()).channels[3]!.min, 0);
  const [solid] = await run({ profile: "IMG_MODEL_D" });
  t.equal((await sharp(solid!).ensureAlpha().stats()).channels[3]!.min, 255, "opaque when not asked for transparency");
});

t.test("edit: the mask's transparent area is new, the rest bit-identical", async (t) => {
  const src = await input(64, 48);
  const mask = await input(64, 48, (x) => (x < 16 ? 0 : 255));
  const [out] = await run({ operation: "edit", profile: "IMG_MODEL_C", images: [src], mask, width: 64, height: 48 });
  const [a, b] = [await raw(src.data), await raw(out!)];
  let inside = 0;
  let outside = 0;
  for (let p = 0; p < 64 * 48; p++) {
    const same = a.subarray(p * 4, p * 4 + 4).equals(b.subarray(p * 4, p * 4 + 4));
    if (p % 64 < 16) inside += same ? 0 : 1;
    else outside += same ? 0 : 1;
  }
  t.equal(outside, 0);
  t.ok(inside > 16 * 48 * 0.95);
});

t.test("edit: a different output size resizes the source first", async (t) => {
  const src = await input(64, 64, (x, y) => (x < 8 && y < 8 ? 0 : 255));
  const [out] = await run({ operation: "edit", images: [src], width: 128, height: 128 });
  t.match(await sharp(out!).metadata(), { width: 128, height: 128 });
});

t.test("variation: close to the source", async (t) => {
  const src = await input(64, 64);
  const [v] = await run({ operation: "variation", prompt: "", images: [src], width: 64, height: 64 });
  const [a, b] = [await raw(src.data), await raw(v!)];
  let d = 0;
  for (let i = 0; i < a.length; i += 4) d += Math.abs(a[i]! - b[i]!);
  const mean = d / (a.length / 4);
  t.ok(mean > 0.5 && mean < 40, `mean red difference ${mean.toFixed(1)}`);
});

t.test("blocklisted prompts are refused", async (t) => {
  const err = await engine.run(job({ prompt: "about FORBIDDEN-TOPIC" }), ctx).catch((e) => e);
  t.ok(err instanceof ConnectError);
  t.equal(err.code, Code.InvalidArgument);
  t.equal(errorDetail(err)?.reason, "moderation_blocked");
});

t.test("IMG_MODEL_B rewrites, IMG_MODEL_C reports usage", async (t) => {
  const res = await engine.run(job({ profile: "IMG_MODEL_B", style: "natural", quality: "hd" }), ctx);
  t.equal(res.images[0]!.revisedPrompt, revisePrompt("a quiet harbour", "natural", "hd"));
  t.match(res.images[0]!.revisedPrompt!, /^A quiet harbour, depicted as a natural, true-to-life image .* fine, high-definition detail\.$/);
  t.not(revisePrompt("x", "vivid", "standard"), revisePrompt("x", "natural", "standard"));
  t.equal(res.usage, undefined);
  const c = await engine.run(job({ profile: "IMG_MODEL_C", quality: "low", operation: "edit", images: [await input(32, 32, () => 0)], prompt: "one two" }), ctx);
  t.equal(c.usage?.inputTokensDetails?.textTokens, 2n);
  t.equal(c.usage?.inputTokensDetails?.imageTokens, 194n);
  t.equal(c.usage?.outputTokens, BigInt(outputImageTokens(128, 128, "low")));
  t.equal(c.usage?.totalTokens, c.usage!.inputTokens + c.usage!.outputTokens);
});

t.test("usage formulas", async (t) => {
  t.equal(inputImageTokens(1024, 1024), 194);
  t.equal(inputImageTokens(1024, 1536), 65 + 129 * 2);
  t.equal(inputImageTokens(4096, 1024), 65 + 129 * 4);
  t.equal(inputImageTokens(100, 100), 194);
  t.same([outputImageTokens(1024, 1024, "low"), outputImageTokens(1024, 1024, "medium"), outputImageTokens(1024, 1024, "high"), outputImageTokens(1024, 1536, "high")], [272, 1056, 4160, 6240]);
  t.equal(imageUsage("a b c", [], { width: 1024, height: 1024, quality: "high", n: 2 }).totalTokens, 3n + 8320n);
});

t.test("art: escapes and wraps the prompt", async (t) => {
  const svg = artSvg({ prompt: `<script>&"'`, seed: 0, index: 0, width: 100, height: 100, transparent: true, quality: "low", style: "" });
  t.notMatch(svg, /<script>/);
  t.match(svg, /&#60;script&#62;&#38;&#34;&#39;/);
  t.notMatch(svg, /url\(#bg\)/, "no background when transparent");
  t.same(wrapText("one two three four five six", 9, 2), ["one two", "three…"]);
  t.same(wrapText("abcdefgh abcdefgh abc", 8, 1), ["abcdefg…"]);
  t.same(wrapText("a supercalifragilistic word", 8, 3), ["a", "superca…", "word"]);
  t.same(wrapText("   ", 8, 3), []);
});

t.test("stream: partial images of each image, sharper one after another, then the run's result", async (t) => {
  const streamed = async (o: Partial<ImageJob>) => {
    const out = [];
    for await (const e of engine.stream!(job(o), ctx)) out.push(e);
    return out;
  };
  const o = { profile: "IMG_MODEL_C", quality: "low", width: 256, height: 256, n: 2, partialImages: 3, outputFormat: "webp" as const, background: "transparent" as const };
  const events = await streamed(o);
  t.same(
    events.map((e) => (e.kind === "partial" ? `${e.imageIndex}.${e.partialIndex}` : e.kind)),
    ["0.0", "0.1", "0.2", "1.0", "1.1", "1.2", "result"],
  );
  const result = events[6]!.kind === "result" ? events[6]!.result : undefined;
  const whole = await engine.run(job(o), ctx);
  t.same(result?.usage, whole.usage);
  t.ok(
    result!.images.every((img, i) => Buffer.from(img.data).equals(Buffer.from(whole.images[i]!.data))),
    "the same images as run()",
  );
  const final = await raw(result!.images[0]!.data);
  let before = Infinity;
  for (const e of events.slice(0, 3)) {
    if (e.kind !== "partial") continue;
    t.match(await sharp(e.data).metadata(), { format: "webp", width: 256, height: 256, hasAlpha: true });
    const p = await raw(e.data);
    let d = 0;
    for (let i = 0; i < p.length; i++) d += Math.abs(p[i]! - final[i]!);
    t.ok(d > 0 && d < before, `preview ${e.partialIndex} is closer to the final image`);
    before = d;
  }
  t.same(
    (await streamed({ ...o, partialImages: 0 })).map((e) => e.kind),
    ["result"],
    "no previews asked for: the result alone",
  );
  await t.rejects(streamed({ prompt: "about forbidden-topic", partialImages: 1 }), { code: Code.InvalidArgument }, "refusals as in run()");
});
