// Image inputs of the image bot, checked against spec section 8: JPEG, PNG,
// static GIF or WEBP, at most 4 MB and MAX_INPUT_PIXELS, really decodable. A
// refusal names the field and the problem. Only the header is read here.
import type { Metadata } from "sharp";
import { loadSharp } from "../../lib/sharp.js";
import type { InputFile } from "../../../gen/omnigate/common/v1/common_pb.js";
import type { ImageBytes } from "../ports.js";
import { invalidArgument } from "../errors.js";
import { HEADER_ONLY, PIXEL_LIMIT_TEXT, withinPixelLimit } from "../pixel-limit.js";

export const MAX_IMAGE_BYTES = 4 * 1024 * 1024;

const ACCEPTED: Record<string, string> = {
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/pjpeg": "jpeg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
};

const MIME_OF: Record<string, string> = { jpeg: "image/jpeg", png: "image/png", gif: "image/gif", webp: "image/webp" };

export interface CheckedImage extends ImageBytes {
  width: number;
  height: number;
}

/** Validates one input image; `field` is the client's name for it (e.g. "base64Array[1]"). */
export async function checkImage(file: InputFile | undefined, field: string): Promise<CheckedImage> {
  if (!file || file.source.case !== "data") throw invalidArgument(`${field} is required: a base64 image with its data-URL prefix`, field);
  const data = file.source.value;
  const declared = file.mimeType.toLowerCase();
  if (!ACCEPTED[declared]) throw invalidArgument(`${field}: ${declared || "this"} format is not accepted; use JPEG, PNG, GIF (static) or WEBP`, field, "unsupported_format");
  if (data.byteLength === 0) throw invalidArgument(`${field}: the image is empty`, field);
  if (data.byteLength > MAX_IMAGE_BYTES) throw invalidArgument(`${field}: the image is ${(data.byteLength / 1048576).toFixed(1)} MB; at most 4 MB is accepted`, field, "too_large");
  let meta: Metadata;
  try {
    meta = await (await loadSharp())(data, { pages: -1, ...HEADER_ONLY }).metadata();
  } catch {
    throw invalidArgument(`${field}: the data is not a readable ${ACCEPTED[declared]!.toUpperCase()} image`, field, "unreadable_image");
  }
  const actual = String(meta.format) === "jpg" ? "jpeg" : String(meta.format);
  if (!MIME_OF[actual]) throw invalidArgument(`${field}: the data is ${actual.toUpperCase()}, not an accepted format (JPEG, PNG, GIF, WEBP)`, field, "unsupported_format");
  if (actual !== ACCEPTED[declared]) throw invalidArgument(`${field}: the prefix says ${declared} but the data is ${actual.toUpperCase()}`, field, "format_mismatch");
  if (actual === "gif" && (meta.pages ?? 1) > 1) throw invalidArgument(`${field}: animated GIFs are not accepted; send a static image`, field, "animated_gif");
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (!meta.width || !height) throw invalidArgument(`${field}: the image has no size`, field, "unreadable_image");
  if (!withinPixelLimit(meta.width, height)) {
    throw invalidArgument(`${field}: the image is ${meta.width}x${height} pixels; at most ${PIXEL_LIMIT_TEXT} are accepted`, field, "too_many_pixels");
  }
  return { data, mimeType: MIME_OF[actual]!, width: meta.width, height };
}

export async function checkImages(files: InputFile[], field: string): Promise<CheckedImage[]> {
  const out: CheckedImage[] = [];
  for (let i = 0; i < files.length; i++) out.push(await checkImage(files[i], `${field}[${i}]`));
  return out;
}
