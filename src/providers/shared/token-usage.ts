// Usage and token counts of the local engine, from one tokenizer, so that
// count_tokens(input).input_tokens == usage.input_tokens of the answer.
import { create } from "../../core/proto/create.js";
import {
  CountTokensResponseSchema,
  Modality,
  ModalityTokensSchema,
  UsageSchema,
  type ChatInput,
  type CountTokensResponse,
  type ModalityTokens,
  type Part,
  type Usage,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { countInput, countPart, type InputCount } from "../../lib/tokenizer.js";

function inputDetails(c: InputCount): ModalityTokens[] {
  const out = [create(ModalityTokensSchema, { modality: Modality.TEXT, tokenCount: BigInt(c.total - c.media) })];
  for (const m of [Modality.IMAGE, Modality.AUDIO, Modality.VIDEO, Modality.DOCUMENT]) {
    const n = c.mediaByModality.get(m);
    if (n) out.push(create(ModalityTokensSchema, { modality: m, tokenCount: BigInt(n) }));
  }
  return out;
}

/**
 * Usage of an answer: input from the request, output from every output part
 * of every candidate (thinking included, and also reported apart). An answer
 * never has 0 output tokens; a blocked prompt (no candidates) has none.
 */
export function usageFor(input: ChatInput, parts: Part[], answered = true): Usage {
  const c = countInput(input);
  const counted = parts.reduce((n, p) => n + countPart(p), 0);
  const output = answered ? Math.max(1, counted) : 0;
  const thinking = parts.reduce((n, p) => n + (p.kind.case === "thinking" ? countPart(p) : 0), 0);
  return create(UsageSchema, {
    inputTokens: BigInt(c.total),
    outputTokens: BigInt(output),
    thinkingTokens: BigInt(thinking),
    inputDetails: inputDetails(c),
    outputDetails: answered ? [create(ModalityTokensSchema, { modality: Modality.TEXT, tokenCount: BigInt(output) })] : [],
  });
}

export function countTokensResponse(input: ChatInput): CountTokensResponse {
  const c = countInput(input);
  return create(CountTokensResponseSchema, { inputTokens: BigInt(c.total), inputDetails: inputDetails(c) });
}
