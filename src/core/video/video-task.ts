// A video task as the runner stores it (kind "video"): the payload the video
// core keeps next to the runner's RunState, and the neutral Video it shows.
// Pure: no storage, no clock.
import { type JsonObject } from "@bufbuild/protobuf";
import { create } from "../proto/create.js";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Status, VideoErrorSchema, VideoSchema, type Video } from "../../../gen/omnigate/video/v1/video_pb.js";
import type { StoredTask, TaskStatus } from "../tasks/types.js";

export const VIDEO_KIND = "video";

/** Where a task runs: the local engine or an upstream channel. */
export interface VideoRoute {
  /** "local", "openai-videos", "video-gateway". */
  provider: string;
  /** Channel name ("local" for the local engine). */
  channel: string;
  upstreamModel: string;
}

export interface VideoResult {
  /** "mp4" (the container ffprobe saw). */
  format: string;
  mimeType: string;
  videoFileId: string;
  thumbnailFileId?: string | undefined;
  spritesheetFileId?: string | undefined;
  /** Facts of the file as probed. */
  width: number;
  height: number;
  duration: number;
  fps: number;
  frames: number;
  sizeBytes: number;
  /** Epoch ms when the files expire. */
  expireTime: number;
}

export interface VideoPayload {
  model: string;
  prompt: string;
  width: number;
  height: number;
  duration: number;
  fps: number;
  seed: number;
  /** The parameters as the client set them ("" / 0 when unset). */
  given: { size: string; aspectRatio: string; duration: number; fps: number; seed?: number | undefined };
  /** Vendor extras for upstreams. */
  metadata: JsonObject;
  /** The reference image: a stored upload, and/or the client's URL. */
  reference?: { fileId?: string | undefined; url?: string | undefined; mimeType: string } | undefined;
  remixedFrom?: string | undefined;
  /** The parent of a remix, as the provider needs it. */
  remix?: { prompt: string; seed: number; channel: string; upstreamId?: string | undefined } | undefined;
  route: VideoRoute;
  /** What the provider saved to resume after a restart. */
  resume?: Record<string, unknown> | undefined;
  /** The upstream's id of the finished video. */
  upstreamId?: string | undefined;
  result?: VideoResult | undefined;
  error?: { code: string; message: string } | undefined;
}

export type VideoTask = StoredTask<VideoPayload>;

export function videoStatus(s: TaskStatus): Status {
  switch (s) {
    case "NOT_START":
    case "MODAL":
      return Status.QUEUED;
    case "SUBMITTED":
    case "IN_PROGRESS":
      return Status.IN_PROGRESS;
    case "SUCCESS":
      return Status.COMPLETED;
    default:
      return Status.FAILED;
  }
}

/** The error code of a task that failed without a code of its own (timeouts, restarts, cancels). */
export function failureCode(reason: string): string {
  if (reason.startsWith("timed out")) return "timeout";
  if (reason === "cancelled" || reason.startsWith("cancel")) return "cancelled";
  return "internal_error";
}

/** The neutral Video of a stored task; `url` is the signed URL of its video file ("" when none). */
export function toVideo(t: VideoTask, url: string): Video {
  const p = t.payload;
  const r = p.result;
  const status = videoStatus(t.run.status);
  const failed = status === Status.FAILED;
  const finished = t.run.finishTime;
  const reason = t.run.failReason ?? "failed";
  return create(VideoSchema, {
    id: t.id,
    model: p.model,
    prompt: p.prompt,
    status,
    progress: status === Status.COMPLETED ? 100 : Math.min(99, t.run.progress),
    duration: r?.duration ?? p.duration,
    fps: r?.fps ?? p.fps,
    width: r?.width ?? p.width,
    height: r?.height ?? p.height,
    seed: BigInt(p.seed),
    format: r?.format ?? "mp4",
    url: status === Status.COMPLETED ? url : "",
    ...(failed ? { error: create(VideoErrorSchema, p.error ?? { code: failureCode(reason), message: reason }) } : {}),
    createTime: timestampFromMs(t.run.submitTime),
    ...(finished !== undefined && (status === Status.COMPLETED || failed) ? { completeTime: timestampFromMs(finished) } : {}),
    ...(r && status === Status.COMPLETED ? { expireTime: timestampFromMs(r.expireTime) } : {}),
    remixedFrom: p.remixedFrom ?? "",
    metadata: p.metadata,
    channel: p.route.channel,
  });
}
