// The neutral chat core: resolves the model to a provider, calls it, and
// records usage. Facades and RPC callers meet exactly this.
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { ChatService, type ChatInput, type GenerateResponse, type Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { recordQuietly, type CachedContentStore, type UsageStore } from "../../storage/types.js";
import type { ChatRoute, ChatRouting } from "../routing/chat-routing.js";
import { streamWithFallback, unaryWithFallback } from "../routing/retry.js";
import { callerOf, formatKey, principalKey, requestIdKey } from "../context.js";
import { asConnectError, notFound } from "../errors.js";
import { checkChatInput } from "./validate.js";
import type { PriceTable } from "../tenancy/prices.js";
import { usageCost } from "../tenancy/chat-meter.js";
import { moveEventToCache, moveToCache, resolveCachedContext } from "./cached-context.js";
import { openOnFirstNext, promiseOf } from "../iter.js";
import { hasFileRefs, resolveFileRefs, type FileResolveDeps } from "../file/resolve.js";

export interface ChatServiceDeps {
  routing: ChatRouting;
  usage?: UsageStore;
  /** Cached contents (generate-content cachedContents); input.cached_content is expanded from here. */
  cachedContents?: CachedContentStore;
  /** The Files API's files; a media part naming one (file_id) gets its bytes from here. */
  files?: FileResolveDeps;
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
    recordQuietly(deps.usage, {
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
    });
  };
  const callCtx = (ctx: HandlerContext, r: ChatRoute) => ({ signal: ctx.signal, requestId: ctx.values.get(requestIdKey), upstreamModel: r.upstreamModel });
  // Without cached content there is nothing to resolve (and no promise to make).
  const withCache = (input: ChatInput, ctx: HandlerContext, requireTurns = true) =>
    input.cachedContent ? resolveCachedContext(deps.cachedContents, input, ctx.values.get(principalKey)?.keyId ?? "", now(), requireTurns) : { input, cachedTokens: 0n };
  // Named files are read in before routing (a request without one, the usual
  // case, is passed on as it is); a cached content's turns hold bytes already.
  const prepare = (input: ChatInput, ctx: HandlerContext, requireTurns = true) =>
    hasFileRefs(input) ? resolveFileRefs(input, deps.files, callerOf(ctx)).then((resolved) => withCache(resolved, ctx, requireTurns)) : withCache(input, ctx, requireTurns);

  /** One routed unary call with its usage record, as a promise chain (an unroutable model throws at once). */
  const generateWith = (input: ChatInput, cachedTokens: bigint, ctx: HandlerContext): Promise<GenerateResponse> => {
    const routes = routesFor(deps.routing, input);
    let r = routes[0];
    const started = now();
    return unaryWithFallback(deps.routing, routes, ctx.signal, (x) => {
      r = x;
      return x.provider.generate(input, callCtx(ctx, x));
    }).then(
      (resp) => {
        resp.usage = moveToCache(resp.usage, cachedTokens);
        record(ctx, input, r, started, resp.usage, "ok");
        return resp;
      },
      (err: unknown) => {
        const e = asConnectError(err);
        record(ctx, input, r, started, undefined, `error:${e.code}`);
        throw e;
      },
    );
  };

  return {
    // Without cached content there is nothing to wait for before routing, so
    // the call is a chain of callbacks, not an async frame (two promises and a
    // turn fewer on every call); with it, the content is resolved first.
    generate(req, ctx) {
      return promiseOf(() => {
        const checked = checkChatInput(req.input, { requireTurns: true });
        if (!checked.cachedContent && !hasFileRefs(checked)) return generateWith(checked, 0n, ctx);
        return Promise.resolve(prepare(checked, ctx)).then(({ input, cachedTokens }) => generateWith(input, cachedTokens, ctx));
      });
    },
    // Not an async generator: the request is checked and routed on the first
    // next(), and from then on each next() is the routed stream's own, with
    // the cache accounting and usage capture as its synchronous watch (a
    // generator relaying the events cost a promise and a resumption per event).
    streamGenerate(req, ctx) {
      return openOnFirstNext(async () => {
        const { input, cachedTokens } = await prepare(checkChatInput(req.input, { requireTurns: true }), ctx);
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
      const { input, cachedTokens } = await prepare(checkChatInput(req.input, { requireTurns: false }), ctx, false);
      const routes = routesFor(deps.routing, input);
      const counted = await unaryWithFallback(deps.routing, routes, ctx.signal, (x) => x.provider.countTokens(input, callCtx(ctx, x)));
      const moved = counted.inputTokens < cachedTokens ? counted.inputTokens : cachedTokens;
      counted.inputTokens -= moved;
      counted.cachedTokens += moved;
      return counted;
    },
  };
}
