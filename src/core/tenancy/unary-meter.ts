// Budgets and model scopes for unary calls whose price is known from the
// request (images by count, size and quality; video by seconds): check the
// model scope, reserve the price, keep it when the call succeeds (settled at
// what was really produced), refund it when the call fails.
import type { DescMethod } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { ImageService } from "../../../gen/omnigate/image/v1/image_pb.js";
import { VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import { Action, TaskService } from "../../../gen/omnigate/task/v1/task_pb.js";
import { principalKey } from "../context.js";
import type { Budgets } from "./budget.js";
import { imageBotCost, imageCost, videoCost, type PriceTable } from "./prices.js";
import { checkModel } from "./scope.js";

export interface Meter {
  /** The client-facing model of the request ("" when the request has none). */
  model(req: unknown): string;
  /** Credits the request will cost at most. */
  estimate(prices: PriceTable, req: unknown): number;
  /** Credits the response really cost. */
  actual(prices: PriceTable, req: unknown, res: unknown): number;
}

interface ImageReq {
  options?: { model: string; n: number; size: string; quality: string };
}
interface ImageRes {
  batch?: { images: unknown[]; size: string; quality: string };
}

const imageMeter: Meter = {
  model: (r) => (r as ImageReq).options?.model ?? "",
  estimate: (p, r) => {
    const o = (r as ImageReq).options;
    return imageCost(p, o?.model ?? "", o?.size ?? "", o?.quality ?? "", Math.max(1, o?.n ?? 1));
  },
  actual: (p, r, res) => {
    const o = (r as ImageReq).options;
    const b = (res as ImageRes).batch;
    return imageCost(p, o?.model ?? "", b?.size || o?.size || "", b?.quality || o?.quality || "", b?.images.length ?? 0);
  },
};

interface VideoReq {
  model?: string;
  duration?: number;
}
interface VideoRes {
  video?: { model: string; duration: number };
}

const videoMeter: Meter = {
  model: (r) => (r as VideoReq).model ?? "",
  estimate: (p, r) => videoCost(p, (r as VideoReq).model ?? "", (r as VideoReq).duration || 0),
  actual: (p, r, res) => {
    const v = (res as VideoRes).video;
    return videoCost(p, v?.model || (r as VideoReq).model || "", v?.duration ?? (r as VideoReq).duration ?? 0);
  },
};

interface TaskReq {
  action?: Action;
}
interface TaskRes {
  result?: { code: number };
}

/** Image-bot submissions cost their action's price, kept only when the task was accepted (code 1 or 22). */
const taskMeter = (actionOf: (req: unknown) => string): Meter => ({
  model: () => "",
  estimate: (p, r) => imageBotCost(p, actionOf(r)),
  actual: (p, r, res) => {
    const code = (res as TaskRes).result?.code;
    return code === 1 || code === 22 ? imageBotCost(p, actionOf(r)) : 0;
  },
});

export const METERS = new Map<DescMethod, Meter>([
  [TaskService.method.submitTask, taskMeter((r) => Action[(r as TaskReq).action ?? Action.UNSPECIFIED] ?? "*")],
  [TaskService.method.submitAction, taskMeter(() => "ACTION")],
  [ImageService.method.generateImages, imageMeter],
  [ImageService.method.editImages, imageMeter],
  [ImageService.method.createImageVariations, imageMeter],
  [VideoService.method.createVideo, videoMeter],
]);

export function unaryMeterInterceptor(deps: { prices: PriceTable; budgets: Budgets; meters?: Map<DescMethod, Meter> }): Interceptor {
  const meters = deps.meters ?? METERS;
  return (next) => async (req) => {
    const meter = meters.get(req.method);
    const p = req.contextValues.get(principalKey);
    if (!meter || !p || req.stream) return next(req);
    const model = meter.model(req.message);
    if (model) checkModel(p, model);
    const hold = await deps.budgets.reserve(p.keyId, meter.estimate(deps.prices, req.message));
    let res;
    try {
      res = await next(req);
    } catch (err) {
      await hold.refund();
      throw err;
    }
    if (!res.stream) await hold.settle(meter.actual(deps.prices, req.message, res.message));
    return res;
  };
}
