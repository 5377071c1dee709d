// Which model an image request runs on: the one it names, or the default of
// its operation (spec 4.2), checked against what that model can do.
import type { InputFile } from "../../../gen/omnigate/common/v1/common_pb.js";
import type { ImageOptions } from "../../../gen/omnigate/image/v1/image_pb.js";
import { invalidValue } from "./errors.js";
import type { ModelResolver, Operation, ResolvedModel } from "./profiles.js";

/** An image request as the core sees it, whatever RPC it came in on. */
export interface ImageCall {
  op: Operation;
  prompt: string;
  options: ImageOptions | undefined;
  images: InputFile[];
  mask?: InputFile | undefined;
  /** Set for a streamed call: the previews per image it asks for. */
  stream?: { partialImages: number } | undefined;
}

const C_ONLY_SIZES = new Set(["1536x1024", "1024x1536", "auto"]);
const C_ONLY_QUALITIES = new Set(["low", "medium", "high"]);

/** Spec 4.2: edits default to IMG_MODEL_A unless parameters specific to IMG_MODEL_C are used (streaming is one). */
function defaultModel(call: ImageCall): string {
  if (call.op !== "edit") return "IMG_MODEL_A";
  const o = call.options;
  const cOnly =
    !!call.stream ||
    call.images.length > 1 ||
    call.images.some((f) => /^image\/(jpeg|webp)$/.test(f.mimeType)) ||
    (!!o && (!!o.inputFidelity || !!o.outputFormat || !!o.background || !!o.moderation || o.outputCompression !== undefined || C_ONLY_QUALITIES.has(o.quality) || C_ONLY_SIZES.has(o.size)));
  return cOnly ? "IMG_MODEL_C" : "IMG_MODEL_A";
}

export function resolveModel(models: ModelResolver, call: ImageCall): ResolvedModel {
  const name = call.options?.model || defaultModel(call);
  const resolved = models.resolve(name);
  if (!resolved) throw invalidValue("model", name, models.names());
  if (!resolved.profile.operations.includes(call.op)) {
    const able = models.names().filter((n) => models.resolve(n)!.profile.operations.includes(call.op));
    throw invalidValue("model", name, able);
  }
  return resolved;
}
