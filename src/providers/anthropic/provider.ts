// The Anthropic chat provider: neutral <-> Messages API through the pure
// translators (request.ts, response.ts, stream.ts) and the I/O in client.ts.
import { promiseOf } from "../../core/iter.js";
import { create } from "../../core/proto/create.js";
import { CountTokensResponseSchema } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { ChatProvider } from "../../core/ports.js";
import { unwrapResponse, unwrapStream } from "../shared/json-output.js";
import type { Upstream } from "../shared/http.js";
import { countTokens, postMessages, streamMessages } from "./client.js";
import { toVendorCountRequest, toVendorRequest } from "./request.js";
import { fromVendorResponse } from "./response.js";
import { AnthropicStreamTranslator } from "./stream.js";

export function anthropicChatProvider(up: Upstream): ChatProvider {
  return {
    kind: "anthropic",
    generate(input, ctx) {
      return promiseOf(() => {
        const { body, betas, plan } = toVendorRequest(input, ctx.upstreamModel, { stream: false });
        return postMessages(up, body, { signal: ctx.signal, requestId: ctx.requestId, betas }, (m) =>
          unwrapResponse(fromVendorResponse(m, { model: input.model, channel: up.channel, customTools: plan.customTools }), plan.json),
        );
      });
    },
    stream(input, ctx) {
      const { body, betas, plan } = toVendorRequest(input, ctx.upstreamModel, { stream: true });
      const tr = new AnthropicStreamTranslator({ model: input.model, channel: up.channel, customTools: plan.customTools });
      return unwrapStream(
        streamMessages(up, body, { signal: ctx.signal, requestId: ctx.requestId, betas }, (e) => tr.push(e)),
        plan.json,
      );
    },
    async countTokens(input, ctx) {
      const r = await countTokens(up, toVendorCountRequest(input, ctx.upstreamModel), { signal: ctx.signal, requestId: ctx.requestId, betas: input.metadata?.betas ?? [] });
      return create(CountTokensResponseSchema, { inputTokens: BigInt(Math.max(0, Math.trunc(r.input_tokens ?? 0))) });
    },
  };
}
