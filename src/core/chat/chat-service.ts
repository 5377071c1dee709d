// The neutral chat core: resolves the model to a provider, calls it, and
// records usage. Facades and RPC callers meet exactly this.
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { ChatService, type ChatInput, type Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { CachedContentStore, UsageStore } from "../../storage/types.js";
import type { ChatRoute, ChatRouting } from "../routing/chat-routing.js";
import { streamWithFallback, unaryWithFallback } from "../routing/retry.js";
import { formatKey, principalKey, requestIdKey } from "../context.js";
import { asConnectError, notFound } from "../errors.js";
import { checkChatInput } from "./validate.js";
import type { PriceTable } from "../tenancy/prices.js";
import { usageCost } from "../tenancy/chat-meter.js";
import { moveEventToCache, moveToCache, resolveCachedContext } from "./cached-context.js";
import { openOnFirstNext } from "../iter.js";

export interface ChatServiceDeps {
  routing: ChatRouting;
  usage?: UsageStore;
  /** Cached contents (generate-content cachedContents); input.cached_content is expanded from here. */
  cachedContents?: CachedContentStore;
  /** Prices, so usage records carry the credits the call cost. */
  prices?: PriceTable;
  now?: () => number;
}

/** The routes to try for a model, best first (retry and fallover walk them: routing/retry.ts). */
function routesFor(routing: ChatRouting, input: ChatInput): [ChatRoute, ...ChatRoute[]] {
  const routes = routing.resolve(input.model, input);
  if (!routes.length) throw notFound(`model ${input.model} is not served by this gateway`, "model_not_found");
  return routes as [ChatRoute, ...ChatRoute[]];
}

export function chatService(deps: ChatServiceDeps): Partial<ServiceImpl<typeof ChatService>> {
  const now = deps.now ?? Date.now;
  const record = (ctx: HandlerContext, input: ChatInput, r: ChatRoute, started: number, usage: Usage | undefined, status: string) => {
    if (!deps.usage) return;
    const p = ctx.values.get(principalKey);
    void deps.usage
      .record({
        time: started,
        keyId: p?.keyId ?? "",
        format: ctx.values.get(formatKey),
        model: input.model,
        channel: r.channel,
        inputTokens: Number((usage?.inputTokens ?? 0n) + (usage?.cacheReadTokens ?? 0n) + (usage?.cacheWriteTokens ?? 0n)),
        outputTokens: Number(usage?.outputTokens ?? 0n),
        images: 0,
        seconds: 0,
        credits: deps.prices ? usageCost(deps.prices, input.model, usage) : 0,
        status,
        latencyMs: now() - started,
        requestId: ctx.values.get(requestIdKey),
      })
      .catch(() => undefined);
  };
  const callCtx = (ctx: HandlerContext, r: ChatRoute) => ({ signal: ctx.signal, requestId: ctx.values.get(requestIdKey), upstreamModel: r.upstreamModel });
  // Without cached content there is nothing to resolve (and no promise to make).
  const withCache = (input: ChatInput, ctx: HandlerContext, requireTurns = true) =>
    input.cachedContent ? resolveCachedContext(deps.cachedContents, input, ctx.values.get(principalKey)?.keyId ?? "", now(), requireTurns) : { input, cachedTokens: 0n };

  return {
    async generate(req, ctx) {
      const checked = checkChatInput(req.input, { requireTurns: true });
      // Awaited only when there is something to resolve: an await of a plain value still costs two promises and a turn.
      const { input, cachedTokens } = checked.cachedContent ? await withCache(checked, ctx) : { input: checked, cachedTokens: 0n };
      const routes = routesFor(deps.routing, input);
      let r = routes[0];
      const started = now();
      try {
        const resp = await unaryWithFallback(deps.routing, routes, ctx.signal, (x) => {
          r = x;
          return x.provider.generate(input, callCtx(ctx, x));
        });
        resp.usage = moveToCache(resp.usage, cachedTokens);
        record(ctx, input, r, started, resp.usage, "ok");
        return resp;
      } catch (err) {
        const e = asConnectError(err);
        record(ctx, input, r, started, undefined, `error:${e.code}`);
        throw e;
      }
    },
    // Not an async generator: the request is checked and routed on the first
    // next(), and from then on each next() is the routed stream's own, with
    // the cache accounting and usage capture as its synchronous watch (a
    // generator relaying the events cost a promise and a resumption per event).
    streamGenerate(req, ctx) {
      return openOnFirstNext(async () => {
        const { input, cachedTokens } = await withCache(checkChatInput(req.input, { requireTurns: true }), ctx);
        const routes = routesFor(deps.routing, input);
        let r = routes[0];
        const started = now();
        let usage: Usage | undefined;
        const open = (x: ChatRoute) => {
          r = x;
          return x.provider.stream(input, callCtx(ctx, x));
        };
        return streamWithFallback(deps.routing, routes, ctx.signal, open, {
          each(raw) {
            const e = moveEventToCache(raw, cachedTokens);
            if (e.event.case === "usage") usage = e.event.value;
            else if (e.event.case === "start" && e.event.value.usage) usage = e.event.value.usage;
          },
          end(how) {
            const status = ctx.signal.aborted ? "canceled" : how.error ? `error:${how.error.code}` : "ok";
            record(ctx, input, r, started, usage, status);
          },
        });
      });
    },
    async countTokens(req, ctx) {
      const { input, cachedTokens } = await withCache(checkChatInput(req.input, { requireTurns: false }), ctx, false);
      const routes = routesFor(deps.routing, input);
      const counted = await unaryWithFallback(deps.routing, routes, ctx.signal, (x) => x.provider.countTokens(input, callCtx(ctx, x)));
      const moved = counted.inputTokens < cachedTokens ? counted.inputTokens : cachedTokens;
      counted.inputTokens -= moved;
      counted.cachedTokens += moved;
      return counted;
    },
  };
}
