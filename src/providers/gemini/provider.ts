// The Gemini chat provider: neutral <-> generateContent through the pure
// translators (request.ts, response.ts, stream.ts) and the I/O in client.ts.
import { randomBytes } from "node:crypto";
import { promiseOf } from "../../core/iter.js";
import { create } from "../../core/proto/create.js";
import { CountTokensResponseSchema, Modality, ModalityTokensSchema } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { ChatProvider } from "../../core/ports.js";
import type { Upstream } from "../shared/http.js";
import { countTokens, generateContent, streamGenerateContent } from "./client.js";
import { toVendorRequest } from "./request.js";
import { fromVendorResponse } from "./response.js";
import { GeminiStreamTranslator } from "./stream.js";

const newId = () => "call_" + randomBytes(12).toString("hex");

export function geminiChatProvider(up: Upstream): ChatProvider {
  return {
    kind: "gemini",
    generate(input, ctx) {
      return promiseOf(() => {
        const { body, plan } = toVendorRequest(input);
        return generateContent(up, ctx.upstreamModel, body, { signal: ctx.signal, requestId: ctx.requestId }, (r) =>
          fromVendorResponse(r, { model: input.model, channel: up.channel, newId, singleCall: plan.singleCall, customTools: plan.customTools }),
        );
      });
    },
    stream(input, ctx) {
      const { body, plan } = toVendorRequest(input);
      const tr = new GeminiStreamTranslator({ model: input.model, channel: up.channel, newId, singleCall: plan.singleCall, customTools: plan.customTools });
      return streamGenerateContent(up, ctx.upstreamModel, body, { signal: ctx.signal, requestId: ctx.requestId }, (chunk) => tr.push(chunk));
    },
    async countTokens(input, ctx) {
      const { body } = toVendorRequest(input);
      const { generationConfig: _g, safetySettings: _s, ...rest } = body;
      const model = `models/${ctx.upstreamModel.replace(/^models\//, "")}`;
      const r = await countTokens(up, ctx.upstreamModel, { generateContentRequest: { ...rest, model } }, { signal: ctx.signal, requestId: ctx.requestId });
      const total = BigInt(Math.max(0, Math.trunc(r.totalTokens ?? 0)));
      const cached = BigInt(Math.max(0, Math.trunc(r.cachedContentTokenCount ?? 0)));
      return create(CountTokensResponseSchema, {
        inputTokens: total > cached ? total - cached : 0n,
        cachedTokens: cached,
        inputDetails: (r.promptTokensDetails ?? []).map((d) =>
          create(ModalityTokensSchema, { modality: Modality[(d.modality ?? "") as keyof typeof Modality] ?? Modality.UNSPECIFIED, tokenCount: BigInt(d.tokenCount ?? 0) }),
        ),
      });
    },
  };
}
