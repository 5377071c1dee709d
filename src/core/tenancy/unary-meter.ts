// Budgets, model scopes and usage records for unary calls whose price is
// known from the request (images by count, size and quality; video by
// seconds; image-bot submits by action), priced after the defaults that will
// apply: check the model scope, reserve the price (a key with a budget is
// checked even when the price is 0), keep it when the call succeeds (settled
// at what was really produced, never above the reservation on a key with a
// budget), refund it when the call fails. Calls whose service does not
// record its own usage (image-bot submits, video) get one usage record here:
// the credits charged, or status `error:<code>` and 0 credits on failure.
// Streamed image calls are metered the same way, settled when their batch
// (the stream's last message) comes and refunded when the stream ends
// without it.
import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { InputFile } from "../../../gen/omnigate/common/v1/common_pb.js";
import { ImageService, type ImageBatch, type ImageOptions } from "../../../gen/omnigate/image/v1/image_pb.js";
import { VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import { Action, ImageBotService } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { recordQuietly, type UsageRecord, type UsageStore } from "../../storage/types.js";
import { formatKey, principalKey, requestIdKey, type Principal } from "../context.js";
import { asConnectError } from "../errors.js";
import { parseCustomId, type ButtonAction } from "../image-bot/custom-id.js";
import type { Budgets } from "./budget.js";
import { imageBotCost, videoCost, type PriceTable } from "./prices.js";
import { imageCallCost, imageModelName, imageRequestEstimate } from "../image/price.js";
import type { ModelResolver, Operation } from "../image/profiles.js";
import type { ImageCall } from "../image/request-model.js";
import { checkModel } from "./scope.js";
import { DEFAULT_VIDEO_MODEL, DEFAULTS, LIMITS } from "../video/params.js";
import { peekFirst, watchStream } from "../transport-streams.js";

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
  /** A server-streaming method: the response `actual` prices, when this message of the stream is it. */
  final?(message: unknown): unknown;
}

interface ImageReq {
  prompt?: string;
  options?: ImageOptions;
  images?: InputFile[];
  image?: InputFile;
  partialImages?: number;
}
interface ImageRes {
  batch?: ImageBatch;
}
interface ImageStreamRes {
  event?: { case?: string; value?: unknown };
}

/** An image RPC's request as the image core reads it. */
const imageCall = (op: Operation, r: unknown, streamed: boolean): ImageCall => {
  const q = r as ImageReq;
  return { op, prompt: q.prompt ?? "", options: q.options, images: q.images ?? (q.image ? [q.image] : []), ...(streamed ? { stream: { partialImages: q.partialImages ?? 0 } } : {}) };
};

/**
 * Images are priced as the service will run them (price.ts), defaults
 * applied; ImageService records its own usage, so no `usage` here. Without
 * the image models (no image service) nothing is priced. A streamed call is
 * priced at its batch, the stream's last message (previews cost nothing).
 */
const imageMeter = (op: Operation, models: ModelResolver | undefined, streamed = false): Meter => ({
  model: (r) => (models ? imageModelName(models, imageCall(op, r, streamed)) : ((r as ImageReq).options?.model ?? "")),
  estimate: (p, r) => (models ? imageRequestEstimate(p, models, imageCall(op, r, streamed)) : 0),
  actual: (p, r, res) => {
    const batch = (res as ImageRes).batch;
    return models && batch ? imageCallCost(p, models, imageCall(op, r, streamed), batch) : 0;
  },
  ...(streamed ? { final: (m: unknown) => ((m as ImageStreamRes).event?.case === "batch" ? { batch: (m as ImageStreamRes).event!.value } : undefined) } : {}),
});

interface VideoReq {
  model?: string;
  duration?: number;
}
interface VideoRes {
  video?: { model: string; duration: number; channel: string };
}

/** Videos are priced at the model and length they will have: the request's, or the defaults (params.ts). */
const videoMeter: Meter = {
  // A request without a model gets the default one, so the key's model scope is checked against that.
  model: (r) => (r as VideoReq).model || DEFAULT_VIDEO_MODEL,
  estimate: (p, r) => videoCost(p, (r as VideoReq).model || DEFAULT_VIDEO_MODEL, (r as VideoReq).duration || DEFAULTS.duration),
  actual: (p, r, res) => {
    const v = (res as VideoRes).video;
    return videoCost(p, v?.model || (r as VideoReq).model || DEFAULT_VIDEO_MODEL, v?.duration || (r as VideoReq).duration || DEFAULTS.duration);
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
  result?: { code: number; channel: string; action: string };
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
  // The record names the channel that took the task and, for a confirmed modal, the action it runs.
  usage: (r, res) => {
    const out = (res as TaskRes | undefined)?.result;
    return { model: out?.action || actionOf(r), channel: out?.channel ?? "", images: 0, seconds: 0 };
  },
  status: (res) => (accepted(res) ? "ok" : `rejected:${(res as TaskRes).result?.code ?? 0}`),
});

/** The meter of each priced unary method; `imageModels` resolves image model names and their defaults. */
export function meters(imageModels?: ModelResolver): Map<DescMethod, Meter> {
  return new Map<DescMethod, Meter>([
    [ImageBotService.method.submitTask, taskMeter((r) => Action[(r as TaskReq).action ?? Action.UNSPECIFIED] ?? "*")],
    [ImageBotService.method.submitAction, taskMeter((r) => buttonAction((r as TaskReq).customId ?? ""))],
    [ImageBotService.method.submitModal, taskMeter(() => "MODAL", true)],
    [ImageService.method.generateImages, imageMeter("generate", imageModels)],
    [ImageService.method.editImages, imageMeter("edit", imageModels)],
    [ImageService.method.createImageVariations, imageMeter("variation", imageModels)],
    [ImageService.method.streamGenerateImages, imageMeter("generate", imageModels, true)],
    [ImageService.method.streamEditImages, imageMeter("edit", imageModels, true)],
    [VideoService.method.createVideo, videoMeter],
    // A remix's model and length are only known from the source video (the key's own, its model checked when it
    // was made): reserve the worst case (the dearest per-second price for the longest video), settle at what was made.
    [VideoService.method.remixVideo, { ...videoMeter, model: () => "", estimate: (p) => Math.max(0, ...p.video.map((r) => r.perSecond)) * LIMITS.duration }],
  ]);
}

export interface UnaryMeterDeps {
  prices: PriceTable;
  budgets: Budgets;
  meters?: Map<DescMethod, Meter>;
  /** Image model names and their defaults, for pricing images (unless `meters` is given). */
  imageModels?: ModelResolver | undefined;
  /** Where usage records go; unset: none are written. */
  usage?: UsageStore | undefined;
  now?: () => number;
}

export function unaryMeterInterceptor(deps: UnaryMeterDeps): Interceptor {
  const table = deps.meters ?? meters(deps.imageModels);
  const now = deps.now ?? Date.now;
  // Calls without a meter pass straight through (no async frame of their own).
  return (next) => (req) => {
    const meter = table.get(req.method);
    const p = meter ? req.contextValues.get(principalKey) : undefined;
    if (!meter || !p) return next(req);
    if (req.stream) return meter.final ? peekThenMeter(next, req, meter, p) : next(req);
    return metered(next, req, meter, p, req.message);
  };

  /** A server-streaming call carries its one request message as a stream: read it, then hand it on. */
  async function peekThenMeter(next: Parameters<Interceptor>[0], req: Parameters<ReturnType<Interceptor>>[0], meter: Meter, p: Principal) {
    const peeked = await peekFirst(req.message as AsyncIterable<unknown>);
    req = { ...req, message: peeked.rest } as typeof req;
    if (peeked.first === undefined) return next(req);
    return metered(next, req, meter, p, peeked.first);
  }

  async function metered(next: Parameters<Interceptor>[0], req: Parameters<ReturnType<Interceptor>>[0], meter: Meter, p: Principal, message: unknown) {
    const model = meter.model(message);
    if (model) checkModel(p, model);
    const hold = await deps.budgets.reserve(p, meter.estimate(deps.prices, message));
    const recorder = deps.usage && meter.usage ? deps.usage : undefined;
    const started = now();
    const record = (res: unknown, credits: number, status: string) => {
      if (!recorder) return;
      const u = meter.usage!(message, res);
      recordQuietly(recorder, {
        time: started,
        keyId: p.keyId,
        format: req.contextValues.get(formatKey),
        model: u.model,
        channel: u.channel,
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
    const failed = async (err: unknown) => {
      await hold.refund();
      record(undefined, 0, `error:${asConnectError(err).code}`);
    };
    /** Charges what the response cost. */
    const settle = async (res: unknown) => {
      const cost = meter.actual(deps.prices, message, res);
      // A key with a budget pays at most what it reserved; on one without, a call whose price was
      // unknown before it ran is charged what it cost.
      const credits = p.budget > 0 ? Math.min(cost, hold.reserved) : cost;
      if (hold.reserved === 0) await deps.budgets.charge(p.keyId, credits);
      else await hold.settle(credits);
      record(res, credits, meter.status?.(res) ?? "ok");
    };
    let res;
    try {
      res = await next(req);
    } catch (err) {
      await failed(err);
      throw err;
    }
    if (!res.stream) {
      await settle(res.message);
      return res;
    }
    if (!meter.final) return res;
    // A stream is charged once its priced message came, refunded when it ended without it.
    let final: unknown;
    return {
      ...res,
      message: watchStream(res.message, {
        each: (m) => {
          final ??= meter.final!(m);
        },
        end: (how) => (final !== undefined ? settle(final) : failed(how.error ?? new ConnectError("the stream ended before its result", Code.Canceled))),
      }),
    };
  }
}
