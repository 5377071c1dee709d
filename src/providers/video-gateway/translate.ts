// Pure mapping between a neutral VideoJob and a remote /v1/video/generations:
// the submit body, and what a polled task says.
import { Code, type ConnectError } from "@connectrpc/connect";
import { coreError } from "../../core/errors.js";
import { UpstreamFailure } from "../shared/http-errors.js";
import type { VideoJob } from "../../core/ports.js";
import type { Task } from "./wire.js";

export interface SubmitBody {
  model: string;
  prompt: string;
  duration: number;
  fps: number;
  seed: number;
  size?: string;
  aspect_ratio?: string;
  image?: string;
  metadata?: Record<string, unknown>;
}

export function toVendorSubmit(job: VideoJob): SubmitBody {
  const body: SubmitBody = { model: job.upstreamModel, prompt: job.prompt, duration: job.duration, fps: job.fps, seed: job.seed };
  if (job.given.aspectRatio && !job.given.size) body.aspect_ratio = job.given.aspectRatio;
  else body.size = `${job.width}x${job.height}`;
  const ref = job.reference;
  if (ref?.url) body.image = ref.url;
  else if (ref?.data) body.image = `data:${ref.mimeType || "image/png"};base64,${Buffer.from(ref.data).toString("base64")}`;
  if (Object.keys(job.metadata).length) body.metadata = job.metadata;
  return body;
}

/** A failed task: the upstream's code (for the moderation check and the log) and its error, for the log only. */
export type GatewayState = { state: "running"; progress: number } | { state: "completed"; url: string } | { state: "failed"; code: string; detail: string };

const DONE = new Set(["succeeded", "success", "completed", "complete"]);
const FAILED = new Set(["failed", "failure", "error", "cancelled", "canceled"]);

function progressOf(p: number | string | null | undefined): number {
  const n = typeof p === "string" ? Number(p.replace(/%$/, "")) : (p ?? 0);
  return Number.isFinite(n) ? Math.max(0, Math.min(99, Math.round(n))) : 0;
}

export function fromVendorTask(t: Task): GatewayState | { state: "invalid"; why: string } {
  const status = t.status.toLowerCase();
  if (DONE.has(status)) {
    const meta = t.metadata ?? {};
    const url = t.url || t.video_url || (typeof meta.url === "string" ? meta.url : "") || (typeof meta.video_url === "string" ? meta.video_url : "");
    return url ? { state: "completed", url } : { state: "invalid", why: "a finished task without a url" };
  }
  if (FAILED.has(status)) {
    const raw = typeof t.error === "object" && t.error ? t.error.code : undefined;
    return { state: "failed", code: typeof raw === "string" ? raw : "", detail: JSON.stringify(t.error ?? null).slice(0, 4096) };
  }
  return { state: "running", progress: progressOf(t.progress) };
}

/** The error of a task the upstream failed, in the gateway's words; the upstream's code and text ride along as the cause, for the log. */
export function failedTaskError(code: string, vendor: string, detail = ""): ConnectError {
  if (code === "moderation_blocked" || code === "content_policy_violation") {
    return coreError(Code.InvalidArgument, "Your request was blocked by the moderation system.", { reason: "moderation_blocked", metadata: { upstream: vendor } });
  }
  const cause = new UpstreamFailure(`${vendor} upstream failed the task`, 200, code, detail);
  return coreError(Code.Internal, `The ${vendor} upstream could not generate the video.`, { reason: "video_generation_failed", metadata: { upstream: vendor }, cause });
}
