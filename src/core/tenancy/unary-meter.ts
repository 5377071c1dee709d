// Budgets, model scopes and usage records for unary calls whose price is
// known from the request (images by count, size and quality; video by
// seconds; image-bot submits by action): check the model scope, reserve the
// price, keep it when the call succeeds (settled at what was really
// produced), refund it when the call fails. Calls whose service does not
// record its own usage (image-bot submits, video) get one usage record here:
// the credits charged, or status `error:<code>` and 0 credits on failure.
import type { DescMethod } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { ImageService } from "../../../gen/omnigate/image/v1/image_pb.js";
import { VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import { Action, TaskService } from "../../../gen/omnigate/task/v1/task_pb.js";
import { recordQuietly, type UsageRecord, type UsageStore } from "../../storage/types.js";
import { formatKey, principalKey, requestIdKey, reservedCreditsKey, usageNoteKey, type Principal, type UsageNote } from "../context.js";
import { asConnectError } from "../errors.js";
import { parseCustomId, type ButtonAction } from "../image-bot/custom-id.js";
import type { Budgets } from "./budget.js";
import { imageBotCost, imageCost, videoCost, type PriceTable } from "./prices.js";
import { checkModel } from "./scope.js";
import { LIMITS } from "../video/params.js";

/** The usage fields a meter fills in (the interceptor adds key, format, credits, status, latency, request id). */
export type MeteredUsage = Pick<UsageRecord, "model" | "channel" | "images" | "seconds">;

export interface Meter {
  /** The client-facing model of the request ("" when the request has none). */
  model(req: unknown): string;
  /** Credits the request will cost at most. */
  estimate(prices: PriceTable, req: unknown): number;
  /** Credits the response really cost. */
  actual(prices: PriceTable, req: unknown, res: unknown): number;
  /** Usage record fields, for calls whose service records no usage itself; `res` is undefined when the call failed. */
  usage?(req: unknown, res: unknown): MeteredUsage;
  /** Status of a successful call's record (default "ok"). */
  status?(res: unknown): string;
}

interface ImageOpts {
  model: string;
  n?: number;
  size: string;
  quality: string;
}
interface ImageReq {
  options?: ImageOpts;
}
interface ImageBatchLike {
  images: unknown[];
  size: string;
  quality: string;
}
interface ImageRes {
  batch?: ImageBatchLike;
}

/** The price of the images a batch holds, at the size and quality it reports (else the request's). */
export function imageCredits(prices: PriceTable, o: ImageOpts | undefined, b: ImageBatchLike | undefined): number {
  return imageCost(prices, o?.model ?? "", b?.size || o?.size || "", b?.quality || o?.quality || "", b?.images.length ?? 0);
}

/** ImageService records its own usage (image-service.ts, with imageCredits), so no `usage` here. */
const imageMeter: Meter = {
  model: (r) => (r as ImageReq).options?.model ?? "",
  estimate: (p, r) => {
    const o = (r as ImageReq).options;
    return imageCost(p, o?.model ?? "", o?.size ?? "", o?.quality ?? "", Math.max(1, o?.n ?? 1));
  },
  actual: (p, r, res) => imageCredits(p, (r as ImageReq).options, (res as ImageRes).batch),
};

interface VideoReq {
  model?: string;
  duration?: number;
}
interface VideoRes {
  video?: { model: string; duration: number; channel: string };
}

const videoMeter: Meter = {
  model: (r) => (r as VideoReq).model ?? "",
  estimate: (p, r) => videoCost(p, (r as VideoReq).model ?? "", (r as VideoReq).duration || 0),
  actual: (p, r, res) => {
    const v = (res as VideoRes).video;
    return videoCost(p, v?.model || (r as VideoReq).model || "", v?.duration ?? (r as VideoReq).duration ?? 0);
  },
  usage: (r, res) => {
    const v = (res as VideoRes | undefined)?.video;
    return { model: v?.model || (r as VideoReq).model || "", channel: v?.channel ?? "", images: 0, seconds: v?.duration ?? 0 };
  },
};

interface TaskReq {
  action?: Action;
  customId?: string;
}
interface TaskRes {
  result?: { code: number };
}

const accepted = (res: unknown) => {
  const code = (res as TaskRes).result?.code;
  return code === 1 || code === 22;
};

/** The action a button starts (action-plan.ts), for its price. */
const BUTTON_ACTIONS: Record<ButtonAction["kind"], string> = {
  upsample: "UPSCALE",
  upscale_2x: "UPSCALE",
  variation: "VARIATION",
  low_variation: "VARIATION",
  high_variation: "VARIATION",
  reroll: "REROLL",
  inpaint: "INPAINT",
  outpaint: "ZOOM",
  custom_zoom: "ZOOM",
  pan: "PAN",
  pic_reader: "IMAGINE",
  prompt_analyzer: "IMAGINE",
  picread_retry: "DESCRIBE",
};

export const buttonAction = (customId: string): string => {
  const kind = parseCustomId(customId)?.action.kind;
  return kind ? BUTTON_ACTIONS[kind] : "ACTION";
};

/**
 * Image-bot submissions cost their action's price, kept only when the task was
 * accepted (code 1 or 22). The record's model is the action; a confirmed modal
 * costs nothing (its action was charged when it was submitted).
 */
const taskMeter = (actionOf: (req: unknown) => string, free = false): Meter => ({
  model: () => "",
  estimate: (p, r) => (free ? 0 : imageBotCost(p, actionOf(r))),
  actual: (p, r, res) => (!free && accepted(res) ? imageBotCost(p, actionOf(r)) : 0),
  usage: (r) => ({ model: actionOf(r), channel: "", images: 0, seconds: 0 }),
  status: (res) => (accepted(res) ? "ok" : `rejected:${(res as TaskRes).result?.code ?? 0}`),
});

export const METERS = new Map<DescMethod, Meter>([
  [TaskService.method.submitTask, taskMeter((r) => Action[(r as TaskReq).action ?? Action.UNSPECIFIED] ?? "*")],
  [TaskService.method.submitAction, taskMeter((r) => buttonAction((r as TaskReq).customId ?? ""))],
  [TaskService.method.submitModal, taskMeter(() => "MODAL", true)],
  [ImageService.method.generateImages, imageMeter],
  [ImageService.method.editImages, imageMeter],
  [ImageService.method.createImageVariations, imageMeter],
  [VideoService.method.createVideo, videoMeter],
  // A remix's model and length are only known from the source video: reserve the worst case (the dearest
  // per-second price for the longest video), settle at what was made.
  [VideoService.method.remixVideo, { ...videoMeter, estimate: (p) => Math.max(0, ...p.video.map((r) => r.perSecond)) * LIMITS.duration }],
]);

export interface UnaryMeterDeps {
  prices: PriceTable;
  budgets: Budgets;
  meters?: Map<DescMethod, Meter>;
  /** Where usage records go; unset: none are written. */
  usage?: UsageStore | undefined;
  now?: () => number;
}

export function unaryMeterInterceptor(deps: UnaryMeterDeps): Interceptor {
  const meters = deps.meters ?? METERS;
  const now = deps.now ?? Date.now;
  // Calls without a meter pass straight through (no async frame of their own).
  return (next) => (req) => {
    const meter = meters.get(req.method);
    const p = meter && !req.stream ? req.contextValues.get(principalKey) : undefined;
    if (!meter || !p || req.stream) return next(req);
    return metered(next, req, meter, p);
  };

  async function metered(next: Parameters<Interceptor>[0], req: Parameters<ReturnType<Interceptor>>[0], meter: Meter, p: Principal) {
    const model = meter.model(req.message);
    if (model) checkModel(p, model);
    const hold = await deps.budgets.reserve(p.keyId, meter.estimate(deps.prices, req.message));
    if (hold.reserved > 0) req.contextValues.set(reservedCreditsKey, hold.reserved);
    const recorder = deps.usage && meter.usage ? deps.usage : undefined;
    const note: UsageNote = {};
    if (recorder) req.contextValues.set(usageNoteKey, note);
    const started = now();
    const record = (res: unknown, credits: number, status: string) => {
      if (!recorder) return;
      const u = meter.usage!(req.message, res);
      recordQuietly(recorder, {
        time: started,
        keyId: p.keyId,
        format: req.contextValues.get(formatKey),
        model: note.model || u.model,
        channel: note.channel || u.channel,
        inputTokens: 0,
        outputTokens: 0,
        images: u.images,
        seconds: u.seconds,
        credits,
        status,
        latencyMs: now() - started,
        requestId: req.contextValues.get(requestIdKey),
      });
    };
    let res;
    try {
      res = await next(req);
    } catch (err) {
      await hold.refund();
      record(undefined, 0, `error:${asConnectError(err).code}`);
      throw err;
    }
    if (res.stream) return res;
    const credits = meter.actual(deps.prices, req.message, res.message);
    // Nothing could be reserved (the price was unknown before the call): charge what it cost.
    if (hold.reserved === 0) await deps.budgets.charge(p.keyId, credits);
    else await hold.settle(credits);
    record(res.message, credits, meter.status?.(res.message) ?? "ok");
    return res;
  }
}
