// OpenAI Responses object -> neutral GenerateResponse. Pure.
// Output items become parts in order: a message's output_text a text part
// (url citations as citations, other annotations in vendor_extras.openai),
// a refusal a text part standing in for it; function and custom tool calls
// tool calls (call_id as the id); a reasoning item one thinking part (its
// summaries joined by a blank line) signed {issuer: openai} with its
// encrypted_content; a web search call a WebSearchCall part; any other item
// (hosted tools' calls) a part with no kind carrying the whole item.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { opaquePart, standInPart } from "../../core/json-fields.js";
import { create } from "../../core/proto/create.js";
import {
  CandidateSchema,
  FinishReason,
  GenerateResponseSchema,
  PartSchema,
  UsageSchema,
  WebSearchStatus,
  type GenerateResponse,
  type Part,
  type Usage,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { openaiLogprobs } from "../shared/openai-logprobs.js";
import { argsObject } from "../shared/parts.js";
import { streamError } from "./errors.js";
import { VENDOR } from "./request.js";
import type * as wire from "./wire.js";

const n = (v: number | null | undefined) => BigInt(Math.max(0, Math.trunc(v ?? 0)));

export function usageOf(u: wire.Usage | null | undefined): Usage {
  const input = n(u?.input_tokens);
  let cached = n(u?.input_tokens_details?.cached_tokens);
  if (cached > input) cached = input;
  return create(UsageSchema, {
    inputTokens: input - cached,
    cacheReadTokens: cached,
    outputTokens: n(u?.output_tokens),
    thinkingTokens: n(u?.output_tokens_details?.reasoning_tokens),
  });
}

export interface Finish {
  finishReason: FinishReason;
  vendorFinishReason: string;
}

/** A finished response's status -> neutral: calls make a tool use, a lone refusal a safety finish. */
export function finishOf(r: Pick<wire.Response, "status" | "incomplete_details">, hasToolCall: boolean, refusalOnly: boolean): Finish {
  const status = r.status ?? "completed";
  if (status === "incomplete") {
    const reason = r.incomplete_details?.reason ?? "";
    if (reason === "max_output_tokens") return { finishReason: FinishReason.MAX_TOKENS, vendorFinishReason: "" };
    if (reason === "content_filter") return { finishReason: FinishReason.SAFETY, vendorFinishReason: reason };
    return { finishReason: FinishReason.OTHER, vendorFinishReason: reason || status };
  }
  if (status !== "completed") return { finishReason: FinishReason.OTHER, vendorFinishReason: status };
  if (hasToolCall) return { finishReason: FinishReason.TOOL_USE, vendorFinishReason: "" };
  if (refusalOnly) return { finishReason: FinishReason.SAFETY, vendorFinishReason: "refusal" };
  return { finishReason: FinishReason.STOP, vendorFinishReason: "" };
}

/** A url_citation in the neutral shape of a web search result location (the text it spans as cited_text). */
export function citationOf(a: wire.Annotation, text: string): JsonObject | undefined {
  if (a.type !== "url_citation" || typeof a.url !== "string") return undefined;
  const cited = typeof a.start_index === "number" && typeof a.end_index === "number" ? text.slice(a.start_index, a.end_index) : "";
  return { type: "web_search_result_location", url: a.url, title: a.title ?? "", cited_text: cited };
}

export function textPart(c: wire.OutputContentPart): Part {
  const text = c.text ?? "";
  const citations: JsonObject[] = [];
  const others: JsonValue[] = [];
  for (const a of c.annotations ?? []) {
    const cite = citationOf(a, text);
    if (cite) citations.push(cite);
    else others.push(a as JsonValue);
  }
  return create(PartSchema, { kind: { case: "text", value: { text, citations } }, ...(others.length ? { vendorExtras: { [VENDOR]: { annotations: others } } } : {}) });
}

/** A refusal OpenAI gave: a text part other vendors' clients read as text. */
export const refusalPart = (text: string): Part => standInPart(VENDOR, { type: "refusal", refusal: text }, text);

/** What translating an answer needs: the client's model name, the channel, and ids for calls a server sent without one. */
export interface ResponseContext {
  model: string;
  channel: string;
  newId: () => string;
}

export function toolCallPart(item: wire.OutputItem, newId: () => string): Part {
  const id = item.call_id || item.id || newId();
  if (item.type === "custom_tool_call") return create(PartSchema, { kind: { case: "toolCall", value: { id, name: item.name ?? "", input: item.input ?? "" } } });
  return create(PartSchema, { kind: { case: "toolCall", value: { id, name: item.name ?? "", arguments: argsObject(item.arguments ?? "") } } });
}

/** The thinking a reasoning item shows: its summaries, else its raw reasoning text (open-weight models). */
export function reasoningText(item: wire.OutputItem): string {
  const summary = (item.summary ?? []).map((s) => s.text ?? "").filter(Boolean);
  if (summary.length) return summary.join("\n\n");
  return (item.content ?? []).flatMap((c) => (c.type === "reasoning_text" && c.text ? [c.text] : [])).join("\n\n");
}

/** A reasoning item as one thinking part; undefined when it carries nothing. */
export function reasoningPart(item: wire.OutputItem): Part | undefined {
  const text = reasoningText(item);
  const sig = item.encrypted_content ? { signature: { issuer: VENDOR, value: item.encrypted_content } } : {};
  if (!text && !item.encrypted_content) return undefined;
  return create(PartSchema, { kind: { case: "thinking", value: { text } }, ...sig });
}

const SEARCH_STATUS: Record<string, WebSearchStatus> = {
  completed: WebSearchStatus.COMPLETED,
  failed: WebSearchStatus.FAILED,
  in_progress: WebSearchStatus.IN_PROGRESS,
  searching: WebSearchStatus.IN_PROGRESS,
};

/** A web_search_call: the neutral search, carrying the whole item to go back to OpenAI as it came. */
export function webSearchPart(item: wire.OutputItem): Part {
  const a = item.action ?? {};
  const queries = [...(a.query ? [a.query] : []), ...(a.queries ?? []).filter((q) => q !== a.query)];
  const sources = (a.sources ?? []).flatMap((s) => (s.url ? [{ url: s.url, title: s.title ?? "" }] : []));
  return create(PartSchema, {
    kind: { case: "webSearchCall", value: { id: item.id ?? "", queries, sources, status: SEARCH_STATUS[item.status ?? ""] ?? WebSearchStatus.UNSPECIFIED } },
    vendorExtras: { [VENDOR]: item as JsonObject },
  });
}

/** The parts of one output item. */
export function itemParts(item: wire.OutputItem, newId: () => string): Part[] {
  switch (item.type) {
    case "message":
      return (item.content ?? []).flatMap((c) => (c.type === "output_text" ? [textPart(c)] : c.type === "refusal" ? [refusalPart(c.refusal ?? "")] : []));
    case "function_call":
    case "custom_tool_call":
      return [toolCallPart(item, newId)];
    case "reasoning": {
      const p = reasoningPart(item);
      return p ? [p] : [];
    }
    case "web_search_call":
      return [webSearchPart(item)];
    default:
      return typeof item.type === "string" ? [opaquePart(VENDOR, item)] : [];
  }
}

/** Whether the parts hold a call, and a refusal with no text beside it. */
export function answerShape(parts: Part[]): { hasToolCall: boolean; refusalOnly: boolean } {
  const refusal = parts.some((p) => p.kind.case === "text" && p.vendorExtras[VENDOR]?.type === "refusal");
  const text = parts.some((p) => p.kind.case === "text" && p.vendorExtras[VENDOR]?.type !== "refusal" && p.kind.value.text);
  return { hasToolCall: parts.some((p) => p.kind.case === "toolCall"), refusalOnly: refusal && !text };
}

/** Response fields a Chat or Responses client reads that the neutral model has no name for. */
export function responseExtras(r: wire.Response): Record<string, JsonObject> {
  return r.service_tier ? { [VENDOR]: { service_tier: r.service_tier } } : {};
}

export function fromVendorResponse(r: wire.Response, ctx: ResponseContext): GenerateResponse {
  // A failed response reports its error in the body (background and stream answers do; a 200 may too).
  if (r.status === "failed") throw streamError(r.error ?? undefined);
  const output = r.output ?? [];
  const parts = output.flatMap((i) => itemParts(i, ctx.newId));
  const tokens = output.flatMap((i) => (i.type === "message" ? (i.content ?? []).flatMap((c) => c.logprobs ?? []) : []));
  const { hasToolCall, refusalOnly } = answerShape(parts);
  const logprobs = openaiLogprobs(tokens);
  return create(GenerateResponseSchema, {
    id: r.id ?? "",
    model: ctx.model,
    modelVersion: r.model ?? "",
    channel: ctx.channel,
    usage: usageOf(r.usage),
    vendorExtras: responseExtras(r),
    candidates: [create(CandidateSchema, { index: 0, parts, ...finishOf(r, hasToolCall, refusalOnly), ...(logprobs ? { logprobs } : {}) })],
  });
}
