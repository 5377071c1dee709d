// The local image-bot engine on its own: real pixels for every operation,
// deterministic per seed, progress over taskMs with a preview, describe from
// real image properties, shorten, and abort.
import t from "tap";
import sharp from "sharp";
import { colourName, describePrompts, imageFacts } from "../../../../src/providers/local/image-bot/describe.js";
import { localImageBotProvider } from "../../../../src/providers/local/image-bot/provider.js";
import { aspectOfPrompt, ratioOf } from "../../../../src/providers/local/image-bot/params.js";
import { decode, grid, place, quadrant, tileSize, WORK_MAX_SIDE } from "../../../../src/providers/local/image-bot/raster.js";
import { shortenPrompt } from "../../../../src/providers/local/image-bot/shorten.js";
import type { ImageBotJob, ImageBotOperation, ImageBotOutput } from "../../../../src/core/ports.js";

const engine = localImageBotProvider({ taskMs: 0, tileSize: 24 });
const quiet = { signal: new AbortController().signal, progress: async () => undefined, save: async () => undefined };

const solid = async (w: number, h: number, colour: string) => ({
  data: new Uint8Array(
    await sharp({ create: { width: w, height: h, channels: 3, background: colour } })
      .png()
      .toBuffer(),
  ),
  mimeType: "image/png",
});
const job = (operation: ImageBotOperation, extra: Partial<ImageBotJob> = {}): ImageBotJob => ({
  taskId: "t",
  operation,
  prompt: "a harbour at night",
  botType: "PRIMARY_BOT",
  seed: 7,
  inputs: [],
  ...extra,
});
const run = (j: ImageBotJob) => engine.run(j, quiet);
const raw = async (out: ImageBotOutput) => sharp(out.image!.data).removeAlpha().raw().toBuffer({ resolveWithObject: true });

t.test("imagine: a grid of four distinct images at --ar, the same for the same seed", async (t) => {
  const out = await run(job({ kind: "imagine" }, { prompt: "a harbour --ar 2:3" }));
  t.match(out.image, { mimeType: "image/png", width: 32, height: 48, grid: true });
  const { data, info } = await raw(out);
  t.same([info.width, info.height], [32, 48]);
  const g = { data: await sharp(out.image!.data).ensureAlpha().raw().toBuffer(), width: 32, height: 48 };
  const qs = [1, 2, 3, 4].map((n) => quadrant(g, n).data.toString("base64"));
  t.equal(new Set(qs).size, 4, "four different images");
  const again = await run(job({ kind: "imagine" }, { prompt: "a harbour --ar 2:3" }));
  t.same(await raw(again).then((r) => r.data), data, "deterministic");
  const other = await run(job({ kind: "imagine" }, { prompt: "a harbour --ar 2:3", seed: 8 }));
  t.notSame((await raw(other)).data, data, "another seed, other images");
});

t.test("image prompts colour the tiles", async (t) => {
  const plain = await raw(await run(job({ kind: "imagine" })));
  const green = await raw(await run(job({ kind: "imagine" }, { inputs: [await solid(10, 10, "#00ff00")] })));
  const mean = (b: Buffer, c: number) => b.reduce((s, v, i) => (i % 3 === c ? s + v : s), 0) / (b.length / 3);
  t.ok(mean(green.data, 1) > mean(plain.data, 1), "more green with a green image prompt");
});

t.test("grid geometry helpers", async (t) => {
  t.same(tileSize(512, { w: 16, h: 9 }), { width: 512, height: 288 });
  t.same(tileSize(100, { w: 2, h: 3 }), { width: 66, height: 100 });
  const tiles = [1, 2, 3, 4].map((v) => ({ data: Buffer.alloc(2 * 2 * 4, v), width: 2, height: 2 }));
  const g = await grid(tiles);
  t.same([g.width, g.height], [4, 4]);
  for (let n = 1; n <= 4; n++) t.same([...quadrant(g, n).data], [...tiles[n - 1]!.data], `quadrant ${n}`);
  t.same(aspectOfPrompt("x --ar 16:9"), { w: 16, h: 9 });
  t.equal(ratioOf(1280, 1024), "5:4");
  t.equal(ratioOf(1001, 500), "2:1");
});

t.test("operations on a parent image", async (t) => {
  const parentGrid = await run(job({ kind: "imagine" }));
  const parent = { prompt: "p", image: { data: parentGrid.image!.data, mimeType: "image/png" } };
  const u3 = await run(job({ kind: "upscale", index: 3 }, { parent }));
  t.match(u3.image, { width: 24, height: 24, grid: false });
  const single = { prompt: "p", image: { data: u3.image!.data, mimeType: "image/png" } };
  const cases: [ImageBotOperation, number, number, boolean][] = [
    [{ kind: "upscale_2x", mode: "subtle" }, 48, 48, false],
    [{ kind: "upscale_2x", mode: "creative" }, 48, 48, false],
    [{ kind: "vary", strength: "strong" }, 48, 48, true],
    [{ kind: "zoom", factor: 2 }, 48, 48, true],
    [{ kind: "pan", direction: "right" }, 72, 48, true],
    [{ kind: "pan", direction: "down" }, 48, 72, true],
  ];
  for (const [op, w, h, isGrid] of cases) {
    const out = await run(job(op, { parent: single }));
    t.match(out.image, { width: w, height: h, grid: isGrid }, JSON.stringify(op));
  }
  const v = await run(job({ kind: "variation", index: 2 }, { parent }));
  t.match(v.image, { width: 48, height: 48, grid: true });
  await t.rejects(run(job({ kind: "inpaint" }, { parent: single })), /Vary \(Region\) needs a mask/);
});

t.test("blend: the inputs mixed at the dimensions", async (t) => {
  const red = await solid(30, 30, "#ff0000");
  const blue = await solid(20, 40, "#0000ff");
  const out = await run(job({ kind: "blend", dimensions: "LANDSCAPE" }, { inputs: [red, blue], prompt: "" }));
  t.match(out.image, { width: 48, height: 32, grid: true });
  const { data } = await raw(out);
  const px = [data[0]!, data[1]!, data[2]!];
  t.ok(px[0]! > 80 && px[2]! > 40, `red and blue both show (${px})`);
});

t.test("face swap: the source's face region over the target", async (t) => {
  const out = await run(job({ kind: "swap_face" }, { inputs: [await solid(30, 30, "#ffffff"), await solid(40, 50, "#000000")] }));
  t.match(out.image, { width: 40, height: 50, grid: false });
  const { data, info } = await raw(out);
  const at = (x: number, y: number) => data[(y * info.width + x) * 3]!;
  t.equal(at(20, 21), 255, "face centre from the source");
  t.equal(at(1, 1), 0, "corner from the target");
  t.equal(at(20, 48), 0, "below the face from the target");
});

t.test("working copies: inputs and parents are decoded at most WORK_MAX_SIDE a side, so per-pixel work stays bounded", async (t) => {
  t.equal(WORK_MAX_SIDE, 4096);
  const wide = await solid(5000, 100, "#808080");
  const d = await decode(wide.data);
  t.same([d.width, d.height], [4096, 82], "shrunk to fit, aspect kept");
  t.same([(await decode((await solid(30, 20, "#808080")).data)).width], [30], "a small image keeps its size");
  const swapped = await run(job({ kind: "swap_face" }, { inputs: [await solid(30, 30, "#ffffff"), wide] }));
  t.match(swapped.image, { width: 4096, height: 82, grid: false }, "a face swap works on the target's working copy");
  const up = await run(job({ kind: "upscale_2x", mode: "subtle" }, { parent: { prompt: "p", image: { data: (await solid(3000, 40, "#808080")).data, mimeType: "image/png" } } }));
  t.match(up.image, { width: 4096, height: 55 }, "an upscale stays within WORK_MAX_SIDE");
});

t.test("place copies the overlapping rows, clipped on every side", async (t) => {
  const canvas = { data: Buffer.alloc(4 * 3 * 4), width: 4, height: 3 };
  const inner = { data: Buffer.alloc(3 * 2 * 4, 9), width: 3, height: 2 };
  const at = (img: { data: Buffer; width: number }, x: number, y: number) => img.data[(y * img.width + x) * 4]!;
  const right = place(canvas, inner, 2, 2);
  t.same([at(right, 1, 2), at(right, 2, 2), at(right, 3, 2), at(right, 3, 1)], [0, 9, 9, 0]);
  const left = place(canvas, inner, -2, -1);
  t.same([at(left, 0, 0), at(left, 1, 0), at(left, 0, 1)], [9, 0, 0]);
  t.same([...place(canvas, inner, 5, 0).data], [...canvas.data], "nothing overlaps");
});

t.test("describe: prompts from the real colour, brightness and aspect", async (t) => {
  const out = await run(job({ kind: "describe" }, { inputs: [await solid(80, 40, "#f0f0ff")] }));
  t.equal(out.prompts!.length, 4);
  t.match(out.prompts![0], /bright, airy.*(white|pale blue).*wide landscape composition.*--ar 2:1$/);
  t.match(out.finalPrompt, /^1️⃣ .*\n\n2️⃣ .*\n\n3️⃣ .*\n\n4️⃣ /s);
  t.match(out.image, { width: 80, height: 40, grid: false });
  const dark = describePrompts(await imageFacts((await solid(20, 40, "#200000")).data));
  t.match(dark[0], /dark, moody.*deep red.*tall portrait composition.*--ar 1:2$/);
  t.equal(colourName(0, 200, 0), "green");
  t.equal(colourName(128, 128, 128), "grey");
});

t.test("shorten: important tokens and five shorter prompts", async (t) => {
  const s = shortenPrompt("a very beautiful painting of a lonely lighthouse on the rocky coast during a violent storm --ar 16:9");
  t.ok(s.tokens.includes("lighthouse"));
  t.notOk(s.tokens.includes("a"));
  t.equal(s.prompts.length, 5);
  for (const p of s.prompts) t.match(p, / --ar 16:9$/);
  t.ok(s.prompts[4]!.length < s.prompts[0]!.length, "shorter and shorter");
  t.match(s.text, /^## Important tokens\n/);
});

t.test("progress rises over taskMs with one preview; abort stops the task", async (t) => {
  const slow = localImageBotProvider({ taskMs: 140, tileSize: 16 });
  const seen: [number, boolean][] = [];
  await slow.run(job({ kind: "imagine" }), { ...quiet, progress: async (p, preview) => void seen.push([p, !!preview]) });
  t.same(
    seen.map((s) => s[0]),
    [10, 25, 40, 55, 70, 85],
  );
  t.same(
    seen.filter((s) => s[1]).map((s) => s[0]),
    [55],
    "one preview, half-way",
  );
  const ac = new AbortController();
  const p = slow.run(job({ kind: "imagine" }), { ...quiet, signal: ac.signal });
  setTimeout(() => ac.abort(new Error("cancelled")), 30);
  await t.rejects(p, /cancelled/);
});
