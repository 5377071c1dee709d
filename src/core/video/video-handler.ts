// The video kind of the shared task runner: runs a stored video task on its
// provider (local engine or upstream channel), then probes what came back
// (the Video reports the file's real size, fps and length), cuts thumbnail and
// spritesheet from its real frames when the provider made none, and keeps all
// three in the blob store until they expire. A failure keeps its code (the
// ConnectError's reason) in the payload and its message as failReason.
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Code } from "@connectrpc/connect";
import type { VideoAsset, VideoJob, VideoOutput, VideoProvider, VideoReference } from "../ports.js";
import type { BlobStore } from "../../storage/blob/blob-store.js";
import { asConnectError, coreError, errorDetail } from "../errors.js";
import { TaskFailure, type ExecContext, type TaskHandler } from "../tasks/types.js";
import { extractStills, MIME, probe } from "./media.js";
import { fetchReference } from "./reference.js";
import type { VideoRouting } from "./video-routing.js";
import { VIDEO_KIND, type VideoPayload, type VideoResult, type VideoTask } from "./video-task.js";

export interface VideoHandlerDeps {
  routing: VideoRouting;
  blobs: BlobStore;
  /** How long finished files are kept. */
  ttlMs: number;
  /** A task not finished this long after it was queued or started fails. */
  timeoutMs: number;
  allowPrivateUrls: boolean;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void } | undefined;
  now: () => number;
  tmpDir?: string | undefined;
}

export async function readBlob(blobs: BlobStore, id: string): Promise<Buffer | undefined> {
  const b = await blobs.open(id);
  if (!b) return undefined;
  const chunks: Buffer[] = [];
  for await (const c of b.stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const FORMAT_MIME: Record<string, string> = { mp4: MIME.mp4, webm: MIME.webm, webp: MIME.webp };

export function videoHandler(deps: VideoHandlerDeps): TaskHandler<VideoPayload> {
  async function reference(p: VideoPayload, provider: VideoProvider, signal: AbortSignal): Promise<VideoReference | undefined> {
    const ref = p.reference;
    if (!ref) return undefined;
    if (ref.fileId) {
      const data = await readBlob(deps.blobs, ref.fileId);
      if (!data) throw coreError(Code.FailedPrecondition, "The reference image has expired.", { reason: "invalid_image", field: "input_reference" });
      return { data, mimeType: ref.mimeType, url: ref.url };
    }
    if (!ref.url) return undefined;
    if (provider.kind !== "local") return { mimeType: "", url: ref.url };
    const got = await fetchReference(ref.url, { allowPrivate: deps.allowPrivateUrls, signal });
    return { ...got, url: ref.url };
  }

  async function keep(task: VideoTask, out: VideoOutput, signal: AbortSignal): Promise<VideoResult> {
    const dir = await mkdtemp(path.join(deps.tmpDir ?? tmpdir(), "omnigate-video-"));
    try {
      const file = path.join(dir, "video");
      await writeFile(file, out.video.data);
      const facts = await probe(file, signal);
      if (!facts || facts.frames < 1) throw coreError(Code.Internal, "The generated file is not a readable video.", { reason: "invalid_video" });
      let thumbnail: VideoAsset | undefined = out.thumbnail;
      let spritesheet: VideoAsset | undefined = out.spritesheet;
      if (!thumbnail || !spritesheet) {
        const stills = { thumbnail: path.join(dir, "thumbnail.webp"), spritesheet: path.join(dir, "spritesheet.jpg") };
        try {
          await extractStills(file, facts, stills, signal);
          thumbnail ??= { data: await readFile(stills.thumbnail), mimeType: MIME.webp };
          spritesheet ??= { data: await readFile(stills.spritesheet), mimeType: MIME.jpeg };
        } catch (err) {
          if (signal.aborted) throw err;
          deps.log?.warn({ err, task: task.id }, "could not cut stills from a video");
        }
      }
      const put = (a: VideoAsset, mimeType = a.mimeType) => deps.blobs.put(a.data, { mimeType, kind: "video", ttlMs: deps.ttlMs, ...(task.ownerKeyId ? { ownerKeyId: task.ownerKeyId } : {}) });
      const video = await put(out.video, FORMAT_MIME[facts.format] ?? out.video.mimeType);
      const thumb = thumbnail && (await put(thumbnail));
      const sprite = spritesheet && (await put(spritesheet));
      return {
        format: facts.format || "mp4",
        mimeType: video.mimeType,
        videoFileId: video.id,
        thumbnailFileId: thumb?.id,
        spritesheetFileId: sprite?.id,
        width: facts.width,
        height: facts.height,
        duration: Math.round(facts.duration),
        fps: facts.fps,
        frames: facts.frames,
        sizeBytes: video.size,
        expireTime: video.expireTime ?? deps.now() + deps.ttlMs,
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  return {
    kind: VIDEO_KIND,
    timeoutMs: deps.timeoutMs,
    resume: () => true,
    callbackBody: videoEvent,

    async execute(task: VideoTask, ctx: ExecContext<VideoPayload>): Promise<VideoPayload> {
      let payload = task.payload;
      const provider = deps.routing.provider(payload.route.channel);
      if (!provider) throw new TaskFailure(`failed: the channel ${payload.route.channel} is no longer configured`);
      try {
        const job: VideoJob = {
          taskId: task.id,
          prompt: payload.prompt,
          upstreamModel: payload.route.upstreamModel,
          width: payload.width,
          height: payload.height,
          duration: payload.duration,
          fps: payload.fps,
          seed: payload.seed,
          given: payload.given,
          reference: await reference(payload, provider, ctx.signal),
          metadata: payload.metadata,
          remixOf: payload.remix
            ? { prompt: payload.remix.prompt, seed: payload.remix.seed, ...(payload.remix.channel === payload.route.channel ? { upstreamId: payload.remix.upstreamId } : {}) }
            : undefined,
          resume: payload.resume,
        };
        const out = await provider.run(job, {
          signal: ctx.signal,
          progress: async (percent) => {
            await ctx.progress(percent);
          },
          save: async (state) => {
            payload = { ...payload, resume: state };
            await ctx.save(payload);
          },
        });
        const result = await keep(task, out, ctx.signal);
        return { ...payload, result, upstreamId: out.upstreamId, resume: undefined, error: undefined };
      } catch (err) {
        if (ctx.signal.aborted || err instanceof TaskFailure) throw err;
        const e = asConnectError(err);
        deps.routing.report?.(payload.route.channel, e);
        const code = errorDetail(e)?.reason || "internal_error";
        const message = e.code === Code.Internal && !errorDetail(e)?.reason ? "The video could not be generated because of an internal error." : e.rawMessage;
        if (e.code === Code.Internal) deps.log?.error({ err, task: task.id }, "video task failed");
        await ctx.save({ ...payload, error: { code, message } }).catch(() => undefined);
        throw new TaskFailure(message);
      }
    },
  };
}

/**
 * The webhook of a finished video, as OpenAI sends it (an event naming the
 * video, which the receiver then fetches): video.completed or video.failed.
 * Other states send none.
 */
export function videoEvent(task: VideoTask): string | undefined {
  const type = task.run.status === "SUCCESS" ? "video.completed" : task.run.status === "FAILURE" ? "video.failed" : undefined;
  if (!type) return undefined;
  const created = Math.floor((task.run.finishTime ?? task.run.submitTime) / 1000);
  return JSON.stringify({ id: "evt_" + randomBytes(16).toString("hex"), object: "event", created_at: created, type, data: { id: task.id } });
}
