// Local variations: the source with a seeded hue shift and grain, blended back
// with the source so the result stays recognisably close to it.
import { loadSharp } from "../../../lib/sharp.js";
import type { ImageJob } from "../../../core/ports.js";
import { artHash, prng } from "./art.js";
import { decodeInput } from "./input.js";
import { blend, type RawImage } from "./render.js";

export async function varyImage(job: ImageJob, index: number): Promise<RawImage> {
  const { width, height } = job;
  const src = await decodeInput(job.images[0]!, "image", width, height);
  const hash = artHash(Buffer.from(job.images[0]!.data).toString("base64").slice(0, 4096), job.seed ?? 0, index);
  const rnd = prng(hash, 3);
  const hue = Math.round((rnd() < 0.5 ? -1 : 1) * (15 + rnd() * 40));
  const shifted = await (
    await loadSharp()
  )(src.data, { raw: { width, height, channels: 4 } })
    .modulate({ hue, saturation: 0.9 + rnd() * 0.3 })
    .ensureAlpha()
    .raw()
    .toBuffer();
  for (let i = 0; i < shifted.length; i += 4) {
    const d = Math.round((rnd() - 0.5) * 12);
    shifted[i] = Math.max(0, Math.min(255, shifted[i]! + d));
    shifted[i + 1] = Math.max(0, Math.min(255, shifted[i + 1]! + d));
    shifted[i + 2] = Math.max(0, Math.min(255, shifted[i + 2]! + d));
    shifted[i + 3] = src.data[i + 3]!;
  }
  return blend({ data: shifted, width, height }, src, 0.4);
}
