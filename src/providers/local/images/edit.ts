// Local edits: new content where the mask is fully transparent, the original
// pixels everywhere else (bit for bit). The mask is the mask file, or the first
// image's own alpha; with neither transparent area (IMG_MODEL_C without a mask)
// the whole image is reworked as a blend of new content and the original.
// Further images (IMG_MODEL_C) tint the new content as references.
import type { ImageJob } from "../../types.js";
import type { ArtSpec } from "./art.js";
import { decodeInput } from "./input.js";
import { alphaOf, blend, renderArt, type RawImage } from "./render.js";

export async function editImage(job: ImageJob, spec: ArtSpec): Promise<RawImage> {
  const { width, height } = job;
  const [first, ...refs] = job.images;
  const src = await decodeInput(first!, "image", width, height);
  const mask = job.mask ? alphaOf(await decodeInput(job.mask, "mask", width, height)) : alphaOf(src);
  let art = await renderArt(spec);
  for (const ref of refs) art = blend(art, await decodeInput(ref, "image", width, height), 0.3);
  const whole = !mask.some((a) => a === 0);
  if (whole) return blend(art, src, 0.45);
  const out = Buffer.from(src.data);
  for (let p = 0; p < mask.length; p++) {
    if (mask[p] !== 0) continue;
    const i = p * 4;
    out[i] = art.data[i]!;
    out[i + 1] = art.data[i + 1]!;
    out[i + 2] = art.data[i + 2]!;
    out[i + 3] = art.data[i + 3]!;
  }
  return { data: out, width, height };
}
