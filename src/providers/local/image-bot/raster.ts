// Pixel helpers of the local image-bot engine: tile sizes from an aspect
// ratio, 2x2 grids, masks and seeded artwork tiles (the local image engine's
// artwork, see ../images/art.ts). Raw images are RGBA, 8 bits per channel.
// Inputs are decoded to a working copy of at most WORK_MAX_SIDE pixels a
// side, so the per-pixel loops here run on bounded images.
import { DECODE_LIMIT } from "../../../core/pixel-limit.js";
import { loadSharp } from "../../../lib/sharp.js";
import { blend, decodeRgba, encode, renderArt, type RawImage } from "../images/render.js";

export type { RawImage };
export { blend, decodeRgba, encode };

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/** Long side of a working copy: a grid of the largest tiles (2048, OMNIGATE_IB_TILE_SIZE's maximum) fits unchanged. */
export const WORK_MAX_SIDE = 4096;

/** Width and height of one image with the long side `long` at aspect w:h. */
export function tileSize(long: number, aspect: { w: number; h: number }): { width: number; height: number } {
  return aspect.w >= aspect.h ? { width: even(long), height: even((long * aspect.h) / aspect.w) } : { width: even((long * aspect.w) / aspect.h), height: even(long) };
}

/** A seeded artwork tile for a prompt. */
export function art(prompt: string, seed: number, index: number, width: number, height: number): Promise<RawImage> {
  return renderArt({ prompt, seed, index, width, height, transparent: false, quality: "standard", style: "vivid" });
}

/** Four equal images as a 2x2 grid (1 2 / 3 4). */
export async function grid(tiles: RawImage[]): Promise<RawImage> {
  const { width, height } = tiles[0]!;
  const data = Buffer.alloc(width * 2 * height * 2 * 4);
  tiles.forEach((t, i) => {
    const ox = (i % 2) * width;
    const oy = Math.floor(i / 2) * height;
    for (let y = 0; y < height; y++) t.data.copy(data, ((oy + y) * width * 2 + ox) * 4, y * width * 4, (y + 1) * width * 4);
  });
  return { data, width: width * 2, height: height * 2 };
}

/** Quadrant n (1-4) of a grid, at the quadrant's own resolution. */
export function quadrant(g: RawImage, n: number): RawImage {
  const width = Math.floor(g.width / 2);
  const height = Math.floor(g.height / 2);
  const ox = ((n - 1) % 2) * width;
  const oy = Math.floor((n - 1) / 2) * height;
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) g.data.copy(data, y * width * 4, ((oy + y) * g.width + ox) * 4, ((oy + y) * g.width + ox + width) * 4);
  return { data, width, height };
}

/** Decodes an encoded image at its own size, or shrunk to fit WORK_MAX_SIDE. */
export async function decode(bytes: Uint8Array): Promise<RawImage> {
  const { data, info } = await (
    await loadSharp()
  )(bytes, DECODE_LIMIT)
    .resize(WORK_MAX_SIDE, WORK_MAX_SIDE, { fit: "inside", withoutEnlargement: true })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** A grey mask (one byte per pixel, 255 = change) of a given size; transparent areas count as black. */
export async function decodeMask(bytes: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  const data = await (await loadSharp())(bytes, DECODE_LIMIT).resize(width, height, { fit: "fill" }).flatten({ background: "#000000" }).greyscale().raw().toBuffer();
  return new Uint8Array(data.buffer, data.byteOffset, width * height);
}

/** base where the mask is 0, over where it is 255, mixed in between. */
export function masked(base: RawImage, over: RawImage, mask: Uint8Array): RawImage {
  const out = Buffer.from(base.data);
  for (let p = 0; p < mask.length; p++) {
    const m = mask[p]! / 255;
    if (m === 0) continue;
    for (let c = 0; c < 3; c++) out[p * 4 + c] = Math.round(base.data[p * 4 + c]! * (1 - m) + over.data[p * 4 + c]! * m);
  }
  return { data: out, width: base.width, height: base.height };
}

/** Resizes a raw image. */
export async function resize(img: RawImage, width: number, height: number, opts: { blur?: number } = {}): Promise<RawImage> {
  let s = (await loadSharp())(img.data, { raw: { width: img.width, height: img.height, channels: 4 } }).resize(width, height, { fit: "fill" });
  if (opts.blur) s = s.blur(opts.blur);
  const data = await s.ensureAlpha().raw().toBuffer();
  return { data, width, height };
}

/** Places `inner` at (left, top) over `canvas`, clipped to the canvas; one copy a row. */
export function place(canvas: RawImage, inner: RawImage, left: number, top: number): RawImage {
  const out = Buffer.from(canvas.data);
  const x0 = Math.max(0, left);
  const x1 = Math.min(canvas.width, left + inner.width);
  for (let y = 0; y < inner.height && x1 > x0; y++) {
    const cy = top + y;
    if (cy < 0 || cy >= canvas.height) continue;
    inner.data.copy(out, (cy * canvas.width + x0) * 4, (y * inner.width + x0 - left) * 4, (y * inner.width + x1 - left) * 4);
  }
  return { data: out, width: canvas.width, height: canvas.height };
}

/** `over` placed at (left, top) on `base` through a soft elliptical mask filling its box (opaque inside 0.84 of the radius, fading to the edge). */
export async function placeEllipse(base: RawImage, over: RawImage, left: number, top: number): Promise<RawImage> {
  const sharp = await loadSharp();
  const { width: w, height: h } = over;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs><radialGradient id="g"><stop offset="0.84" stop-color="#fff"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><ellipse cx="${w / 2}" cy="${h / 2}" rx="${w / 2}" ry="${h / 2}" fill="url(#g)"/></svg>`;
  const face = await sharp(over.data, { raw: { width: w, height: h, channels: 4 } })
    .composite([{ input: Buffer.from(svg), blend: "dest-in" }])
    .raw()
    .toBuffer();
  const data = await sharp(base.data, { raw: { width: base.width, height: base.height, channels: 4 } })
    .composite([{ input: face, raw: { width: w, height: h, channels: 4 }, left, top }])
    .raw()
    .toBuffer();
  return { data, width: base.width, height: base.height };
}

/** Hue rotation and saturation change. */
export async function modulate(img: RawImage, hue: number, saturation = 1): Promise<RawImage> {
  const data = await (
    await loadSharp()
  )(img.data, { raw: { width: img.width, height: img.height, channels: 4 } })
    .modulate({ hue: Math.round(hue), saturation })
    .ensureAlpha()
    .raw()
    .toBuffer();
  return { data, width: img.width, height: img.height };
}

export async function png(img: RawImage): Promise<Buffer> {
  return encode(img, "png");
}
