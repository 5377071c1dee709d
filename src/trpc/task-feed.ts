// The console's live task list: one snapshot of recent image-bot tasks and
// videos, then every change as it is committed. The runner's events only say
// which task changed; what the caller sees is read again through the core
// (ImageBotService.ListTasks, VideoService.GetVideo), with the caller's key.
import { z } from "zod";
import { Status, type Task } from "../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { WATCH_RESYNC_MS } from "../core/tasks/events.js";
import { adminOnly, taskView, videoView } from "./admin-tasks-router.js";
import type { TrpcContext } from "./context.js";
import { toTrpcError } from "./errors.js";
import { TRPCError } from "@trpc/server";
import { core, t } from "./trpc.js";

export const FEED_KINDS = ["image-bot", "video"] as const;
/** One vocabulary for both kinds: image-bot and video statuses differ. */
export const PHASES = ["queued", "running", "waiting", "succeeded", "failed", "cancelled"] as const;
export type FeedKind = (typeof FEED_KINDS)[number];
export type Phase = (typeof PHASES)[number];

const TASK_PHASE: Record<string, Phase> = {
  NOT_START: "queued",
  SUBMITTED: "running",
  IN_PROGRESS: "running",
  MODAL: "waiting",
  SUCCESS: "succeeded",
  FAILURE: "failed",
  CANCEL: "cancelled",
};
const VIDEO_PHASE: Record<string, Phase> = { QUEUED: "queued", IN_PROGRESS: "running", COMPLETED: "succeeded", FAILED: "failed" };
const TERMINAL: readonly Phase[] = ["succeeded", "failed", "cancelled"];

export interface FeedItem {
  kind: FeedKind;
  id: string;
  /** The kind's own status name (image-bot: SUCCESS, ...; video: COMPLETED, ...). */
  status: string;
  phase: Phase;
  progress: number;
  /** The image-bot action, or the video model. */
  label: string;
  prompt: string;
  /** The image (or running preview) of an image-bot task; "" for videos. */
  imageUrl: string;
  failReason: string;
  submitTime: number | null;
  finishTime: number | null;
}

export const feedInput = z
  .object({
    kind: z.enum(FEED_KINDS).optional(),
    phases: z.array(z.enum(PHASES)).default([]),
    limit: z.number().int().min(1).max(500).default(100),
  })
  .default({ phases: [], limit: 100 });
export type FeedInput = z.infer<typeof feedInput>;

export type FeedEvent = { type: "snapshot"; items: FeedItem[] } | { type: "update"; item: FeedItem };

export function taskItem(x: Task): FeedItem {
  const v = taskView(x);
  return {
    kind: "image-bot",
    id: v.id,
    status: v.status,
    phase: TASK_PHASE[v.status] ?? "queued",
    progress: v.progress,
    label: v.action,
    prompt: v.prompt,
    imageUrl: v.imageUrl,
    failReason: v.failReason,
    submitTime: v.submitTime,
    finishTime: v.finishTime,
  };
}

export function videoItem(v: ReturnType<typeof videoView>): FeedItem {
  return {
    kind: "video",
    id: v.id,
    status: v.status,
    // A cancelled video is FAILED with code "cancelled" on the wire; the list shows it as cancelled, like a cancelled task.
    phase: v.status === "FAILED" && v.error?.code === "cancelled" ? "cancelled" : (VIDEO_PHASE[v.status] ?? "queued"),
    progress: v.progress,
    label: v.model,
    prompt: v.prompt,
    imageUrl: "",
    failReason: v.error?.message ?? "",
    submitTime: v.createTime,
    finishTime: v.completeTime,
  };
}

const PHASE_STATUSES: Record<Phase, (keyof typeof Status)[]> = {
  queued: ["NOT_START"],
  running: ["SUBMITTED", "IN_PROGRESS"],
  waiting: ["MODAL"],
  succeeded: ["SUCCESS"],
  failed: ["FAILURE"],
  cancelled: ["CANCEL"],
};

async function snapshot(ctx: TrpcContext, input: FeedInput): Promise<FeedItem[]> {
  const wants = (kind: FeedKind) => !input.kind || input.kind === kind;
  const inPhase = (i: FeedItem) => input.phases.length === 0 || input.phases.includes(i.phase);
  const [tasks, videos] = await Promise.all([
    wants("image-bot")
      ? core(() => ctx.clients.imageBot.listTasks({ statuses: input.phases.flatMap((p) => PHASE_STATUSES[p]).map((s) => Status[s]), pageSize: input.limit }, ctx.call)).then((r) =>
          r.tasks.map(taskItem),
        )
      : [],
    // ListVideos has no status filter: the newest page, filtered here.
    wants("video") ? core(() => ctx.clients.video.listVideos({ limit: 100, order: "desc" }, ctx.call)).then((r) => r.videos.map((v) => videoItem(videoView(v)))) : [],
  ]);
  return [...tasks, ...videos]
    .filter(inPhase)
    .sort((a, b) => (b.submitTime ?? 0) - (a.submitTime ?? 0))
    .slice(0, input.limit);
}

/** Reads the current view of changed tasks; ones the caller may not see (or that are gone) are skipped. */
async function reread(ctx: TrpcContext, changed: Map<string, FeedKind>): Promise<FeedItem[]> {
  const ids = [...changed].filter(([, k]) => k === "image-bot").map(([id]) => id);
  const vids = [...changed].filter(([, k]) => k === "video").map(([id]) => id);
  const out: FeedItem[] = [];
  if (ids.length) {
    const res = await core(() => ctx.clients.imageBot.listTasks({ ids, pageSize: ids.length }, ctx.call));
    out.push(...res.tasks.map(taskItem));
  }
  for (const id of vids) {
    try {
      const res = await core(() => ctx.clients.video.getVideo({ id }, ctx.call));
      out.push(videoItem(videoView(res.video!)));
    } catch (err) {
      if (toTrpcError(err).code !== "NOT_FOUND") throw err;
    }
  }
  return out;
}

/**
 * The snapshot, then the changed tasks until the signal aborts. Changes that
 * arrive while a batch is being read are coalesced (each task is read once,
 * in its latest state). When changes come from other instances too (a bus
 * that may drop a message), unfinished tasks seen so far are re-read now and then.
 */
export async function* taskFeed(ctx: TrpcContext, input: FeedInput, requestSignal: AbortSignal, resyncMs = WATCH_RESYNC_MS): AsyncGenerator<FeedEvent> {
  const signal = AbortSignal.any([requestSignal, ctx.closing]);
  const pending = new Map<string, FeedKind>();
  const active = new Map<string, FeedKind>();
  let wake: (() => void) | undefined;
  const unsubscribe = ctx.taskEvents.subscribeAll((task) => {
    const kind = FEED_KINDS.find((k) => k === task.kind);
    if (!kind || (input.kind && input.kind !== kind)) return;
    pending.set(task.id, kind);
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener("abort", onAbort);
  const track = (i: FeedItem) => (TERMINAL.includes(i.phase) ? active.delete(i.id) : active.set(i.id, i.kind));
  try {
    const items = await snapshot(ctx, input);
    items.forEach(track);
    yield { type: "snapshot", items };
    while (!signal.aborted) {
      if (pending.size === 0) {
        let timer: NodeJS.Timeout | undefined;
        const resync = await new Promise<boolean>((resolve) => {
          wake = () => resolve(false);
          if (ctx.taskEvents.shared && active.size > 0) timer = setTimeout(() => resolve(true), resyncMs);
        });
        clearTimeout(timer);
        wake = undefined;
        if (resync) for (const [id, kind] of active) pending.set(id, kind);
        continue;
      }
      const batch = new Map(pending);
      pending.clear();
      for (const item of await reread(ctx, batch)) {
        track(item);
        yield { type: "update", item };
      }
    }
    // A retryable code: the client reconnects (to this instance once it is back, or another one).
    if (ctx.closing.aborted && !requestSignal.aborted) throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: "the gateway is shutting down" });
  } finally {
    unsubscribe();
    signal.removeEventListener("abort", onAbort);
  }
}

/** admin.tasks.live: every key's image-bot tasks and videos (merged into admin.tasks). */
export const liveTasksRouter = t.router({
  live: t.procedure
    .use(adminOnly)
    .input(feedInput)
    .subscription(({ input, ctx, signal }) => taskFeed(ctx, input, signal ?? new AbortController().signal)),
});
