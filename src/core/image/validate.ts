// Meaning checks of an image request against its model's profile: which
// parameters the model has, their values, and the defaults that apply. Pure:
// file checks live in inspect.ts.
import { create } from "../proto/create.js";
import { ImageOptionsSchema, ResponseFormat, type ImageOptions } from "../../../gen/omnigate/image/v1/image_pb.js";
import type { ImageJob } from "../ports.js";
import { integerAbove, integerBelow, invalidValue, missingParam, paramError, stringTooLong, unsupportedParam } from "./errors.js";
import { parseSize, type ImageProfile, type Operation } from "./profiles.js";

/** The checked request, before the output size of an "auto" edit is known. */
export interface CheckedOptions {
  n: number;
  /** The size after defaults: "1024x1024", or "auto". */
  size: string;
  quality: string;
  style: string;
  responseFormat: "url" | "b64_json";
  outputFormat: ImageJob["outputFormat"];
  background: ImageJob["background"];
  outputCompression?: number | undefined;
  seed?: number | undefined;
  given: ImageJob["given"];
}

function oneOf(param: string, value: string, allowed: readonly string[] | undefined, model: string): void {
  if (!value) return;
  if (!allowed) throw unsupportedParam(param, model);
  if (!allowed.includes(value)) throw invalidValue(param, value, allowed);
}

export function checkPrompt(op: Operation, profile: ImageProfile, prompt: string): void {
  if (op === "variation") return;
  if (!prompt) throw missingParam("prompt");
  const max = profile.promptMax[op];
  const len = [...prompt].length;
  if (max !== undefined && len > max) throw stringTooLong("prompt", max, len);
}

export function checkOptions(op: Operation, profile: ImageProfile, model: string, o: ImageOptions | undefined): CheckedOptions {
  const opts = o ?? create(ImageOptionsSchema);
  const n = opts.n;
  if (n < 0) throw integerBelow("n", 1, n);
  if (n > profile.nMax) throw integerAbove("n", profile.nMax, n);

  const sizes = profile.sizes[op] ?? [];
  const givenSize = opts.size;
  if (givenSize && !sizes.includes(givenSize)) throw invalidValue("size", givenSize, sizes);
  const size = givenSize || (sizes.includes(profile.defaultSize) ? profile.defaultSize : sizes[0]!);

  const quality = opts.quality;
  oneOf("quality", quality, profile.qualities, model);
  const style = opts.style;
  oneOf("style", style, profile.styles, model);
  const outputFormat = opts.outputFormat;
  oneOf("output_format", outputFormat, profile.outputFormats, model);
  const background = opts.background;
  oneOf("background", background, profile.backgrounds, model);
  const moderation = opts.moderation;
  oneOf("moderation", moderation, profile.moderation, model);
  const inputFidelity = opts.inputFidelity;
  oneOf("input_fidelity", inputFidelity, op === "edit" ? profile.inputFidelity : undefined, model);

  const format = (outputFormat || "png") as ImageJob["outputFormat"];
  if (background === "transparent" && !(profile.transparentFormats ?? []).includes(format)) {
    const ok = profile.transparentFormats ?? [];
    throw paramError(
      "background",
      "invalid_value",
      `Invalid value: 'transparent'. A transparent background is not supported with output_format '${format}'; use ${ok.length > 1 ? "one of " : ""}${ok.map((f) => `'${f}'`).join(" or ")}.`,
    );
  }

  const compression = opts.outputCompression;
  if (compression !== undefined) {
    if (!profile.outputCompression) throw unsupportedParam("output_compression", model);
    if (compression < 0) throw integerBelow("output_compression", 0, compression);
    if (compression > 100) throw integerAbove("output_compression", 100, compression);
  }

  let seed: number | undefined;
  if (opts.seed !== undefined) {
    seed = Number(opts.seed);
    if (!Number.isSafeInteger(seed)) throw paramError("seed", "invalid_value", "Invalid 'seed': expected a safe integer.");
  }

  let resolvedQuality = profile.qualities ? quality || profile.defaultQuality || "" : "";
  if (resolvedQuality === "auto") resolvedQuality = profile.autoQuality ?? resolvedQuality;
  return {
    n: n || 1,
    size,
    quality: resolvedQuality,
    style: profile.styles ? style || profile.defaultStyle || "" : "",
    responseFormat: opts.responseFormat === ResponseFormat.B64_JSON ? "b64_json" : opts.responseFormat === ResponseFormat.URL ? "url" : profile.defaultResponseFormat,
    outputFormat: format,
    background: background === "transparent" ? "transparent" : "opaque",
    outputCompression: compression,
    seed,
    given: {
      size: givenSize,
      quality,
      style,
      outputFormat,
      background,
      outputCompression: compression,
      moderation,
      inputFidelity,
      responseFormat: opts.responseFormat === ResponseFormat.B64_JSON ? "b64_json" : opts.responseFormat === ResponseFormat.URL ? "url" : "",
      user: opts.user,
    },
  };
}

export const MAX_PARTIAL_IMAGES = 3;

/**
 * A streamed call: only models that stream (as OpenAI refuses `stream` for
 * the DALL-E models), 0 to 3 partial images, and images inline (the stream's
 * events carry b64_json only).
 */
export function checkStream(profile: ImageProfile, partialImages: number, checked: CheckedOptions): void {
  if (!profile.streams) throw paramError("stream", "unsupported_value", "Unsupported value: 'stream' does not support true with this model. Supported values are: false.");
  if (partialImages < 0) throw integerBelow("partial_images", 0, partialImages);
  if (partialImages > MAX_PARTIAL_IMAGES) throw integerAbove("partial_images", MAX_PARTIAL_IMAGES, partialImages);
  if (checked.given.responseFormat === "url") throw paramError("response_format", "invalid_value", "Invalid value: 'url'. A streamed response carries its images as b64_json only.");
}

/** Output dimensions: the size itself, or for "auto" the first input image (edits) or 1024x1024. */
export function resolveDimensions(size: string, profile: ImageProfile, op: Operation, firstImage?: { width: number; height: number }): { width: number; height: number } {
  const fixed = parseSize(size);
  if (fixed) return fixed;
  if (op === "edit" && firstImage && Math.max(firstImage.width, firstImage.height) <= 2048) return { width: firstImage.width, height: firstImage.height };
  const candidates = (profile.sizes[op] ?? []).map(parseSize).filter((s): s is { width: number; height: number } => !!s);
  if (firstImage && candidates.length) {
    const aspect = firstImage.width / firstImage.height;
    return candidates.reduce((best, c) => (Math.abs(c.width / c.height - aspect) < Math.abs(best.width / best.height - aspect) ? c : best));
  }
  return { width: 1024, height: 1024 };
}
