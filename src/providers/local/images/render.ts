// Turns artwork into pixels and pixels into files, with sharp. Raw buffers are
// RGBA, 8 bits per channel, not premultiplied.
import { DECODE_LIMIT } from "../../../core/pixel-limit.js";
import { loadSharp } from "../../../lib/sharp.js";
import { artHash, artSvg, prng, type ArtSpec } from "./art.js";

export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
}

/** Renders the artwork of a spec and adds seeded grain, so images are never flat. */
export async function renderArt(spec: ArtSpec): Promise<RawImage> {
  const { data, info } = await (
    await loadSharp()
  )(Buffer.from(artSvg(spec)))
    .resize(spec.width, spec.height, { fit: "fill" })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const rnd = prng(artHash(spec.prompt, spec.seed, spec.index), 2);
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] === 0) continue;
    const d = Math.round((rnd() - 0.5) * 16);
    data[i] = clamp(data[i]! + d);
    data[i + 1] = clamp(data[i + 1]! + d);
    data[i + 2] = clamp(data[i + 2]! + d);
  }
  return { data, width: info.width, height: info.height };
}

const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : v);

/** Decodes any input to raw RGBA of the given size (resized only when it differs). */
export async function decodeRgba(bytes: Uint8Array, width: number, height: number): Promise<RawImage> {
  let img = (await loadSharp())(bytes, DECODE_LIMIT).ensureAlpha();
  const meta = await (await loadSharp())(bytes, DECODE_LIMIT).metadata();
  if (meta.width !== width || meta.height !== height) img = img.resize(width, height, { fit: "fill" });
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The alpha channel of a decoded image, one byte per pixel. */
export function alphaOf(img: RawImage): Uint8Array {
  const out = new Uint8Array(img.width * img.height);
  for (let p = 0, i = 3; p < out.length; p++, i += 4) out[p] = img.data[i]!;
  return out;
}

/** a * (1 - t) + b * t, per channel. */
export function blend(a: RawImage, b: RawImage, t: number): RawImage {
  const out = Buffer.alloc(a.data.length);
  for (let i = 0; i < out.length; i++) out[i] = Math.round(a.data[i]! * (1 - t) + b.data[i]! * t);
  return { data: out, width: a.width, height: a.height };
}

export async function encode(img: RawImage, format: "png" | "jpeg" | "webp", compression?: number): Promise<Buffer> {
  const s = (await loadSharp())(img.data, { raw: { width: img.width, height: img.height, channels: 4 } });
  if (format === "jpeg")
    return s
      .flatten({ background: "#ffffff" })
      .jpeg({ quality: compression ?? 90 })
      .toBuffer();
  if (format === "webp") return s.webp({ quality: compression ?? 90 }).toBuffer();
  return s.png({ compressionLevel: 6 }).toBuffer();
}
