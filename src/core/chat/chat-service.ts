// The neutral chat core: resolves the model to a provider, calls it, and
// records usage. Facades and RPC callers meet exactly this.
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { ChatService, type ChatInput, type Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { UsageStore } from "../../storage/types.js";
import type { ChatRoute, ChatRouting } from "../routing/chat-routing.js";
import { formatKey, principalKey, requestIdKey } from "../context.js";
import { asConnectError, notFound } from "../errors.js";
import { checkChatInput } from "./validate.js";

export interface ChatServiceDeps {
  routing: ChatRouting;
  usage?: UsageStore;
  now?: () => number;
}

function route(routing: ChatRouting, input: ChatInput): ChatRoute {
  const r = routing.resolve(input.model)[0];
  if (!r) throw notFound(`model ${input.model} is not served by this gateway`, "model_not_found");
  return r;
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
        credits: 0,
        status,
        latencyMs: now() - started,
        requestId: ctx.values.get(requestIdKey),
      })
      .catch(() => undefined);
  };
  const callCtx = (ctx: HandlerContext, r: ChatRoute) => ({ signal: ctx.signal, requestId: ctx.values.get(requestIdKey), upstreamModel: r.upstreamModel });

  return {
    async generate(req, ctx) {
      const input = checkChatInput(req.input, { requireTurns: true });
      const r = route(deps.routing, input);
      const started = now();
      try {
        const resp = await r.provider.generate(input, callCtx(ctx, r));
        record(ctx, input, r, started, resp.usage, "ok");
        return resp;
      } catch (err) {
        const e = asConnectError(err);
        record(ctx, input, r, started, undefined, `error:${e.code}`);
        throw e;
      }
    },
    async *streamGenerate(req, ctx) {
      const input = checkChatInput(req.input, { requireTurns: true });
      const r = route(deps.routing, input);
      const started = now();
      let usage: Usage | undefined;
      let status = "ok";
      try {
        for await (const e of r.provider.stream(input, callCtx(ctx, r))) {
          if (e.event.case === "usage") usage = e.event.value;
          else if (e.event.case === "start" && e.event.value.usage) usage = e.event.value.usage;
          yield e;
        }
        if (ctx.signal.aborted) status = "canceled";
      } catch (err) {
        const e = asConnectError(err);
        status = `error:${e.code}`;
        throw e;
      } finally {
        record(ctx, input, r, started, usage, status);
      }
    },
    async countTokens(req, ctx) {
      const input = checkChatInput(req.input, { requireTurns: false });
      const r = route(deps.routing, input);
      return r.provider.countTokens(input, callCtx(ctx, r));
    },
  };
}
