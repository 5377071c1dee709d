// The neutral chat core: resolves the model to a provider and calls it, with
// retries and fallover across its routes. Facades and RPC callers meet
// exactly this; the call's usage is settled by the pipeline.
import { ChatService, CountTokensResponseSchema, GenerateResponseSchema, type ChatInput, type GenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { CachedContentStore } from "../../storage/types.js";
import type { ChatRoute, ChatRouting } from "../routing/chat-routing.js";
import { streamWithFallback, unaryWithFallback } from "../routing/retry.js";
import type { Call } from "../call/call.js";
import type { ServiceImpl } from "../call/service.js";
import { asConnectError, notFound, tagChannel } from "../errors.js";
import { checkedAnswer } from "../proto/shape.js";
import { checkChatInput } from "./validate.js";
import { moveEventToCache, moveToCache, resolveCachedContext } from "./cached-context.js";
import { openOnFirstNext, promiseOf } from "../iter.js";
import { hasFileRefs, resolveFileRefs, type FileResolveDeps } from "../file/resolve.js";

export interface ChatServiceDeps {
  routing: ChatRouting;
  /** Cached contents (generate-content cachedContents); input.cached_content is expanded from here. */
  cachedContents?: CachedContentStore;
  /** The Files API's files; a media part naming one (file_id) gets its bytes from here. */
  files?: FileResolveDeps;
  now?: () => number;
}

/** The routes to try for a model, best first (retry and fallover walk them: routing/retry.ts). */
function routesFor(routing: ChatRouting, input: ChatInput, call: Call): [ChatRoute, ...ChatRoute[]] {
  // A conversation's affinity is the caller's own: the key id scopes it.
  if (input.metadata?.affinityKey) input.metadata.keyId = call.principal.keyId;
  const routes = routing.resolve(input.model, input);
  if (!routes.length) throw notFound(`model ${input.model} is not served by this gateway`, "model_not_found");
  return routes as [ChatRoute, ...ChatRoute[]];
}

export function chatService(deps: ChatServiceDeps): Pick<ServiceImpl<typeof ChatService>, "generate" | "streamGenerate" | "countTokens"> {
  const now = deps.now ?? Date.now;
  const callCtx = (call: Call, r: ChatRoute) => ({ signal: call.signal, requestId: call.requestId, upstreamModel: r.upstreamModel });
  // Without cached content there is nothing to resolve (and no promise to make).
  const withCache = (input: ChatInput, call: Call, requireTurns = true) =>
    input.cachedContent ? resolveCachedContext(deps.cachedContents, input, call.principal.keyId, now(), requireTurns) : { input, cachedTokens: 0n };
  // Named files are read in before routing (a request without one, the usual
  // case, is passed on as it is); a cached content's turns hold bytes already.
  const prepare = (input: ChatInput, call: Call, requireTurns = true) =>
    hasFileRefs(input) ? resolveFileRefs(input, deps.files, call.principal).then((resolved) => withCache(resolved, call, requireTurns)) : withCache(input, call, requireTurns);

  /** One routed unary call, as a promise chain (an unroutable model throws at once). */
  const generateWith = (input: ChatInput, cachedTokens: bigint, call: Call): Promise<GenerateResponse> => {
    const routes = routesFor(deps.routing, input, call);
    let r = routes[0];
    return unaryWithFallback(deps.routing, routes, call.signal, (x) => {
      r = x;
      return x.provider.generate(input, callCtx(call, x)).then((resp) => checkedAnswer(GenerateResponseSchema, resp));
    }).then(
      (resp) => {
        resp.usage = moveToCache(resp.usage, cachedTokens);
        resp.channel ||= r.channel;
        deps.routing.served?.(input, r.channel);
        return resp;
      },
      (err: unknown) => Promise.reject(tagChannel(asConnectError(err), r.channel)),
    );
  };

  return {
    // Without cached content there is nothing to wait for before routing, so
    // the call is a chain of callbacks, not an async frame; with it, the content is resolved first.
    generate(req, call) {
      return promiseOf(() => {
        const checked = checkChatInput(req.input, { requireTurns: true });
        if (!checked.cachedContent && !hasFileRefs(checked)) return generateWith(checked, 0n, call);
        return Promise.resolve(prepare(checked, call)).then(({ input, cachedTokens }) => generateWith(input, cachedTokens, call));
      });
    },
    // The request is checked and routed on the first next(); from then on each
    // next() is the routed stream's own, with the cache accounting as its watch.
    streamGenerate(req, call) {
      return openOnFirstNext(async () => {
        const { input, cachedTokens } = await prepare(checkChatInput(req.input, { requireTurns: true }), call);
        const routes = routesFor(deps.routing, input, call);
        let r = routes[0];
        const open = (x: ChatRoute) => {
          r = x;
          return x.provider.stream(input, callCtx(call, x));
        };
        return streamWithFallback(deps.routing, routes, call.signal, open, {
          each(raw) {
            const e = moveEventToCache(raw, cachedTokens);
            if (e.event.case === "start") {
              if (!e.event.value.channel) e.event.value.channel = r.channel;
              deps.routing.served?.(input, r.channel);
            }
          },
          end(how) {
            if (how.error) tagChannel(how.error, r.channel);
          },
        });
      });
    },
    async countTokens(req, call) {
      const { input, cachedTokens } = await prepare(checkChatInput(req.input, { requireTurns: false }), call, false);
      const routes = routesFor(deps.routing, input, call);
      const counted = await unaryWithFallback(deps.routing, routes, call.signal, (x) => x.provider.countTokens(input, callCtx(call, x)).then((c) => checkedAnswer(CountTokensResponseSchema, c)));
      const moved = counted.inputTokens < cachedTokens ? counted.inputTokens : cachedTokens;
      counted.inputTokens -= moved;
      counted.cachedTokens += moved;
      return counted;
    },
  };
}
