// What the local engine does for each image operation. Every result is real
// pixels: grids of four seeded artworks, quadrants, resized, padded, extended
// and masked images. Deterministic for a given job (seed, prompt, inputs).
import { Code, ConnectError } from "@connectrpc/connect";
import type { ImageBotJob } from "../../../core/ports.js";
import { aspectOfPrompt } from "./params.js";
import { art, blend, decode, decodeMask, decodeRgba, grid, masked, modulate, place, placeEllipse, quadrant, resize, tileSize, WORK_MAX_SIDE, type RawImage } from "./raster.js";

export interface OpResult {
  image: RawImage;
  grid: boolean;
}

/** A failure in the engine's own words (the engine hides the text of anything else thrown: a library's). */
const failed = (message: string) => new ConnectError(`failed: ${message}`, Code.Internal);

const DIMENSIONS = { PORTRAIT: { w: 2, h: 3 }, SQUARE: { w: 1, h: 1 }, LANDSCAPE: { w: 3, h: 2 } } as const;

async function parentImage(job: ImageBotJob): Promise<RawImage> {
  const bytes = job.parent?.image?.data;
  if (!bytes) throw failed("the parent task has no image");
  return decode(bytes);
}

/** Four seeded tiles for the prompt, each mixed with an image prompt when there are some. */
async function promptGrid(job: ImageBotJob, long: number): Promise<OpResult> {
  const { width, height } = tileSize(long, aspectOfPrompt(job.prompt));
  const refs = await Promise.all(job.inputs.map((i) => decodeRgba(i.data, width, height)));
  const tiles: RawImage[] = [];
  for (let i = 0; i < 4; i++) {
    const a = await art(job.prompt, job.seed, i, width, height);
    tiles.push(refs.length ? blend(a, refs[i % refs.length]!, 0.35) : a);
  }
  return { image: await grid(tiles), grid: true };
}

/** Four images around one base image: the base mixed with seeded artwork, each with its own hue shift. */
async function aroundGrid(job: ImageBotJob, base: RawImage, amount: number): Promise<OpResult> {
  const tiles: RawImage[] = [];
  for (let i = 0; i < 4; i++) {
    const a = await art(job.prompt, job.seed, i, base.width, base.height);
    const shifted = await modulate(base, (i - 1.5) * 14 * amount * 2, 1 + amount * 0.2);
    tiles.push(blend(shifted, a, amount));
  }
  return { image: await grid(tiles), grid: true };
}

/** Zoom out: the image shrunk by `factor` in the middle of a canvas filled from its own blurred edges and the prompt's artwork. */
async function zoomOut(job: ImageBotJob, base: RawImage, factor: number): Promise<OpResult> {
  const aspect = /--(?:ar|aspect)\s/i.test(job.prompt) ? aspectOfPrompt(job.prompt) : undefined;
  const canvas = aspect ? tileSize(Math.max(base.width, base.height), aspect) : { width: base.width, height: base.height };
  const scale = Math.min(canvas.width / base.width, canvas.height / base.height) / factor;
  const iw = Math.max(2, Math.round(base.width * scale));
  const ih = Math.max(2, Math.round(base.height * scale));
  const inner = await resize(base, iw, ih);
  const backdrop = await resize(base, canvas.width, canvas.height, { blur: Math.max(1, Math.round(Math.min(canvas.width, canvas.height) / 12)) });
  const tiles: RawImage[] = [];
  for (let i = 0; i < 4; i++) {
    const filled = blend(backdrop, await art(job.prompt, job.seed, i, canvas.width, canvas.height), 0.45);
    tiles.push(place(filled, inner, Math.round((canvas.width - iw) / 2), Math.round((canvas.height - ih) / 2)));
  }
  return { image: await grid(tiles), grid: true };
}

/** Pan: the canvas grows by half in one direction; the new strip continues the image's edge into the prompt's artwork. */
async function pan(job: ImageBotJob, base: RawImage, direction: "left" | "right" | "up" | "down"): Promise<OpResult> {
  const horizontal = direction === "left" || direction === "right";
  const width = horizontal ? base.width + Math.round(base.width / 4) * 2 : base.width;
  const height = horizontal ? base.height : base.height + Math.round(base.height / 4) * 2;
  const left = direction === "left" ? width - base.width : 0;
  const top = direction === "up" ? height - base.height : 0;
  const stretched = await resize(base, width, height, { blur: Math.max(1, Math.round(Math.min(width, height) / 16)) });
  const tiles: RawImage[] = [];
  for (let i = 0; i < 4; i++) {
    const filled = blend(stretched, await art(job.prompt, job.seed, i, width, height), 0.5);
    tiles.push(place(filled, base, left, top));
  }
  return { image: await grid(tiles), grid: true };
}

/** Vary (Region): only where the mask is white does the image change. */
async function inpaint(job: ImageBotJob, base: RawImage): Promise<OpResult> {
  if (!job.mask) throw failed("Vary (Region) needs a mask");
  const mask = await decodeMask(job.mask.data, base.width, base.height);
  const tiles: RawImage[] = [];
  for (let i = 0; i < 4; i++) tiles.push(masked(base, await art(job.prompt, job.seed, i, base.width, base.height), mask));
  return { image: await grid(tiles), grid: true };
}

/** Blend: the inputs at the chosen dimensions, each tile weighting them differently. */
async function blendInputs(job: ImageBotJob, long: number, dims: keyof typeof DIMENSIONS): Promise<OpResult> {
  const { width, height } = tileSize(long, DIMENSIONS[dims]);
  const inputs = await Promise.all(job.inputs.map((i) => decodeRgba(i.data, width, height)));
  const tiles: RawImage[] = [];
  for (let t = 0; t < 4; t++) {
    const out = Buffer.alloc(width * height * 4);
    const weights = inputs.map((_, k) => (k === t % inputs.length ? 2 : 1));
    const total = weights.reduce((a, b) => a + b, 0);
    for (let i = 0; i < out.length; i++) {
      let v = 0;
      for (let k = 0; k < inputs.length; k++) v += inputs[k]!.data[i]! * weights[k]!;
      out[i] = Math.round(v / total);
    }
    tiles.push(blend({ data: out, width, height }, await art(job.prompt || "blend", job.seed, t, width, height), 0.12));
  }
  return { image: await grid(tiles), grid: true };
}

/** Face swap: the source's face region (an ellipse in the upper middle, as in a portrait) composited onto the target's, with a soft edge; by sharp, on working copies. */
async function swapFace(job: ImageBotJob): Promise<OpResult> {
  const [source, target] = await Promise.all(job.inputs.slice(0, 2).map((i) => decode(i.data)));
  if (!source || !target) throw failed("face swap needs a source and a target image");
  const face = (img: RawImage) => ({ cx: img.width / 2, cy: img.height * 0.42, rx: img.width * 0.22, ry: img.height * 0.28 });
  const tf = face(target);
  const sf = face(source);
  const box = { left: Math.max(0, Math.round(tf.cx - tf.rx)), top: Math.max(0, Math.round(tf.cy - tf.ry)), width: Math.round(tf.rx * 2), height: Math.round(tf.ry * 2) };
  const srcBox = { left: Math.max(0, Math.round(sf.cx - sf.rx)), top: Math.max(0, Math.round(sf.cy - sf.ry)), width: Math.round(sf.rx * 2), height: Math.round(sf.ry * 2) };
  const crop = place({ data: Buffer.alloc(srcBox.width * srcBox.height * 4), width: srcBox.width, height: srcBox.height }, source, -srcBox.left, -srcBox.top);
  const fitted = await resize(crop, box.width, box.height);
  return { image: await placeEllipse(target, fitted, box.left, box.top), grid: false };
}

/** Runs an image operation of the local engine; `long` is the long side of one grid image. */
export async function runImageOp(job: ImageBotJob, long: number): Promise<OpResult> {
  const op = job.operation;
  switch (op.kind) {
    case "imagine":
    case "reroll":
      return promptGrid(job, long);
    case "blend":
      return blendInputs(job, long, op.dimensions);
    case "upscale": {
      const g = await parentImage(job);
      return { image: quadrant(g, op.index), grid: false };
    }
    case "upscale_2x": {
      const base = await parentImage(job);
      const f = Math.min(2, WORK_MAX_SIDE / Math.max(base.width, base.height));
      let up = await resize(base, Math.round(base.width * f), Math.round(base.height * f));
      if (op.mode === "creative") up = blend(await modulate(up, 0, 1.15), await art(job.prompt, job.seed, 0, up.width, up.height), 0.1);
      return { image: up, grid: false };
    }
    case "variation": {
      const g = await parentImage(job);
      return aroundGrid(job, quadrant(g, op.index), 0.3);
    }
    case "vary":
      return aroundGrid(job, await parentImage(job), op.strength === "subtle" ? 0.15 : 0.45);
    case "zoom":
      return zoomOut(job, await parentImage(job), op.factor);
    case "pan":
      return pan(job, await parentImage(job), op.direction);
    case "inpaint":
      return inpaint(job, await parentImage(job));
    case "swap_face":
      return swapFace(job);
    case "describe":
    case "shorten":
      throw failed(`${op.kind} makes no image`);
  }
}
