// Pure mapping between a neutral VideoJob and the OpenAI Videos API: the
// create form (multipart, as openai@6.49 sends it), and what a polled Video
// says about the task.
import { Code, type ConnectError } from "@connectrpc/connect";
import { coreError } from "../../core/errors.js";
import { UpstreamFailure } from "../shared/http-errors.js";
import type { VideoJob } from "../../core/ports.js";
import type { Video } from "./wire.js";

export interface VendorFile {
  field: string;
  filename: string;
  mimeType: string;
  data: Uint8Array;
}

export interface CreateForm {
  fields: Array<[string, string]>;
  files: VendorFile[];
}

const EXT: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif" };
const RESERVED = new Set(["model", "prompt", "seconds", "size", "input_reference"]);

/** Vendor extras as form fields: scalars as text, objects as key[sub], arrays as repeated key[]. */
export function extraFields(metadata: Record<string, unknown>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const scalar = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : JSON.stringify(v));
  for (const [k, v] of Object.entries(metadata)) {
    if (RESERVED.has(k) || v === null || v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) out.push([`${k}[]`, scalar(item)]);
    else if (typeof v === "object") for (const [sk, sv] of Object.entries(v as Record<string, unknown>)) out.push([`${k}[${sk}]`, scalar(sv)]);
    else out.push([k, scalar(v)]);
  }
  return out;
}

export function toVendorCreate(job: VideoJob): CreateForm {
  const fields: Array<[string, string]> = [
    ["model", job.upstreamModel],
    ["prompt", job.prompt],
    ["seconds", String(job.duration)],
    ["size", `${job.width}x${job.height}`],
  ];
  const files: VendorFile[] = [];
  const ref = job.reference;
  if (ref?.data) files.push({ field: "input_reference", filename: `reference.${EXT[ref.mimeType] ?? "png"}`, mimeType: ref.mimeType || "image/png", data: ref.data });
  else if (ref?.url) fields.push(["input_reference[image_url]", ref.url]);
  fields.push(...extraFields(job.metadata));
  return { fields, files };
}

/** A failed video: the upstream's code (for the moderation check and the log) and its error object, for the log only. */
export type PollState = { state: "running"; progress: number } | { state: "completed" } | { state: "failed"; code: string; detail: string };

export function fromVendorVideo(v: Video): PollState {
  switch (v.status) {
    case "completed":
      return { state: "completed" };
    case "failed":
      return { state: "failed", code: v.error?.code || "", detail: JSON.stringify(v.error ?? null).slice(0, 4096) };
    default:
      return { state: "running", progress: Math.max(0, Math.min(99, Math.round(v.progress ?? 0))) };
  }
}

/** The error of a video the upstream failed, in the gateway's words; the upstream's code and text ride along as the cause, for the log. */
export function failedVideoError(code: string, vendor: string, detail = ""): ConnectError {
  if (code === "moderation_blocked" || code === "content_policy_violation") {
    return coreError(Code.InvalidArgument, "Your request was blocked by the moderation system.", { reason: "moderation_blocked", metadata: { upstream: vendor } });
  }
  const cause = new UpstreamFailure(`${vendor} upstream failed the video`, 200, code, detail);
  return coreError(Code.Internal, `The ${vendor} upstream could not generate the video.`, { reason: "video_generation_failed", metadata: { upstream: vendor }, cause });
}
