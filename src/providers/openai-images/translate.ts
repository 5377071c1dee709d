// ImageJob <-> OpenAI Images API, pure. Parameters go up as the client set them
// (the core has already checked them against the model's rules), so the
// upstream's own defaults apply to everything left unset; a streamed job adds
// `stream` and `partial_images`.
import { create } from "../../core/proto/create.js";
import { ImageUsageSchema, type ImageUsage } from "../../../gen/omnigate/image/v1/image_pb.js";
import type { ImageJob } from "../../core/ports.js";
import type { ImagesResponse } from "./wire.js";

/** Profiles of the older models that take response_format; the gateway always asks them for b64_json. */
const TAKES_RESPONSE_FORMAT = new Set(["IMG_MODEL_A", "IMG_MODEL_B"]);

export const IMAGE_PATHS = { generate: "/images/generations", edit: "/images/edits", variation: "/images/variations" } as const;

export interface VendorFile {
  field: string;
  filename: string;
  mimeType: string;
  data: Uint8Array;
}

/** Text parameters shared by the three operations, as [name, value] pairs. */
function params(job: ImageJob, model: string): Array<[string, string | number]> {
  const g = job.given;
  const out: Array<[string, string | number]> = [["model", model]];
  if (job.operation !== "variation") out.push(["prompt", job.prompt]);
  out.push(["n", job.n]);
  if (g.size) out.push(["size", g.size]);
  if (g.quality) out.push(["quality", g.quality]);
  if (g.style) out.push(["style", g.style]);
  if (g.outputFormat) out.push(["output_format", g.outputFormat]);
  if (g.background) out.push(["background", g.background]);
  if (g.outputCompression !== undefined) out.push(["output_compression", g.outputCompression]);
  if (g.moderation) out.push(["moderation", g.moderation]);
  if (g.inputFidelity) out.push(["input_fidelity", g.inputFidelity]);
  if (TAKES_RESPONSE_FORMAT.has(job.profile)) out.push(["response_format", "b64_json"]);
  if (g.user) out.push(["user", g.user]);
  if (job.partialImages !== undefined) out.push(["partial_images", job.partialImages]);
  return out;
}

/** JSON body of POST /images/generations (`stream: true` for a streamed job). */
export function toVendorGenerate(job: ImageJob, model: string): Record<string, string | number | boolean> {
  const body: Record<string, string | number | boolean> = Object.fromEntries(params(job, model));
  if (job.partialImages !== undefined) body.stream = true;
  return body;
}

/** Multipart parts of POST /images/edits and /images/variations. */
export function toVendorForm(job: ImageJob, model: string): { fields: Array<[string, string]>; files: VendorFile[] } {
  const fields = params(job, model).map(([k, v]): [string, string] => [k, String(v)]);
  if (job.partialImages !== undefined) fields.push(["stream", "true"]);
  const several = job.images.length > 1;
  const files: VendorFile[] = job.images.map((img) => ({ field: several ? "image[]" : "image", filename: img.filename, mimeType: img.mimeType, data: img.data }));
  if (job.mask) files.push({ field: "mask", filename: job.mask.filename, mimeType: job.mask.mimeType, data: job.mask.data });
  return { fields, files };
}

export interface VendorImage {
  b64?: string | undefined;
  url?: string | undefined;
  revisedPrompt?: string | undefined;
}

export function fromVendorUsage(u: ImagesResponse["usage"]): ImageUsage | undefined {
  return u
    ? create(ImageUsageSchema, {
        inputTokens: BigInt(u.input_tokens),
        outputTokens: BigInt(u.output_tokens),
        totalTokens: BigInt(u.total_tokens ?? u.input_tokens + u.output_tokens),
        ...(u.input_tokens_details ? { inputTokensDetails: { textTokens: BigInt(u.input_tokens_details.text_tokens), imageTokens: BigInt(u.input_tokens_details.image_tokens) } } : {}),
        ...(u.output_tokens_details ? { outputTokensDetails: { textTokens: BigInt(u.output_tokens_details.text_tokens), imageTokens: BigInt(u.output_tokens_details.image_tokens) } } : {}),
      })
    : undefined;
}

export function fromVendorImages(body: ImagesResponse): { images: VendorImage[]; usage?: ImageUsage | undefined } {
  const images = body.data.map((d) => ({ b64: d.b64_json ?? undefined, url: d.url ?? undefined, revisedPrompt: d.revised_prompt || undefined }));
  return { images, usage: fromVendorUsage(body.usage) };
}

/** Usage of several completed events together (each reports its own image's share). */
export function addUsage(a: ImageUsage | undefined, b: ImageUsage | undefined): ImageUsage | undefined {
  if (!a || !b) return a ?? b;
  const details = (x: ImageUsage["inputTokensDetails"], y: ImageUsage["inputTokensDetails"]) =>
    x || y ? { textTokens: (x?.textTokens ?? 0n) + (y?.textTokens ?? 0n), imageTokens: (x?.imageTokens ?? 0n) + (y?.imageTokens ?? 0n) } : undefined;
  const input = details(a.inputTokensDetails, b.inputTokensDetails);
  const output = details(a.outputTokensDetails, b.outputTokensDetails);
  return create(ImageUsageSchema, {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...(input ? { inputTokensDetails: input } : {}),
    ...(output ? { outputTokensDetails: output } : {}),
  });
}
