// OpenAI Images wire <-> the neutral image model. Pure: no I/O, no clock.
import { type MessageInitShape } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import { InputFileSchema, type InputFile } from "../../../gen/omnigate/common/v1/common_pb.js";
import {
  CreateImageVariationsRequestSchema,
  EditImagesRequestSchema,
  GenerateImagesRequestSchema,
  ImageOptionsSchema,
  ResponseFormat,
  StreamEditImagesRequestSchema,
  StreamGenerateImagesRequestSchema,
  type CreateImageVariationsRequest,
  type EditImagesRequest,
  type GenerateImagesRequest,
  type ImageBatch,
  type ImageUsage,
  type PartialImage,
  type StreamEditImagesRequest,
  type StreamGenerateImagesRequest,
} from "../../../gen/omnigate/image/v1/image_pb.js";
import type * as wire from "./wire.js";

export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  data: Uint8Array;
}

type OptionFields = Partial<wire.GenerationsBody & wire.EditFields & wire.VariationFields>;

function toCoreOptions(b: OptionFields): MessageInitShape<typeof ImageOptionsSchema> {
  return {
    model: b.model ?? "",
    n: b.n ?? 0,
    size: b.size ?? "",
    quality: b.quality ?? "",
    style: b.style ?? "",
    responseFormat: b.response_format === "b64_json" ? ResponseFormat.B64_JSON : b.response_format === "url" ? ResponseFormat.URL : ResponseFormat.UNSPECIFIED,
    outputFormat: b.output_format ?? "",
    background: b.background ?? "",
    ...(b.output_compression !== undefined && b.output_compression !== null ? { outputCompression: b.output_compression } : {}),
    moderation: b.moderation ?? "",
    user: b.user ?? "",
    ...(b.seed !== undefined && b.seed !== null ? { seed: BigInt(b.seed) } : {}),
    inputFidelity: b.input_fidelity ?? "",
  };
}

function toInputFile(f: UploadedFile): InputFile {
  return create(InputFileSchema, { filename: f.filename, mimeType: f.mimeType, source: { case: "data", value: f.data } });
}

export function toCoreGenerate(b: wire.GenerationsBody): GenerateImagesRequest {
  return create(GenerateImagesRequestSchema, { prompt: b.prompt, options: toCoreOptions(b) });
}

export function toCoreEdit(b: wire.EditFields, images: UploadedFile[], mask: UploadedFile | undefined): EditImagesRequest {
  return create(EditImagesRequestSchema, {
    prompt: b.prompt,
    images: images.map(toInputFile),
    ...(mask ? { mask: toInputFile(mask) } : {}),
    options: toCoreOptions(b),
  });
}

/** A generation with `stream: true`. */
export function toCoreStreamGenerate(b: wire.GenerationsBody): StreamGenerateImagesRequest {
  return create(StreamGenerateImagesRequestSchema, { prompt: b.prompt, options: toCoreOptions(b), partialImages: b.partial_images ?? 0 });
}

/** An edit with `stream: true`. */
export function toCoreStreamEdit(b: wire.EditFields, images: UploadedFile[], mask: UploadedFile | undefined): StreamEditImagesRequest {
  return create(StreamEditImagesRequestSchema, {
    prompt: b.prompt,
    images: images.map(toInputFile),
    ...(mask ? { mask: toInputFile(mask) } : {}),
    options: toCoreOptions(b),
    partialImages: b.partial_images ?? 0,
  });
}

export function toCoreVariation(b: wire.VariationFields, image: UploadedFile): CreateImageVariationsRequest {
  return create(CreateImageVariationsRequestSchema, { image: toInputFile(image), options: toCoreOptions(b) });
}

export function fromCoreBatch(batch: ImageBatch | undefined): wire.ImagesResponse {
  if (!batch) return { created: 0, data: [] };
  const out: wire.ImagesResponse = {
    created: Number(batch.created),
    data: batch.images.map((img) => {
      const o: wire.ImageObject = {};
      if (img.file?.url) o.url = img.file.url;
      else o.b64_json = b64(img.file?.data);
      if (img.revisedPrompt) o.revised_prompt = img.revisedPrompt;
      return o;
    }),
  };
  if (batch.background) out.background = batch.background;
  if (batch.outputFormat) out.output_format = batch.outputFormat;
  if (batch.quality) out.quality = batch.quality;
  if (batch.size) out.size = batch.size;
  if (batch.usage) out.usage = usageOf(batch.usage);
  return out;
}

function usageOf(u: ImageUsage): wire.Usage {
  return {
    input_tokens: Number(u.inputTokens),
    input_tokens_details: { text_tokens: Number(u.inputTokensDetails?.textTokens ?? 0n), image_tokens: Number(u.inputTokensDetails?.imageTokens ?? 0n) },
    output_tokens: Number(u.outputTokens),
    total_tokens: Number(u.totalTokens),
    ...(u.outputTokensDetails ? { output_tokens_details: { text_tokens: Number(u.outputTokensDetails.textTokens), image_tokens: Number(u.outputTokensDetails.imageTokens) } } : {}),
  };
}

const NO_USAGE: wire.Usage = { input_tokens: 0, input_tokens_details: { text_tokens: 0, image_tokens: 0 }, output_tokens: 0, total_tokens: 0 };

const b64 = (data: Uint8Array | undefined) => Buffer.from(data ?? new Uint8Array()).toString("base64");

/** A partial image as `<prefix>.partial_image`. */
export function fromCorePartial(prefix: wire.StreamPrefix, p: PartialImage): wire.ImageStreamEvent {
  return {
    type: `${prefix}.partial_image`,
    b64_json: b64(p.file?.data),
    background: p.background,
    created_at: Number(p.created),
    output_format: p.outputFormat,
    partial_image_index: p.partialImageIndex,
    quality: p.quality,
    size: p.size,
  };
}

/**
 * The batch as one `<prefix>.completed` per image, in order. The request's
 * usage rides on the last one (the others carry zeros, so the events add up
 * to it); a model that reports none gives zeros.
 */
export function fromCoreCompleted(prefix: wire.StreamPrefix, batch: ImageBatch): wire.ImageStreamEvent[] {
  const last = batch.images.length - 1;
  return batch.images.map((img, i) => ({
    type: `${prefix}.completed`,
    b64_json: b64(img.file?.data),
    background: batch.background,
    created_at: Number(batch.created),
    output_format: batch.outputFormat,
    quality: batch.quality,
    size: batch.size,
    usage: i === last && batch.usage ? usageOf(batch.usage) : NO_USAGE,
  }));
}
