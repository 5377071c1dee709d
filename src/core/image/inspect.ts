// Checks the files of an edit or variation against the model's rules: size,
// format, squareness, transparency, and the mask's dimensions. Decodes only
// headers, plus the alpha statistics where transparency matters.
import type sharp from "sharp";
import { loadSharp } from "../../lib/sharp.js";
import type { InputFile } from "../../../gen/omnigate/common/v1/common_pb.js";
import type { ImageInput } from "../ports.js";
import { megabytes, missingParam, paramError, quoteList } from "./errors.js";
import type { InputRules } from "./profiles.js";
import { DECODE_LIMIT, HEADER_ONLY, MAX_INPUT_PIXELS, withinPixelLimit } from "../pixel-limit.js";

const MIME: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp", gif: "image/gif" };

export interface InspectedImage extends ImageInput {
  hasAlpha: boolean;
}

function bytesOf(file: InputFile, param: string): Uint8Array {
  if (file.source.case === "data") return file.source.value;
  if (file.source.case === "uri") throw paramError(param, "invalid_value", `Invalid '${param}': image URLs are not accepted; upload the file instead.`);
  throw missingParam(param);
}

/** Decodes the header of one file and applies the size and format rules. */
export async function inspectFile(file: InputFile, param: string, rules: { formats: string[]; maxBytes: number }): Promise<InspectedImage> {
  const data = bytesOf(file, param);
  const name = file.filename || param;
  if (data.byteLength >= rules.maxBytes) {
    throw paramError(param, "invalid_image_size", `Invalid file '${name}': images must be smaller than ${megabytes(rules.maxBytes)}, got ${megabytes(data.byteLength)}.`);
  }
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>["metadata"]>>;
  try {
    meta = await (await loadSharp())(data, HEADER_ONLY).metadata();
  } catch {
    throw paramError(param, "invalid_image_format", `Invalid file '${name}': not a valid image. Supported formats are: ${quoteList(rules.formats)}.`);
  }
  const format = String(meta.format ?? "").replace(/^jpg$/, "jpeg");
  if (!rules.formats.includes(format) || !meta.width || !meta.height) {
    throw paramError(param, "invalid_image_format", `Invalid file '${name}': unsupported image format '${format || "unknown"}'. Supported formats are: ${quoteList(rules.formats)}.`);
  }
  if (!withinPixelLimit(meta.width, meta.height)) {
    throw paramError(param, "invalid_image_size", `Invalid file '${name}': ${meta.width}x${meta.height} exceeds the maximum of ${MAX_INPUT_PIXELS} pixels.`);
  }
  return { data, mimeType: MIME[format] ?? file.mimeType, filename: name, format, width: meta.width, height: meta.height, hasAlpha: !!meta.hasAlpha };
}

/** True when the image has at least one fully transparent pixel. */
export async function hasTransparentPixels(img: InspectedImage): Promise<boolean> {
  if (!img.hasAlpha) return false;
  // This decodes the pixels: a file whose header passed but whose data is corrupt fails here
  // (sharp's stats() rejects some such files and answers no channels for others, e.g. a bad CRC).
  const stats = await (
    await loadSharp()
  )(img.data, DECODE_LIMIT)
    .stats()
    .catch(() => undefined);
  if (!stats?.channels.length) throw paramError("image", "invalid_image_format", `Invalid file '${img.filename}': the image data is corrupt and could not be decoded.`);
  return (stats.channels[stats.channels.length - 1]?.min ?? 255) === 0;
}

/** Applies the rules of an edit or variation to its images and mask. */
export async function inspectInputs(
  images: InputFile[],
  mask: InputFile | undefined,
  rules: InputRules,
  maskRules: { maxBytes: number } | undefined,
): Promise<{ images: InspectedImage[]; mask?: InspectedImage }> {
  if (images.length === 0) throw missingParam("image");
  if (images.length > rules.maxImages) {
    throw paramError("image", "too_many_images", `Invalid 'image': expected at most ${rules.maxImages} image${rules.maxImages > 1 ? "s" : ""}, got ${images.length}.`);
  }
  const checked: InspectedImage[] = [];
  for (const f of images) {
    const img = await inspectFile(f, "image", rules);
    if (rules.square && img.width !== img.height) {
      throw paramError("image", "image_not_square", `Invalid file '${img.filename}': images must be square, got ${img.width}x${img.height}.`);
    }
    checked.push(img);
  }
  const first = checked[0]!;
  if (!mask) {
    if (rules.transparencyWithoutMask && !(await hasTransparentPixels(first))) {
      throw paramError("image", "image_not_transparent", `Invalid file '${first.filename}': without a mask the image must have transparent areas (alpha 0), which mark where to edit.`);
    }
    return { images: checked };
  }
  const m = await inspectFile(mask, "mask", { formats: ["png"], maxBytes: maskRules?.maxBytes ?? rules.maxBytes });
  if (!m.hasAlpha) {
    throw paramError("mask", "invalid_mask_format", `Invalid file '${m.filename}': the mask must have an alpha channel; fully transparent areas mark where to edit.`);
  }
  if (m.width !== first.width || m.height !== first.height) {
    throw paramError("mask", "invalid_mask_size", `Invalid file '${m.filename}': the mask (${m.width}x${m.height}) must have the same dimensions as the image (${first.width}x${first.height}).`);
  }
  return { images: checked, mask: m };
}
