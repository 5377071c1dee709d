// Admin procedures (keys, usage, channels, image-bot accounts, tasks and
// videos) for the console. The core enforces that only admin keys may call
// them (admin-tasks-router.ts for the task listings).
import { z } from "zod";
import { timestampDate, timestampFromMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { ApiKey, Channel } from "../../gen/omnigate/admin/v1/admin_pb.js";
import { FORMATS } from "../core/tenancy/scope.js";
import { accountsRouter, tasksRouter, videosRouter } from "./admin-tasks-router.js";
import { core, t } from "./trpc.js";
import { liveTasksRouter } from "./task-feed.js";
import { seriesInput, usageSeries } from "./usage-series.js";

const ms = (ts: Timestamp | undefined) => (ts ? timestampDate(ts).getTime() : null);

export function keyView(k: ApiKey) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    admin: k.admin,
    formats: k.formats,
    models: k.models,
    budget: k.budget,
    spent: k.spent,
    limits: {
      requestsPerMinute: k.limits?.requestsPerMinute ?? 0,
      tokensPerMinute: Number(k.limits?.tokensPerMinute ?? 0n),
      concurrentRequests: k.limits?.concurrentRequests ?? 0,
    },
    createTime: ms(k.createTime),
    expireTime: ms(k.expireTime),
    revokeTime: ms(k.revokeTime),
  };
}

export function channelView(c: Channel) {
  return {
    name: c.name,
    provider: c.provider,
    baseUrl: c.baseUrl,
    models: c.models,
    modelMap: { ...c.modelMap },
    priority: c.priority,
    weight: c.weight,
    enabled: c.enabled,
    coolingDown: c.coolingDown,
    lastError: c.lastError,
    lastErrorTime: ms(c.lastErrorTime),
  };
}

const limits = z.object({
  requestsPerMinute: z.number().int().min(0).default(0),
  tokensPerMinute: z.number().int().min(0).default(0),
  concurrentRequests: z.number().int().min(0).default(0),
});

const keyFields = z.object({
  name: z.string().min(1).max(200),
  admin: z.boolean().default(false),
  formats: z.array(z.enum(FORMATS)).default([]),
  models: z.array(z.string().min(1)).default([]),
  budget: z.number().min(0).default(0),
  limits: limits.default({ requestsPerMinute: 0, tokensPerMinute: 0, concurrentRequests: 0 }),
  expireTime: z.number().int().positive().nullable().default(null),
});

/** An update names only the fields it changes (no defaults: an absent field is kept). */
const keyPatch = z.object({
  id: z.string().min(1),
  name: z.string().min(1).max(200).optional(),
  admin: z.boolean().optional(),
  formats: z.array(z.enum(FORMATS)).optional(),
  models: z.array(z.string().min(1)).optional(),
  budget: z.number().min(0).optional(),
  limits: limits.optional(),
  expireTime: z.number().int().positive().nullable().optional(),
});

const toKeyInit = (k: Partial<z.infer<typeof keyFields>> & { id?: string }) => ({
  id: k.id ?? "",
  name: k.name ?? "",
  admin: k.admin ?? false,
  formats: k.formats ?? [],
  models: k.models ?? [],
  budget: k.budget ?? 0,
  ...(k.limits ? { limits: { ...k.limits, tokensPerMinute: BigInt(k.limits.tokensPerMinute) } } : {}),
  ...(k.expireTime ? { expireTime: timestampFromMs(k.expireTime) } : {}),
});

const MASK: Record<string, string> = { name: "name", admin: "admin", formats: "formats", models: "models", budget: "budget", limits: "limits", expireTime: "expire_time" };

export const adminRouter = t.router({
  channels: t.router({
    list: t.procedure.query(async ({ ctx }) => {
      const res = await core(() => ctx.clients.admin.listChannels({}, ctx.call));
      return res.channels.map(channelView);
    }),
    setEnabled: t.procedure.input(z.object({ name: z.string().min(1), enabled: z.boolean() })).mutation(async ({ input, ctx }) => {
      const res = await core(() => ctx.clients.admin.updateChannel({ name: input.name, enabled: input.enabled }, ctx.call));
      return channelView(res.channel!);
    }),
  }),
  accounts: accountsRouter,
  tasks: t.mergeRouters(tasksRouter, liveTasksRouter),
  videos: videosRouter,
  keys: t.router({
    create: t.procedure.input(keyFields).mutation(async ({ input, ctx }) => {
      const res = await core(() => ctx.clients.admin.createKey({ key: toKeyInit(input) }, ctx.call));
      return { key: keyView(res.key!), secret: res.secret };
    }),
    list: t.procedure.input(z.object({ includeRevoked: z.boolean().default(false) }).optional()).query(async ({ input, ctx }) => {
      const res = await core(() => ctx.clients.admin.listKeys({ includeRevoked: input?.includeRevoked ?? false, pageSize: 1000 }, ctx.call));
      return res.keys.map(keyView);
    }),
    update: t.procedure.input(keyPatch).mutation(async ({ input, ctx }) => {
      const mask = Object.keys(input).flatMap((k) => (MASK[k] && input[k as keyof typeof input] !== undefined ? [MASK[k]] : []));
      const res = await core(() => ctx.clients.admin.updateKey({ key: toKeyInit(input), updateMask: mask }, ctx.call));
      return keyView(res.key!);
    }),
    revoke: t.procedure.input(z.object({ id: z.string().min(1) })).mutation(async ({ input, ctx }) => {
      const res = await core(() => ctx.clients.admin.revokeKey({ id: input.id }, ctx.call));
      return keyView(res.key!);
    }),
  }),
  usage: t.procedure
    .input(
      z
        .object({
          keyId: z.string().optional(),
          format: z.string().optional(),
          model: z.string().optional(),
          since: z.number().int().optional(),
          until: z.number().int().optional(),
          limit: z.number().int().min(1).max(1000).default(100),
        })
        .optional(),
    )
    .query(async ({ input, ctx }) => {
      const res = await core(() =>
        ctx.clients.admin.queryUsage(
          {
            keyId: input?.keyId ?? "",
            format: input?.format ?? "",
            model: input?.model ?? "",
            ...(input?.since !== undefined ? { startTime: timestampFromMs(input.since) } : {}),
            ...(input?.until !== undefined ? { endTime: timestampFromMs(input.until) } : {}),
            pageSize: input?.limit ?? 100,
          },
          ctx.call,
        ),
      );
      return {
        records: res.records.map((r) => ({
          time: ms(r.time),
          keyId: r.keyId,
          format: r.format,
          model: r.model,
          channel: r.channel,
          inputTokens: Number(r.inputTokens),
          outputTokens: Number(r.outputTokens),
          images: Number(r.images),
          seconds: r.seconds,
          credits: r.credits,
          status: r.status,
          latencyMs: Number(r.latencyMs),
          requestId: r.requestId,
        })),
        totals: {
          requests: Number(res.totals?.requests ?? 0n),
          inputTokens: Number(res.totals?.inputTokens ?? 0n),
          outputTokens: Number(res.totals?.outputTokens ?? 0n),
          images: Number(res.totals?.images ?? 0n),
          seconds: res.totals?.seconds ?? 0,
          credits: res.totals?.credits ?? 0,
        },
      };
    }),
  /** Usage of a time range in equal buckets, per key, model or format (usage-series.ts). */
  usageSeries: t.procedure.input(seriesInput).query(({ input, ctx }) => usageSeries(ctx, input)),
});
