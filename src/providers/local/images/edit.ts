// Local edits: new content where the mask is fully transparent, the original
// pixels everywhere else (bit for bit). The mask is the mask file, or the first
// image's own alpha; with neither transparent area (IMG_MODEL_C without a mask)
// the whole image is reworked as a blend of new content and the original
// (with a transparent background, the new content's alpha).
// Further images (IMG_MODEL_C) tint the new content as references.
import type { ImageJob } from "../../../core/ports.js";
import type { ArtSpec } from "./art.js";
import { decodeInput } from "./input.js";
import { alphaOf, blend, renderArt, type RawImage } from "./render.js";

export async function editImage(job: ImageJob, spec: ArtSpec): Promise<RawImage> {
  const { width, height } = job;
  const [first, ...refs] = job.images;
  const src = await decodeInput(first!, "image", width, height);
  const mask = job.mask ? alphaOf(await decodeInput(job.mask, "mask", width, height)) : alphaOf(src);
  const drawn = await renderArt(spec);
  let art = drawn;
  for (const ref of refs) art = blend(art, await decodeInput(ref, "image", width, height), 0.3);
  // References tint the colours only; the new content keeps its own alpha.
  if (refs.length) for (let i = 3; i < art.data.length; i += 4) art.data[i] = drawn.data[i]!;
  const whole = !mask.some((a) => a === 0);
  if (whole) {
    const out = blend(art, src, 0.45);
    // A transparent background stays transparent: the new content's alpha, not a mix with the source's.
    if (spec.transparent) for (let i = 3; i < out.data.length; i += 4) out.data[i] = art.data[i]!;
    return out;
  }
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
