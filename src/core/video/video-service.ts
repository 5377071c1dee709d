// The neutral video core behind /v1/video/generations and /v1/videos: every
// video is a durable task of kind "video" on the shared task runner (stored
// from the moment it is accepted, resumed after a restart, failed past its
// timeout). A key sees its own videos; admin keys see all.
import { randomBytes, randomInt } from "node:crypto";
import { create } from "../proto/create.js";
import type { Call } from "../call/call.js";
import type { ServiceImpl } from "../call/service.js";
import { GeneratedFileSchema } from "../../../gen/omnigate/common/v1/common_pb.js";
import {
  CancelVideoResponseSchema,
  CreateVideoResponseSchema,
  DeleteVideoResponseSchema,
  GetVideoContentResponseSchema,
  GetVideoResponseSchema,
  ListVideosResponseSchema,
  RemixVideoResponseSchema,
  Variant,
  VideoService,
} from "../../../gen/omnigate/video/v1/video_pb.js";
import type { BlobStore } from "../../storage/blob/blob-store.js";
import { signFileUrl } from "../../storage/blob/signed-url.js";
import type { TaskRecord, TaskStore } from "../../storage/types.js";
import type { Principal } from "../call/call.js";
import { Code, coreError, invalidArgument, notFound } from "../errors.js";
import type { TaskRunner } from "../tasks/runner.js";
import { InvalidTransitionError, isTerminal, QueueFullError, type RunState } from "../tasks/types.js";
import { resolveParams } from "./params.js";
import { checkReference } from "./reference.js";
import { videoQueue, type VideoRouting } from "./video-routing.js";
import { toVideo, VIDEO_KIND, type VideoPayload, type VideoRoute, type VideoTask } from "./video-task.js";

export interface VideoServiceDeps {
  runner: TaskRunner;
  tasks: TaskStore;
  routing: VideoRouting;
  blobs: BlobStore;
  urlSecret: string;
  /** Configured public base URL; wins over the facade's header. */
  publicUrl?: string | undefined;
  allowPrivateUrls: boolean;
  /** Where finished videos are announced (video-handler.ts videoEvent); "" for nowhere. */
  notifyHook: string;
  /** Lifetime of stored reference images (and of results, set by the handler). */
  ttlMs: number;
  now: () => number;
}

const MAX_LIST = 100;
const DEFAULT_LIST = 20;

let idCounter = 0;

/**
 * A new video id: "video_" + 32 hex digits that sort by creation (12 of epoch
 * ms, 4 of a per-process counter, 16 random), so listings of videos made in
 * the same millisecond keep their order.
 */
export function newVideoId(nowMs: number): string {
  idCounter = (idCounter + 1) & 0xffff;
  return "video_" + Math.floor(nowMs).toString(16).padStart(12, "0").slice(-12) + idCounter.toString(16).padStart(4, "0") + randomBytes(8).toString("hex");
}

function fromRecord(r: TaskRecord): VideoTask {
  const data = r.data as { run: RunState; payload: VideoPayload };
  return { id: r.id, kind: r.kind, ownerKeyId: r.ownerKeyId, run: data.run, payload: data.payload, version: r.version, createTime: r.createTime, updateTime: r.updateTime };
}

const notReady = (id: string, what: string) => coreError(Code.FailedPrecondition, `Video ${id} is not completed yet; ${what}.`, { reason: "video_not_ready", field: "id" });

export function videoService(deps: VideoServiceDeps): ServiceImpl<typeof VideoService> {
  const base = (call: Call): string => (deps.publicUrl ? deps.publicUrl.replace(/\/+$/, "") : call.urlBase);

  const signed = (call: Call, fileId: string | undefined, expireTime: number): string => {
    const b = base(call);
    return b && fileId ? signFileUrl(b, fileId, expireTime, deps.urlSecret) : "";
  };

  const show = (t: VideoTask, call: Call) => toVideo(t, signed(call, t.payload.result?.videoFileId, t.payload.result?.expireTime ?? 0));

  /** The task when it exists, is a video and the caller may see it; NotFound otherwise. */
  async function visible(id: string, call: Call): Promise<VideoTask> {
    const p = call.principal;
    if (!id) throw invalidArgument("Missing required parameter: 'id'.", "id", "missing_required_parameter");
    const rec = /^[\w-]{1,128}$/.test(id) ? await deps.tasks.get(id) : undefined;
    if (!rec || rec.kind !== VIDEO_KIND || (!p.admin && rec.ownerKeyId !== p.keyId)) throw notFound(`Video with id '${id}' not found.`, "video_not_found");
    const t = fromRecord(rec);
    if (!t.run || !t.payload?.route) throw coreError(Code.Internal, "the stored video task is unreadable", { reason: "corrupt_task" });
    return t;
  }

  /** Accepts a task on the first of `routes` whose queue has room. */
  async function accept(routes: VideoRoute[], p: Principal, payload: Omit<VideoPayload, "route">): Promise<VideoTask> {
    const id = newVideoId(deps.now());
    let last: unknown;
    for (const route of routes) {
      deps.routing.provider(route.channel)?.admit?.(payload.prompt);
      try {
        const { task } = await deps.runner.create<VideoPayload>({
          id,
          kind: VIDEO_KIND,
          ownerKeyId: p.keyId,
          status: "NOT_START",
          queue: videoQueue(route.channel),
          notifyHook: deps.notifyHook,
          payload: { ...payload, route },
        });
        return task;
      } catch (err) {
        if (!(err instanceof QueueFullError)) throw err;
        last = err;
      }
    }
    throw coreError(Code.ResourceExhausted, "Too many video tasks are waiting; try again later.", { reason: "queue_full", cause: last, retryAfterMs: 5_000 });
  }

  return {
    async createVideo(req, call) {
      const p = call.principal;
      const params = resolveParams({ model: req.model, prompt: req.prompt, duration: req.duration, size: req.size, aspectRatio: req.aspectRatio, fps: req.fps, seed: req.seed });
      const routes = deps.routing.resolve(params.model);
      let reference: VideoPayload["reference"];
      if (req.inputReference) {
        const ref = await checkReference(req.inputReference, deps.allowPrivateUrls);
        if ("data" in ref) {
          const rec = await deps.blobs.put(ref.data, { mimeType: ref.mimeType, kind: "upload", ttlMs: deps.ttlMs, ownerKeyId: p.keyId });
          reference = { fileId: rec.id, mimeType: ref.mimeType };
        } else reference = { url: ref.url, mimeType: "" };
      }
      const accepted = accept(routes, p, {
        model: params.model,
        prompt: params.prompt,
        width: params.width,
        height: params.height,
        duration: params.duration,
        fps: params.fps,
        seed: params.seed ?? randomInt(0, 2 ** 31 - 1),
        given: { size: req.size, aspectRatio: req.aspectRatio, duration: req.duration, fps: req.fps, seed: params.seed },
        metadata: req.metadata ?? {},
        reference,
      });
      const task = await accepted.catch(async (err: unknown) => {
        if (reference?.fileId) await deps.blobs.delete(reference.fileId).catch(() => undefined);
        throw err;
      });
      return create(CreateVideoResponseSchema, { video: show(task, call) });
    },

    async getVideo(req, call) {
      return create(GetVideoResponseSchema, { video: show(await visible(req.id, call), call) });
    },

    async listVideos(req, call) {
      const p = call.principal;
      const limit = req.limit || DEFAULT_LIST;
      if (limit < 1 || limit > MAX_LIST) throw invalidArgument(`Invalid limit ${req.limit}: expected 1 to ${MAX_LIST}.`, "limit", "invalid_value");
      const order = req.order || "desc";
      if (order !== "asc" && order !== "desc") throw invalidArgument(`Invalid order '${req.order}': expected 'asc' or 'desc'.`, "order", "invalid_value");
      if (req.after) {
        await visible(req.after, call).catch(() => {
          throw invalidArgument(`Invalid 'after': no video with id '${req.after}'.`, "after", "invalid_value");
        });
      }
      const rows = await deps.tasks.list(VIDEO_KIND, { limit: limit + 1, order, ...(req.after ? { after: req.after } : {}), ...(p.admin ? {} : { ownerKeyId: p.keyId }) });
      const videos = rows.slice(0, limit).map((r) => show(fromRecord(r), call));
      return create(ListVideosResponseSchema, { videos, hasMore: rows.length > limit });
    },

    async deleteVideo(req, call) {
      const t = await visible(req.id, call);
      if (!isTerminal(t.run.status)) {
        await deps.runner.cancel(t.id, "deleted").catch((err) => {
          if (!(err instanceof InvalidTransitionError)) throw err;
        });
      }
      await deps.tasks.delete(t.id);
      const r = t.payload.result;
      const files = [r?.videoFileId, r?.thumbnailFileId, r?.spritesheetFileId, t.payload.reference?.fileId].filter((f): f is string => !!f);
      await Promise.all(files.map((f) => deps.blobs.delete(f)));
      return create(DeleteVideoResponseSchema, { id: t.id, deleted: true });
    },

    // The runner's CANCEL: the handler's work is aborted, the video reads as
    // failed with code "cancelled", and task-refunds gives the charge back.
    async cancelVideo(req, call) {
      const t = await visible(req.id, call);
      const finished = () => coreError(Code.FailedPrecondition, `Video ${t.id} has already finished (status ${t.run.status}).`, { reason: "video_finished", field: "id" });
      if (isTerminal(t.run.status)) throw finished();
      try {
        return create(CancelVideoResponseSchema, { video: show(await deps.runner.cancel<VideoPayload>(t.id, "cancelled by the client"), call) });
      } catch (err) {
        // It finished between the read and the cancel.
        if (err instanceof InvalidTransitionError) throw finished();
        throw err;
      }
    },

    async remixVideo(req, call) {
      const p = call.principal;
      const parent = await visible(req.id, call);
      if (!req.prompt.trim()) throw invalidArgument("Missing required parameter: 'prompt'.", "prompt", "missing_required_parameter");
      if (parent.run.status !== "SUCCESS") throw notReady(parent.id, "only completed videos can be remixed");
      const params = resolveParams({
        model: parent.payload.model,
        prompt: req.prompt,
        duration: parent.payload.duration,
        size: `${parent.payload.width}x${parent.payload.height}`,
        aspectRatio: "",
        fps: parent.payload.fps,
      });
      const routes = deps.routing.resolve(params.model);
      const same = routes.findIndex((r) => r.channel === parent.payload.route.channel);
      if (same > 0) routes.unshift(...routes.splice(same, 1));
      const pp = parent.payload;
      const task = await accept(routes, p, {
        model: pp.model,
        prompt: params.prompt,
        width: pp.width,
        height: pp.height,
        duration: pp.duration,
        fps: pp.fps,
        seed: pp.seed,
        given: pp.given,
        metadata: pp.metadata,
        remixedFrom: parent.id,
        remix: { prompt: pp.prompt, seed: pp.seed, channel: pp.route.channel, upstreamId: pp.upstreamId },
      });
      return create(RemixVideoResponseSchema, { video: show(task, call) });
    },

    async getVideoContent(req, call) {
      const t = await visible(req.id, call);
      const r = t.payload.result;
      if (t.run.status !== "SUCCESS" || !r) throw notReady(t.id, "its content can be downloaded once it has completed");
      const variant = req.variant === Variant.UNSPECIFIED ? Variant.VIDEO : req.variant;
      const fileId = variant === Variant.VIDEO ? r.videoFileId : variant === Variant.THUMBNAIL ? r.thumbnailFileId : variant === Variant.SPRITESHEET ? r.spritesheetFileId : undefined;
      if (!fileId) throw notFound(`Video ${t.id} has no ${Variant[variant]?.toLowerCase() ?? "such"} content.`, "content_not_found");
      const blob = await deps.blobs.open(fileId);
      if (!blob || (blob.record.expireTime !== undefined && blob.record.expireTime <= deps.now())) {
        blob?.stream.destroy();
        throw notFound(`The content of video ${t.id} has expired.`, "content_expired");
      }
      const chunks: Buffer[] = [];
      for await (const c of blob.stream) chunks.push(c as Buffer);
      const data = Buffer.concat(chunks);
      const video = variant === Variant.VIDEO;
      return create(GetVideoContentResponseSchema, {
        file: create(GeneratedFileSchema, {
          fileId,
          mimeType: blob.record.mimeType,
          url: signed(call, fileId, blob.record.expireTime ?? r.expireTime),
          data,
          width: video ? r.width : 0,
          height: video ? r.height : 0,
          sizeBytes: BigInt(data.byteLength),
        }),
      });
    },
  };
}
