// Budgets and token limits for ChatService.Generate / StreamGenerate, as an
// interceptor: check the model scope, reserve the most the call can cost,
// then settle with the real usage (a broken or abandoned stream pays for what
// it really used), or refund when the call fails before producing anything.
// On a key with a budget a call can cost no more than it reserved: one that
// sets no output limit is given the default the reservation assumed, and the
// charge is capped at the reservation whatever the upstream reports.
import type { Interceptor } from "@connectrpc/connect";
import { ChatService, GenerationConfigSchema, UsageSchema, type ChatInput, type GenerateResponse, type StreamGenerateResponse, type Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { create } from "../proto/create.js";
import { countInput, countText } from "../../lib/tokenizer.js";
import { principalKey, type Principal } from "../context.js";
import type { Budgets } from "./budget.js";
import type { RateLimiter } from "./limiter.js";
import { chatCost, type PriceTable } from "./prices.js";
import { checkModel } from "./scope.js";
import { globMatch } from "../routing/glob.js";
import { peekFirst, watchStream } from "../transport-streams.js";

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

const totalTokens = (u: Usage | undefined) => Number((u?.inputTokens ?? 0n) + (u?.outputTokens ?? 0n) + (u?.cacheReadTokens ?? 0n) + (u?.cacheWriteTokens ?? 0n));

export function chatMeterInterceptor(deps: { prices: PriceTable; budgets: Budgets; limiter: RateLimiter }): Interceptor {
  const generate = ChatService.method.generate;
  const stream = ChatService.method.streamGenerate;
  // Other methods, and unary calls with nothing to meter, pass straight
  // through (no async frame of their own).
  return (next) => (req) => {
    if (req.method !== generate && req.method !== stream) return next(req);
    const p = req.contextValues.get(principalKey);
    if (!p) return next(req);
    if (req.stream) return peekThenMeter(next, req, p);
    const input = (req.message as { input?: ChatInput }).input;
    if (!input) return next(req);
    let estimate: number;
    try {
      estimate = estimateFor(p, input);
    } catch (err) {
      return Promise.reject(err);
    }
    if (!worthMetering(p, estimate)) return next(req);
    return metered(next, req, p, input, estimate);
  };

  /**
   * Checks the model scope; the most the call can cost (0 for an unpriced
   * model). On a key with a budget, a priced call without an output limit gets
   * the one its reservation assumes.
   */
  function estimateFor(p: Principal, input: ChatInput): number {
    checkModel(p, input.model);
    // Only a priced model needs an estimate (tokenizing the input costs CPU on every request).
    const priced = deps.prices.chat.some((r) => globMatch(r.model, input.model));
    if (!priced) return 0;
    if (p.budget > 0 && input.config?.maxOutputTokens === undefined) {
      input.config ??= create(GenerationConfigSchema);
      input.config.maxOutputTokens = DEFAULT_RESERVED_OUTPUT;
    }
    return chatCost(deps.prices, input.model, { inputTokens: countInput(input).total, outputTokens: outputBound(input) });
  }

  /** Nothing to reserve, no budget to check and no token limit: the call goes on without the metering around it. */
  function worthMetering(p: Principal, estimate: number): boolean {
    return estimate > 0 || p.budget > 0 || p.limits.tokensPerMinute > 0;
  }

  /** A server-streaming call carries its one request message as a stream: read it, then hand it on. */
  async function peekThenMeter(next: Parameters<Interceptor>[0], req: Parameters<ReturnType<Interceptor>>[0], p: Principal) {
    const peeked = await peekFirst(req.message as AsyncIterable<{ input?: ChatInput }>);
    const input = peeked.first?.input;
    req = { ...req, message: peeked.rest } as typeof req;
    if (!input) return next(req);
    const estimate = estimateFor(p, input);
    if (!worthMetering(p, estimate)) return next(req);
    return metered(next, req, p, input, estimate);
  }

  async function metered(next: Parameters<Interceptor>[0], req: Parameters<ReturnType<Interceptor>>[0], p: Principal, input: ChatInput, estimate: number) {
    const hold = await deps.budgets.reserve(p, estimate);
    const finish = async (u: Usage | undefined, failed: boolean) => {
      if (failed && !u) await hold.refund();
      else {
        const cost = usageCost(deps.prices, input.model, u);
        await hold.settle(p.budget > 0 ? Math.min(cost, hold.reserved) : cost);
      }
      await deps.limiter.consumeTokens(p.keyId, p.limits, totalTokens(u));
    };
    let res;
    try {
      res = await next(req);
    } catch (err) {
      await finish(undefined, true);
      throw err;
    }
    if (!res.stream) {
      await finish((res.message as GenerateResponse).usage, false);
      return res;
    }
    let usage: Usage | undefined;
    let delivered = "";
    return {
      ...res,
      message: watchStream(res.message as AsyncIterable<StreamGenerateResponse>, {
        each: (e) => {
          const k = e.event;
          if (k.case === "usage") usage = k.value;
          else if (k.case === "start" && k.value.usage) usage = k.value.usage;
          else if (k.case === "partDelta" && (k.value.delta.case === "text" || k.value.delta.case === "thinking" || k.value.delta.case === "argumentsJson")) delivered += k.value.delta.value;
        },
        end: async ({ completed }) => {
          if (!completed && delivered) {
            // The stream ended early: it pays at least for the output it really delivered (an upstream may have
            // reported none yet, or only its first token), and for its input when nothing was reported.
            const counted = BigInt(countText(delivered));
            if (!usage) usage = create(UsageSchema, { inputTokens: BigInt(countInput(input).total), outputTokens: counted });
            else if (usage.outputTokens < counted) usage = { ...usage, outputTokens: counted };
          }
          await finish(usage, !completed && !delivered);
        },
      }),
    };
  }
}
