// Pure translation between the two video wires and the neutral VideoService:
// /v1/video/generations (task_id, processing|succeeded|failed, metadata) and
// OpenAI's /v1/videos (the Video object of openai@6.49).
import { type JsonObject } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import { timestampMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import { InputFileSchema, type InputFile } from "../../../gen/omnigate/common/v1/common_pb.js";
import {
  CreateVideoRequestSchema,
  ListVideosRequestSchema,
  Status,
  Variant,
  type CreateVideoRequest,
  type ListVideosRequest,
  type ListVideosResponse,
  type Video,
} from "../../../gen/omnigate/video/v1/video_pb.js";
import type { GenerationsBody, VideosCreateBody } from "./wire.js";

/** OpenAI's defaults for a create without seconds or size. */
export const OPENAI_DEFAULTS = { model: "sora-2", seconds: 4, size: "720x1280" } as const;

export interface UploadedFile {
  filename: string;
  mimeType: string;
  data: Uint8Array;
}

const uriFile = (uri: string) => create(InputFileSchema, { source: { case: "uri", value: uri } });

// ------------------------------------------------------------ /v1/video/generations

export function toCoreGenerations(b: GenerationsBody): CreateVideoRequest {
  return create(CreateVideoRequestSchema, {
    model: b.model ?? "",
    prompt: b.prompt,
    duration: b.duration ?? b.seconds ?? 0,
    size: b.size ?? "",
    aspectRatio: b.aspect_ratio ?? "",
    fps: b.fps ?? 0,
    ...(b.seed !== undefined ? { seed: BigInt(b.seed) } : {}),
    ...(b.image ? { inputReference: uriFile(b.image) } : {}),
    ...(b.metadata ? { metadata: b.metadata as JsonObject } : {}),
  });
}

export type GenerationsStatus = "processing" | "succeeded" | "failed";

export function generationsStatus(s: Status): GenerationsStatus {
  return s === Status.COMPLETED ? "succeeded" : s === Status.FAILED ? "failed" : "processing";
}

export interface GenerationsTask {
  task_id: string;
  status: GenerationsStatus;
  format: string;
  url?: string;
  /** 0..100 (an addition to spec 2.7, for pollers that show progress). */
  progress: number;
  metadata: { duration: number; fps: number; height: number; seed: number; width: number };
  error: { code: string; message: string } | null;
}

export function fromCoreTask(v: Video): GenerationsTask {
  const status = generationsStatus(v.status);
  return {
    task_id: v.id,
    status,
    format: v.format || "mp4",
    ...(status === "succeeded" && v.url ? { url: v.url } : {}),
    progress: v.progress,
    metadata: { duration: v.duration, fps: v.fps, height: v.height, seed: Number(v.seed), width: v.width },
    error: status === "failed" ? { code: v.error?.code || "internal_error", message: v.error?.message || "The video could not be generated." } : null,
  };
}

export const fromCoreSubmit = (v: Video): { task_id: string; status: GenerationsStatus } => ({ task_id: v.id, status: generationsStatus(v.status) });

// ------------------------------------------------------------ /v1/videos (OpenAI)

export type OpenAIStatus = "queued" | "in_progress" | "completed" | "failed";

export interface OpenAIVideo {
  id: string;
  object: "video";
  created_at: number;
  completed_at: number | null;
  expires_at: number | null;
  error: { code: string; message: string } | null;
  model: string;
  progress: number;
  prompt: string | null;
  remixed_from_video_id: string | null;
  seconds: string;
  size: string;
  status: OpenAIStatus;
}

const secs = (t: Timestamp | undefined) => (t ? Math.floor(timestampMs(t) / 1000) : null);

export function openaiStatus(s: Status): OpenAIStatus {
  switch (s) {
    case Status.COMPLETED:
      return "completed";
    case Status.FAILED:
      return "failed";
    case Status.IN_PROGRESS:
      return "in_progress";
    default:
      return "queued";
  }
}

export function fromCoreVideo(v: Video): OpenAIVideo {
  const status = openaiStatus(v.status);
  return {
    id: v.id,
    object: "video",
    created_at: secs(v.createTime) ?? 0,
    completed_at: secs(v.completeTime),
    expires_at: secs(v.expireTime),
    error: status === "failed" ? { code: v.error?.code || "internal_error", message: v.error?.message || "The video could not be generated." } : null,
    model: v.model,
    progress: v.progress,
    prompt: v.prompt || null,
    remixed_from_video_id: v.remixedFrom || null,
    seconds: String(v.duration),
    size: `${v.width}x${v.height}`,
    status,
  };
}

/** A create from JSON fields (or multipart text fields, already typed) and an optional uploaded file. */
export function toCoreVideosCreate(b: VideosCreateBody, file?: UploadedFile): CreateVideoRequest {
  let inputReference: InputFile | undefined;
  if (file) inputReference = create(InputFileSchema, { filename: file.filename, mimeType: file.mimeType, source: { case: "data", value: file.data } });
  else if (b.input_reference?.image_url) inputReference = uriFile(b.input_reference.image_url);
  return create(CreateVideoRequestSchema, {
    model: b.model || OPENAI_DEFAULTS.model,
    prompt: b.prompt,
    duration: b.seconds ?? OPENAI_DEFAULTS.seconds,
    size: b.size || OPENAI_DEFAULTS.size,
    ...(inputReference ? { inputReference } : {}),
  });
}

export function toCoreList(q: { after?: string | undefined; limit?: number | undefined; order?: "asc" | "desc" | undefined }): ListVideosRequest {
  return create(ListVideosRequestSchema, { after: q.after ?? "", limit: q.limit ?? 0, order: q.order ?? "" });
}

export function fromCoreList(res: ListVideosResponse): { object: "list"; data: OpenAIVideo[]; first_id: string | null; last_id: string | null; has_more: boolean } {
  const data = res.videos.map(fromCoreVideo);
  return { object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: res.hasMore };
}

export function toCoreVariant(v: "video" | "thumbnail" | "spritesheet" | undefined): Variant {
  return v === "thumbnail" ? Variant.THUMBNAIL : v === "spritesheet" ? Variant.SPRITESHEET : Variant.VIDEO;
}

/** Neutral field names -> the wire's parameter names. */
export const OPENAI_PARAMS: Record<string, string> = { duration: "seconds", aspect_ratio: "size", input_reference: "input_reference", id: "video_id" };
export const GENERATIONS_PARAMS: Record<string, string> = { input_reference: "image", id: "task_id" };
