// Admin procedures for asynchronous work: the image-bot account pool, and
// every key's image-bot tasks and videos. ImageBotService restricts accounts to
// admin keys itself; task and video listings show a non-admin key only its
// own, so these procedures first make sure the caller holds an admin key.
import { z } from "zod";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { Action, AccountMode, BotType, Status, type Account, type Task } from "../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { Status as VideoStatus, type Video } from "../../gen/omnigate/video/v1/video_pb.js";
import { core, t } from "./trpc.js";

const ms = (ts: Timestamp | undefined) => (ts ? timestampDate(ts).getTime() : null);

/** Passes admin keys only: AdminService answers PermissionDenied (FORBIDDEN) to any other key, and ListChannels is its cheapest call. */
export const adminOnly = t.middleware(async ({ ctx, next }) => {
  await core(() => ctx.clients.admin.listChannels({}, ctx.call));
  return next();
});

const MODES = ["RELAX", "FAST", "TURBO"] as const;
const BOT_TYPES = ["PRIMARY_BOT", "ANIME_BOT"] as const;
const TASK_STATUSES = ["NOT_START", "SUBMITTED", "MODAL", "IN_PROGRESS", "FAILURE", "SUCCESS", "CANCEL"] as const;

export function accountView(a: Account) {
  return {
    id: a.id,
    channel: a.channel,
    channelId: a.channelId,
    instanceId: a.instanceId,
    modes: a.modes.map((m) => AccountMode[m]),
    remark: a.remark,
    remix: a.remix,
    remixAutoSubmit: a.remixAutoSubmit,
    enabled: a.enabled,
    concurrency: a.concurrency,
    queueSize: a.queueSize,
    botTypes: a.botTypes.map((b) => BotType[b]),
    running: a.running,
    queued: a.queued,
    lastError: a.lastError,
    lastErrorTime: ms(a.lastErrorTime),
  };
}

export function taskView(x: Task) {
  return {
    id: x.id,
    action: Action[x.action],
    status: Status[x.status],
    prompt: x.prompt,
    promptEn: x.promptEn,
    description: x.description,
    failReason: x.failReason,
    progress: x.progress,
    imageUrl: x.imageUrl,
    botType: BotType[x.botType],
    accountId: x.accountId,
    parentId: x.parentId,
    submitTime: ms(x.submitTime),
    startTime: ms(x.startTime),
    finishTime: ms(x.finishTime),
  };
}

export function videoView(v: Video) {
  return {
    id: v.id,
    model: v.model,
    prompt: v.prompt,
    status: VideoStatus[v.status],
    progress: v.progress,
    seconds: v.duration,
    width: v.width,
    height: v.height,
    channel: v.channel,
    url: v.url,
    error: v.error ? { code: v.error.code, message: v.error.message } : null,
    remixedFrom: v.remixedFrom,
    createTime: ms(v.createTime),
    completeTime: ms(v.completeTime),
    expireTime: ms(v.expireTime),
  };
}

const accountFields = z.object({
  id: z.string().min(1),
  channelId: z.string().optional(),
  instanceId: z.string().optional(),
  modes: z.array(z.enum(MODES)).min(1).optional(),
  remark: z.string().max(500).optional(),
  remix: z.boolean().optional(),
  remixAutoSubmit: z.boolean().optional(),
  enabled: z.boolean().optional(),
  concurrency: z.number().int().min(1).max(100).optional(),
  queueSize: z.number().int().min(0).max(10_000).optional(),
  botTypes: z.array(z.enum(BOT_TYPES)).min(1).optional(),
});

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export const accountsRouter = t.router({
  list: t.procedure.query(async ({ ctx }) => {
    const res = await core(() => ctx.clients.imageBot.listAccounts({}, ctx.call));
    return res.accounts.map(accountView);
  }),
  update: t.procedure.input(accountFields).mutation(async ({ input, ctx }) => {
    const { id, modes, botTypes, ...rest } = input;
    const mask = Object.keys(input)
      .filter((k) => k !== "id" && input[k as keyof typeof input] !== undefined)
      .map(snake);
    const account = {
      id,
      ...rest,
      ...(modes ? { modes: modes.map((m) => AccountMode[m]) } : {}),
      ...(botTypes ? { botTypes: botTypes.map((b) => BotType[b]) } : {}),
    };
    const res = await core(() => ctx.clients.imageBot.updateAccount({ account, updateMask: mask }, ctx.call));
    return accountView(res.account!);
  }),
});

export const tasksRouter = t.router({
  list: t.procedure
    .use(adminOnly)
    .input(
      z
        .object({
          statuses: z.array(z.enum(TASK_STATUSES)).default([]),
          pageSize: z.number().int().min(1).max(1000).default(100),
          pageToken: z.string().default(""),
        })
        .optional(),
    )
    .query(async ({ input, ctx }) => {
      const res = await core(() =>
        ctx.clients.imageBot.listTasks({ statuses: (input?.statuses ?? []).map((s) => Status[s]), pageSize: input?.pageSize ?? 100, pageToken: input?.pageToken ?? "" }, ctx.call),
      );
      return { tasks: res.tasks.map(taskView), nextPageToken: res.nextPageToken };
    }),
});

export const videosRouter = t.router({
  list: t.procedure
    .use(adminOnly)
    .input(
      z
        .object({
          limit: z.number().int().min(1).max(100).default(20),
          after: z.string().default(""),
          order: z.enum(["asc", "desc"]).default("desc"),
        })
        .optional(),
    )
    .query(async ({ input, ctx }) => {
      const res = await core(() => ctx.clients.video.listVideos({ limit: input?.limit ?? 20, after: input?.after ?? "", order: input?.order ?? "desc" }, ctx.call));
      return { videos: res.videos.map(videoView), hasMore: res.hasMore };
    }),
});
