// OpenAI Chat Completions response -> neutral GenerateResponse. Pure.
// reasoning_content (DeepSeek, vLLM) and reasoning (OpenRouter, Ollama) become
// a thinking part without a signature; tool calls keep their ids (a missing
// id gets a generated one); refusals become text with a safety finish.
// A custom tool's call (type "custom") is a tool call with free-text input.
// What a Chat Completions client reads back from OpenAI beyond the neutral
// model rides in vendor_extras.openai: the refusal (a text part standing in
// for it), annotations and other message fields (on the content's text part),
// response fields.
import { type JsonObject } from "@bufbuild/protobuf";
import { standInPart, unknownFields } from "../../core/json-fields.js";
import { create } from "../../core/proto/create.js";
import { CandidateSchema, FinishReason, GenerateResponseSchema, PartSchema, UsageSchema, type Candidate, type GenerateResponse, type Part, type Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { openaiLogprobs } from "../shared/openai-logprobs.js";
import { argsObject } from "../shared/parts.js";
import { VENDOR } from "./request.js";
import type * as wire from "./wire.js";

const n = (v: number | null | undefined) => BigInt(Math.max(0, Math.trunc(v ?? 0)));

export function usageOf(u: wire.Usage | null | undefined): Usage {
  const prompt = n(u?.prompt_tokens);
  let cached = n(u?.prompt_tokens_details?.cached_tokens);
  if (u?.prompt_cache_hit_tokens !== undefined) cached = n(u.prompt_cache_hit_tokens);
  if (cached > prompt) cached = prompt;
  return create(UsageSchema, {
    inputTokens: prompt - cached,
    cacheReadTokens: cached,
    outputTokens: n(u?.completion_tokens),
    thinkingTokens: n(u?.completion_tokens_details?.reasoning_tokens),
  });
}

const FINISH: Record<string, FinishReason> = {
  stop: FinishReason.STOP,
  length: FinishReason.MAX_TOKENS,
  tool_calls: FinishReason.TOOL_USE,
  function_call: FinishReason.TOOL_USE,
  content_filter: FinishReason.SAFETY,
};

/** finish_reason -> neutral; a stop with tool calls is a tool use (some servers say "stop"). */
export function finishOf(
  c: Pick<wire.Choice, "finish_reason" | "stop_reason">,
  hasToolCall: boolean,
  refusal: boolean,
  stops: string[],
): { finishReason: FinishReason; vendorFinishReason: string; stopSequence: string } {
  const fr = c.finish_reason ?? "stop";
  if (refusal) return { finishReason: FinishReason.SAFETY, vendorFinishReason: "refusal", stopSequence: "" };
  let f = FINISH[fr] ?? FinishReason.OTHER;
  if (f === FinishReason.STOP && hasToolCall) f = FinishReason.TOOL_USE;
  const seq = typeof c.stop_reason === "string" && stops.includes(c.stop_reason) ? c.stop_reason : "";
  if (f === FinishReason.STOP && seq) return { finishReason: FinishReason.STOP_SEQUENCE, vendorFinishReason: "", stopSequence: seq };
  return { finishReason: f, vendorFinishReason: FINISH[fr] === undefined ? fr : "", stopSequence: "" };
}

/** Tool-call arguments as JSON text (some servers send an object). */
export function argumentsText(a: string | Record<string, unknown> | undefined): string {
  if (a === undefined) return "";
  return typeof a === "string" ? a : JSON.stringify(a);
}

/** The message fields the neutral parts say. */
const MESSAGE_FIELDS = new Set(["role", "content", "refusal", "reasoning_content", "reasoning", "tool_calls", "function_call", "annotations"]);

/** Message fields beside the content (non-empty annotations, audio, newer ones), for a Chat Completions client; undefined when there are none. */
export function messageFields(m: wire.ResponseMessage): JsonObject | undefined {
  let x = unknownFields(m, MESSAGE_FIELDS, true);
  if (Array.isArray(m.annotations) && m.annotations.length) (x ??= {}).annotations = m.annotations as JsonObject[string];
  return x;
}

/** A refusal as OpenAI gave it: a text part other vendors' clients read as text. */
export const refusalPart = (text: string): Part => standInPart(VENDOR, { type: "refusal", refusal: text }, text);

/** A tool call; a custom tool's carries its free-text input. */
export function toolCallPart(tc: wire.ResponseToolCall, newId: () => string): Part {
  const id = tc.id || newId();
  if (tc.type === "custom") return create(PartSchema, { kind: { case: "toolCall", value: { id, name: tc.custom?.name ?? "", input: tc.custom?.input ?? "" } } });
  return create(PartSchema, { kind: { case: "toolCall", value: { id, name: tc.function?.name ?? "", arguments: argsObject(argumentsText(tc.function?.arguments)) } } });
}

function candidateOf(ch: wire.Choice, i: number, newId: () => string, stops: string[]): Candidate {
  const m = ch.message ?? {};
  const parts: Part[] = [];
  const reasoning = m.reasoning_content ?? m.reasoning;
  if (reasoning) parts.push(create(PartSchema, { kind: { case: "thinking", value: { text: reasoning } } }));
  const fields = messageFields(m);
  if (m.content || fields) parts.push(create(PartSchema, { kind: { case: "text", value: { text: m.content ?? "" } }, ...(fields ? { vendorExtras: { [VENDOR]: fields } } : {}) }));
  if (m.refusal) parts.push(refusalPart(m.refusal));
  for (const tc of m.tool_calls ?? []) parts.push(toolCallPart(tc, newId));
  const fin = finishOf(ch, (m.tool_calls ?? []).length > 0, !!m.refusal && !m.content, stops);
  const logprobs = openaiLogprobs(ch.logprobs?.content);
  return create(CandidateSchema, { index: ch.index ?? i, parts, ...fin, ...(logprobs ? { logprobs } : {}) });
}

const RESPONSE_FIELDS = new Set(["id", "object", "created", "model", "choices", "usage", "error", "system_fingerprint", "service_tier"]);

/** Response fields with no neutral name (system_fingerprint, service_tier, newer ones). */
export function responseExtras(r: wire.ChatResponse): Record<string, JsonObject> {
  const out: JsonObject = unknownFields(r, RESPONSE_FIELDS, true) ?? {};
  if (r.system_fingerprint) out.system_fingerprint = r.system_fingerprint;
  if (r.service_tier) out.service_tier = r.service_tier;
  return Object.keys(out).length ? { [VENDOR]: out } : {};
}

export function fromVendorResponse(r: wire.ChatResponse, ctx: { model: string; channel: string; newId: () => string; stops: string[] }): GenerateResponse {
  return create(GenerateResponseSchema, {
    id: r.id ?? "",
    model: ctx.model,
    modelVersion: r.model ?? "",
    channel: ctx.channel,
    usage: usageOf(r.usage),
    vendorExtras: responseExtras(r),
    candidates: (r.choices ?? []).map((c, i) => candidateOf(c, i, ctx.newId, ctx.stops)).sort((a, b) => a.index - b.index),
  });
}
