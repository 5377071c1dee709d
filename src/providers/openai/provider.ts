// The OpenAI-compatible chat provider (Chat Completions: OpenAI, vLLM, Ollama,
// DeepSeek, OpenRouter, ...): neutral <-> wire through the pure translators in
// ./chat/ and the I/O in ./chat/client.ts. There is no token-counting endpoint:
// countTokens is estimated locally (see docs/translation.md).
import { randomBytes } from "node:crypto";
import { responseToEvents } from "../../core/chat/stream.js";
import { promiseOf } from "../../core/iter.js";
import type { ChatProvider } from "../../core/ports.js";
import { unwrapResponse, unwrapStream } from "../shared/json-output.js";
import type { Upstream } from "../shared/http.js";
import { countTokensResponse } from "../shared/token-usage.js";
import { isOfficialOpenAI, postChat, streamChat } from "./client.js";
import { toVendorRequest } from "./request.js";
import { fromVendorResponse } from "./response.js";
import { OpenAIStreamTranslator } from "./stream.js";

const newId = () => "call_" + randomBytes(12).toString("hex");

export function openaiChatProvider(up: Upstream): ChatProvider {
  const official = isOfficialOpenAI(up);
  return {
    kind: "openai",
    generate(input, ctx) {
      return promiseOf(() => {
        const { body, plan } = toVendorRequest(input, ctx.upstreamModel, { stream: false, official });
        return postChat(up, body, { signal: ctx.signal, requestId: ctx.requestId }, (r) =>
          unwrapResponse(fromVendorResponse(r, { model: input.model, channel: up.channel, newId, stops: input.config?.stopSequences ?? [] }), plan.json),
        );
      });
    },
    stream(input, ctx) {
      const { body, plan } = toVendorRequest(input, ctx.upstreamModel, { stream: true, official });
      const tctx = { model: input.model, channel: up.channel, newId, stops: input.config?.stopSequences ?? [] };
      const tr = new OpenAIStreamTranslator(tctx);
      const events = streamChat(
        up,
        body,
        { signal: ctx.signal, requestId: ctx.requestId },
        {
          chunk: (c) => tr.push(c),
          done: () => tr.end(),
          whole: (r) => [...responseToEvents(fromVendorResponse(r, tctx))],
        },
      );
      return unwrapStream(events, plan.json);
    },
    async countTokens(input) {
      // Emulated: the local engine's tokenizer estimates the count.
      return countTokensResponse(input);
    },
  };
}
