// Token usage the local engine reports for IMG_MODEL_C, derived from the inputs:
// text tokens of the prompt, image tokens per input image by its size, and
// output tokens by output size and quality (scaled by area from the 1024x1024
// figures: low 272, medium 1056, high 4160).
import { create } from "../../../core/proto/create.js";
import { ImageUsageSchema, type ImageUsage } from "../../../../gen/omnigate/image/v1/image_pb.js";
import { countText } from "../../../lib/tokenizer.js";

const OUTPUT_1024: Record<string, number> = { low: 272, medium: 1056, high: 4160 };

/** Input image tokens: fit within 2048x2048, shortest side down to 512, then 65 + 129 per 512px tile. */
export function inputImageTokens(width: number, height: number): number {
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const short = Math.min(1, 512 / Math.min(w, h));
  w *= short;
  h *= short;
  return 65 + 129 * Math.ceil(Math.round(w) / 512) * Math.ceil(Math.round(h) / 512);
}

export function outputImageTokens(width: number, height: number, quality: string): number {
  return Math.round(((OUTPUT_1024[quality] ?? OUTPUT_1024.high!) * width * height) / (1024 * 1024));
}

export function imageUsage(prompt: string, inputs: Array<{ width: number; height: number }>, out: { width: number; height: number; quality: string; n: number }): ImageUsage {
  const text = BigInt(countText(prompt));
  const image = BigInt(inputs.reduce((s, i) => s + inputImageTokens(i.width, i.height), 0));
  const output = BigInt(out.n * outputImageTokens(out.width, out.height, out.quality));
  return create(ImageUsageSchema, {
    inputTokens: text + image,
    outputTokens: output,
    totalTokens: text + image + output,
    inputTokensDetails: { textTokens: text, imageTokens: image },
    outputTokensDetails: { textTokens: 0n, imageTokens: output },
  });
}
