// The chat provider of an OpenAI channel with `api: "responses"`: neutral <->
// the Responses API through the pure translators (request.ts, response.ts,
// stream.ts) and the I/O in client.ts. Tokens are counted by the upstream
// (POST /responses/input_tokens).
import { randomBytes } from "node:crypto";
import { responseToEvents } from "../../core/chat/stream.js";
import { promiseOf } from "../../core/iter.js";
import { create } from "../../core/proto/create.js";
import { CountTokensResponseSchema } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { ChatProvider } from "../../core/ports.js";
import { unwrapResponse, unwrapStream } from "../shared/json-output.js";
import type { Upstream } from "../shared/http.js";
import { countInputTokens, postResponse, streamResponse } from "./client.js";
import { toVendorCountRequest, toVendorRequest } from "./request.js";
import { fromVendorResponse } from "./response.js";
import { ResponsesStreamTranslator } from "./stream.js";

const newId = () => "call_" + randomBytes(12).toString("hex");

export function openaiResponsesProvider(up: Upstream): ChatProvider {
  return {
    kind: "openai",
    generate(input, ctx) {
      return promiseOf(() => {
        const { body, plan } = toVendorRequest(input, ctx.upstreamModel, { stream: false });
        return postResponse(up, body, { signal: ctx.signal, requestId: ctx.requestId }, (r) => unwrapResponse(fromVendorResponse(r, { model: input.model, channel: up.channel, newId }), plan.json));
      });
    },
    stream(input, ctx) {
      const { body, plan } = toVendorRequest(input, ctx.upstreamModel, { stream: true });
      const tctx = { model: input.model, channel: up.channel, newId };
      const tr = new ResponsesStreamTranslator(tctx);
      const events = streamResponse(
        up,
        body,
        { signal: ctx.signal, requestId: ctx.requestId },
        {
          event: (e) => tr.push(e),
          whole: (r) => [...responseToEvents(fromVendorResponse(r, tctx))],
        },
      );
      return unwrapStream(events, plan.json);
    },
    async countTokens(input, ctx) {
      const r = await countInputTokens(up, toVendorCountRequest(input, ctx.upstreamModel), { signal: ctx.signal, requestId: ctx.requestId });
      return create(CountTokensResponseSchema, { inputTokens: BigInt(Math.max(0, Math.trunc(r.input_tokens ?? 0))) });
    },
  };
}
