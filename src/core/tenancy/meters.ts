// What each priced or recorded method costs and what its usage record says:
// the model a key's scope is checked against, the most a call can cost
// (reserved before it runs), what it really cost, and the record's fields.
// A streamed method adds a tally: the response its messages amount to.
// Admission and settlement read this table; methods without a meter are
// neither priced nor recorded.
import type { DescMethod } from "@bufbuild/protobuf";
import { ChatService, GenerationConfigSchema, UsageSchema, type ChatInput, type GenerateResponse, type StreamGenerateResponse, type Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { InputFile } from "../../../gen/omnigate/common/v1/common_pb.js";
import { EmbeddingService, type EmbedInput, type EmbedResponse } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import { ImageService, type ImageBatch, type ImageOptions } from "../../../gen/omnigate/image/v1/image_pb.js";
import { VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import { StoredResponseService } from "../../../gen/omnigate/response/v1/response_pb.js";
import { Action, ImageBotService } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import type { UsageRecord } from "../../storage/types.js";
import { countInput, countText } from "../../lib/tokenizer.js";
import { create } from "../proto/create.js";
import type { Principal } from "../call/call.js";
import { parseCustomId, type ButtonAction } from "../image-bot/custom-id.js";
import { countEmbedInputs } from "../embedding/count.js";
import { chatCost, imageBotCost, videoCost, type PriceTable } from "./prices.js";
import { imageCallCost, imageModelName, imageRequestEstimate } from "../image/price.js";
import type { ModelResolver, Operation } from "../image/profiles.js";
import type { ImageCall } from "../image/request-model.js";
import { globMatch } from "../routing/glob.js";
import { DEFAULT_VIDEO_MODEL, DEFAULTS, LIMITS } from "../video/params.js";

/** The usage record fields a meter fills in (settlement adds key, format, credits, status, latency, request id). */
export type MeteredUsage = Pick<UsageRecord, "model" | "channel" | "inputTokens" | "outputTokens" | "images" | "seconds">;

/** The response a stream amounts to, from its messages as they pass. */
export interface Tally {
  each(message: unknown): void;
  /** The response to price, or undefined when the stream produced nothing billable (its reservation is refunded). */
  result(completed: boolean): unknown;
}

export interface Meter {
  /** The client-facing model of the request ("" when the request has none). */
  model(req: unknown): string;
  /** Credits the request can cost at most; may set a limit on the request so that it cannot cost more. */
  estimate(prices: PriceTable, req: unknown, p: Principal): number;
  /** Credits the response really cost. */
  cost(prices: PriceTable, req: unknown, res: unknown): number;
  /** The record's fields; `res` is undefined when the call failed. */
  usage(req: unknown, res: unknown): MeteredUsage;
  /** Status of a call that produced a response (default "ok"). */
  status?(res: unknown): string;
  /** Tokens count against the key's tokens-per-minute limit. */
  countsTokens?: boolean;
  /** A streamed method's tally. */
  tally?(req: unknown): Tally;
}

const NO_USAGE = { inputTokens: 0, outputTokens: 0, images: 0, seconds: 0 };

// --- chat ---

/** Output tokens assumed for the reservation when the request sets no limit. */
export const DEFAULT_RESERVED_OUTPUT = 4096;

/** The output a call may produce: its limit (or the default) plus a thinking budget that providers add on top of it. */
function outputBound(input: ChatInput): number {
  const c = input.config;
  const thinking = c?.thinking?.budgetTokens ?? 0;
  return (c?.maxOutputTokens ?? DEFAULT_RESERVED_OUTPUT) + (thinking > 0 ? thinking : 0);
}

export const usageCost = (prices: PriceTable, model: string, u: Usage | undefined) =>
  chatCost(prices, model, {
    inputTokens: Number(u?.inputTokens ?? 0n),
    outputTokens: Number(u?.outputTokens ?? 0n),
    cacheReadTokens: Number(u?.cacheReadTokens ?? 0n),
    cacheWriteTokens: Number(u?.cacheWriteTokens ?? 0n),
  });

interface ChatReq {
  input?: ChatInput;
}
/** What a chat call produced: its usage and the channel that served it. */
type ChatRes = Pick<GenerateResponse, "usage" | "channel">;

const chatModel = (r: unknown) => (r as ChatReq).input?.model ?? "";

/** The tally of a streamed chat: usage and channel as reported; a cut stream pays at least for the output it delivered. */
function chatTally(req: unknown): Tally {
  let usage: Usage | undefined;
  let channel = "";
  /** Every string delta (text, thinking, arguments, a custom call's input): what the client got. */
  let delivered = "";
  return {
    each(m) {
      const k = (m as StreamGenerateResponse).event;
      if (k.case === "usage") usage = k.value;
      else if (k.case === "start") {
        channel = k.value.channel;
        if (k.value.usage) usage = k.value.usage;
      } else if (k.case === "partDelta" && typeof k.value.delta.value === "string") delivered += k.value.delta.value;
    },
    result(completed) {
      if (!completed && delivered) {
        // An upstream may have reported no usage yet, or only its first token.
        const counted = BigInt(countText(delivered));
        const input = (req as ChatReq).input;
        if (!usage) usage = create(UsageSchema, { inputTokens: input ? BigInt(countInput(input).total) : 0n, outputTokens: counted });
        else if (usage.outputTokens < counted) usage = { ...usage, outputTokens: counted };
      }
      return completed || delivered || usage ? ({ usage, channel } satisfies ChatRes) : undefined;
    },
  };
}

export const chatMeter: Meter = {
  model: chatModel,
  estimate(prices, req, p) {
    const input = (req as ChatReq).input;
    // Only a priced model needs an estimate (tokenizing the input costs CPU on every request).
    if (!input || !prices.chat.some((r) => globMatch(r.model, input.model))) return 0;
    // On a key with a budget a call can cost no more than it reserved: one without an output limit gets the one assumed here.
    if (p.budget > 0 && input.config?.maxOutputTokens === undefined) {
      input.config ??= create(GenerationConfigSchema);
      input.config.maxOutputTokens = DEFAULT_RESERVED_OUTPUT;
    }
    return chatCost(prices, input.model, { inputTokens: countInput(input).total, outputTokens: outputBound(input) });
  },
  cost: (prices, req, res) => usageCost(prices, chatModel(req), (res as ChatRes).usage),
  usage(req, res) {
    const r = res as ChatRes | undefined;
    const u = r?.usage;
    // One literal of a fixed shape, numbers summed as numbers: the record of every chat call.
    return {
      model: chatModel(req),
      channel: r?.channel ?? "",
      inputTokens: u ? Number(u.inputTokens) + Number(u.cacheReadTokens) + Number(u.cacheWriteTokens) : 0,
      outputTokens: u ? Number(u.outputTokens) : 0,
      images: 0,
      seconds: 0,
    };
  },
  countsTokens: true,
};

// --- embeddings ---

interface EmbedReq {
  model?: string;
  inputs?: EmbedInput[];
}
type EmbedRes = Pick<EmbedResponse, "usage" | "channel">;

const embedModel = (r: unknown) => (r as EmbedReq).model ?? "";

/**
 * Embeddings are priced like chat input: the chat price rule of the model, per
 * million input tokens (and its flat per-request price), nothing for output.
 * Reserved at the inputs as the gateway's tokenizer counts them, charged at
 * the usage the provider reports.
 */
export const embedMeter: Meter = {
  model: embedModel,
  estimate(prices, req) {
    const model = embedModel(req);
    // Only a priced model needs an estimate (tokenizing the inputs costs CPU).
    if (!prices.chat.some((r) => globMatch(r.model, model))) return 0;
    return chatCost(prices, model, { inputTokens: countEmbedInputs((req as EmbedReq).inputs ?? []), outputTokens: 0 });
  },
  cost: (prices, req, res) => chatCost(prices, embedModel(req), { inputTokens: Number((res as EmbedRes).usage?.inputTokens ?? 0n), outputTokens: 0 }),
  usage(req, res) {
    const r = res as EmbedRes | undefined;
    return { ...NO_USAGE, model: embedModel(req), channel: r?.channel ?? "", inputTokens: Number(r?.usage?.inputTokens ?? 0n) };
  },
  countsTokens: true,
};

// --- images ---

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
 * applied. Without the image models (no image service) nothing is priced. A
 * streamed call is priced at its batch, the stream's last message (previews
 * cost nothing).
 */
const imageMeter = (op: Operation, models: ModelResolver | undefined, streamed = false): Meter => {
  const model = (r: unknown) => (models ? imageModelName(models, imageCall(op, r, streamed)) : ((r as ImageReq).options?.model ?? ""));
  return {
    model,
    estimate: (p, r) => (models ? imageRequestEstimate(p, models, imageCall(op, r, streamed)) : 0),
    cost: (p, r, res) => {
      const batch = (res as ImageRes).batch;
      return models && batch ? imageCallCost(p, models, imageCall(op, r, streamed), batch) : 0;
    },
    usage(r, res) {
      const batch = (res as ImageRes | undefined)?.batch;
      return {
        ...NO_USAGE,
        model: model(r),
        channel: batch?.channel ?? "",
        inputTokens: Number(batch?.usage?.inputTokens ?? 0n),
        outputTokens: Number(batch?.usage?.outputTokens ?? 0n),
        images: batch?.images.length ?? 0,
      };
    },
    ...(streamed
      ? {
          tally() {
            let batch: unknown;
            return {
              each: (m: unknown) => {
                const e = (m as ImageStreamRes).event;
                if (e?.case === "batch") batch = e.value;
              },
              result: () => (batch === undefined ? undefined : { batch }),
            };
          },
        }
      : {}),
  };
};

// --- video ---

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
  cost: (p, r, res) => {
    const v = (res as VideoRes).video;
    return videoCost(p, v?.model || (r as VideoReq).model || DEFAULT_VIDEO_MODEL, v?.duration || (r as VideoReq).duration || DEFAULTS.duration);
  },
  usage: (r, res) => {
    const v = (res as VideoRes | undefined)?.video;
    return { ...NO_USAGE, model: v?.model || (r as VideoReq).model || "", channel: v?.channel ?? "", seconds: v?.duration ?? 0 };
  },
};

// --- image-bot tasks ---

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
  cost: (p, r, res) => (!free && accepted(res) ? imageBotCost(p, actionOf(r)) : 0),
  // The record names the channel that took the task and, for a confirmed modal, the action it runs.
  usage: (r, res) => {
    const out = (res as TaskRes | undefined)?.result;
    return { ...NO_USAGE, model: out?.action || actionOf(r), channel: out?.channel ?? "" };
  },
  status: (res) => (accepted(res) ? "ok" : `rejected:${(res as TaskRes).result?.code ?? 0}`),
});

/** The meter of each priced or recorded method; `imageModels` resolves image model names and their defaults. */
/** Bookkeeping around an admitted call (a stored response's save and reads): no rate-limit slot, nothing priced. */
export const UNLIMITED_METHODS: ReadonlySet<DescMethod> = new Set(StoredResponseService.methods);

export function meters(imageModels?: ModelResolver): Map<DescMethod, Meter> {
  return new Map<DescMethod, Meter>([
    [ChatService.method.generate, chatMeter],
    [ChatService.method.streamGenerate, { ...chatMeter, tally: chatTally }],
    [EmbeddingService.method.embed, embedMeter],
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
