// Partial images of a streamed local call: the final image seen through less
// and less blur (scaled down, then back up), so each preview is sharper than
// the one before and all of them are deterministic.
import { loadSharp } from "../../../lib/sharp.js";
import type { RawImage } from "./render.js";

/** How far preview `index` of `count` is scaled down: the last one by 8, each earlier one twice as far. */
export function previewFactor(index: number, count: number): number {
  return 2 ** (count - index + 2);
}

export async function preview(img: RawImage, factor: number): Promise<RawImage> {
  const sharp = await loadSharp();
  const { width, height } = img;
  const { data: small, info } = await sharp(img.data, { raw: { width, height, channels: 4 } })
    .resize(Math.max(1, Math.round(width / factor)), Math.max(1, Math.round(height / factor)), { fit: "fill" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const data = await sharp(small, { raw: { width: info.width, height: info.height, channels: 4 } })
    .resize(width, height, { fit: "fill", kernel: "cubic" })
    .raw()
    .toBuffer();
  return { data, width, height };
}
