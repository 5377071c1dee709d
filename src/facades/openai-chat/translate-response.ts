// Pure translation of a neutral GenerateResponse into a chat.completion, and
// the pieces the stream (./stream.ts) shares: usage, finish reasons, tool
// calls, logprobs. No I/O, no clock.
//
// What an OpenAI upstream answered beyond the neutral model comes back as it
// was: a refusal (a text part standing in for OpenAI's refusal), annotations
// and other message fields (vendor_extras.openai of a text part), a call of a
// newer tool type (a whole tool call), system_fingerprint and service_tier.
// A call with free-text input (ToolCall.input) is a custom tool's call.
import { isResponsesItem } from "../../wire/openai/hosted.js";
import { createHash } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import { isWholeBlock } from "../../core/json-fields.js";
import { FinishReason, Modality, type Candidate, type GenerateResponse, type LogprobsResult, type Part, type Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { VENDOR } from "./contents.js";
import type * as wire from "./wire.js";

export interface ResponseOptions {
  /** The completion id (completionId()). */
  id: string;
  /** Unix seconds. */
  created: number;
  /** The model name the client asked for. */
  model: string;
  /** The request used the legacy functions API: a call is `function_call`. */
  legacyFunctions: boolean;
  /** The client's service_tier, echoed when the upstream named none. */
  serviceTier?: string;
}

/** The upstream's id when it is a completion id; `fresh` otherwise (the local engine's, another vendor's). */
export function completionId(upstream: string, fresh: string): string {
  return upstream.startsWith("chatcmpl-") ? upstream : fresh;
}

/** Fingerprints made so far: a handful of backends answer, and a hash a response is a measurable cost. */
const fingerprints = new Map<string, string>();
const MAX_FINGERPRINTS = 1024;

/** A stable fingerprint of the backend that answered, when the upstream gave none. */
export function fingerprintOf(channel: string, modelVersion: string): string {
  const key = `${channel}\0${modelVersion}`;
  let fp = fingerprints.get(key);
  if (fp === undefined) {
    fp = "fp_" + createHash("sha256").update(key).digest("hex").slice(0, 10);
    if (fingerprints.size >= MAX_FINGERPRINTS) fingerprints.clear();
    fingerprints.set(key, fp);
  }
  return fp;
}

const n = (v: bigint | undefined) => Number(v ?? 0n);

const modalityTokens = (details: { modality: Modality; tokenCount: bigint }[], m: Modality) => details.reduce((s, d) => (d.modality === m ? s + Number(d.tokenCount) : s), 0);

/** Neutral usage -> OpenAI's: prompt tokens include the cached ones (read and written), completion tokens the reasoning ones. */
export function usageOf(u: Usage | undefined): wire.Usage {
  const cached = n(u?.cacheReadTokens);
  const prompt = n(u?.inputTokens) + cached + n(u?.cacheWriteTokens);
  const completion = n(u?.outputTokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached, audio_tokens: modalityTokens(u?.inputDetails ?? [], Modality.AUDIO) },
    completion_tokens_details: {
      reasoning_tokens: n(u?.thinkingTokens),
      audio_tokens: modalityTokens(u?.outputDetails ?? [], Modality.AUDIO),
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

const FILTERED = new Set([FinishReason.SAFETY, FinishReason.RECITATION, FinishReason.BLOCKLIST, FinishReason.PROHIBITED_CONTENT, FinishReason.SPII, FinishReason.IMAGE_SAFETY, FinishReason.LANGUAGE]);

/** Neutral finish -> finish_reason. A refusal OpenAI gave is a plain stop; calls make a stop a tool_calls. */
export function finishReasonOf(f: { finishReason: FinishReason; vendorFinishReason: string }, o: { hasToolCall: boolean; refused: boolean; legacyFunctions: boolean }): wire.FinishReason {
  const calls = o.legacyFunctions ? "function_call" : "tool_calls";
  if (f.finishReason === FinishReason.MAX_TOKENS || f.finishReason === FinishReason.CONTEXT_WINDOW_EXCEEDED) return "length";
  if (f.finishReason === FinishReason.SAFETY && f.vendorFinishReason === "refusal" && o.refused) return "stop";
  if (FILTERED.has(f.finishReason)) return "content_filter";
  return o.hasToolCall ? calls : "stop";
}

const utf8 = (s: string) => [...Buffer.from(s, "utf8")];

export function logprobsOf(lp: LogprobsResult | undefined): wire.ChoiceLogprobs | null {
  if (!lp?.chosenCandidates.length) return null;
  return {
    content: lp.chosenCandidates.map((c, i) => ({
      token: c.token,
      logprob: c.logProbability,
      bytes: utf8(c.token),
      top_logprobs: (lp.topCandidates[i]?.candidates ?? []).map((t) => ({ token: t.token, logprob: t.logProbability, bytes: utf8(t.token) })),
    })),
    refusal: null,
  };
}

/** OpenAI's own fields on a part (vendor_extras.openai), when the part carries some. */
const openaiOf = (p: Part): JsonObject | undefined => p.vendorExtras[VENDOR];

/** A text part standing in for a refusal OpenAI gave. */
export const isRefusal = (p: Part): boolean => p.kind.case === "text" && openaiOf(p)?.type === "refusal";

/** Message fields an OpenAI upstream answered beside the content (annotations, audio, newer ones), carried by a text part. */
export function messageFieldsOf(p: Part): JsonObject | undefined {
  const x = openaiOf(p);
  return p.kind.case === "text" && x && !isWholeBlock(x) ? x : undefined;
}

/** A whole OpenAI tool call carried by a part with no kind (a call of a newer tool type). */
export function wholeToolCall(p: Part): JsonObject | undefined {
  const x = p.kind.case === undefined ? openaiOf(p) : undefined;
  return x && isWholeBlock(x) && typeof x.id === "string" && !isResponsesItem(x) ? x : undefined;
}

/** The text a part adds to `content` ("" for parts that add none). */
export function contentText(p: Part): string {
  const k = p.kind;
  if (k.case === "text") return isRefusal(p) ? "" : k.value.text;
  if (k.case === "executableCode") return "```" + k.value.language.toLowerCase() + "\n" + k.value.code + "\n```";
  if (k.case === "codeExecutionResult") return "```\n" + k.value.output + "\n```";
  return "";
}

export function toolCallOf(p: Part): wire.ResponseToolCall | wire.ResponseCustomToolCall | JsonObject | undefined {
  const k = p.kind;
  if (k.case === "toolCall" && k.value.input !== undefined) return { id: k.value.id, type: "custom", custom: { name: k.value.name, input: k.value.input } };
  if (k.case === "toolCall") return { id: k.value.id, type: "function", function: { name: k.value.name, arguments: JSON.stringify(k.value.arguments ?? {}) } };
  return wholeToolCall(p);
}

interface MessageOut {
  message: wire.ResponseMessage;
  hasToolCall: boolean;
  refused: boolean;
}

/**
 * Another vendor's citation with a url (an Anthropic web search result) as
 * OpenAI's url_citation over the text it cites (offsets into `content`);
 * citations without one (document locations) have no form here.
 */
export function pushUrlCitation(out: unknown[], cite: JsonObject, start: number, end: number): void {
  if (typeof cite.url !== "string" || !cite.url) return;
  out.push({ type: "url_citation", url_citation: { start_index: start, end_index: end, title: typeof cite.title === "string" ? cite.title : "", url: cite.url } });
}

export function messageOf(parts: Part[], legacyFunctions: boolean): MessageOut {
  let content = "";
  let reasoning = "";
  let refusal: string | null = null;
  const annotations: unknown[] = [];
  const calls: (wire.ResponseToolCall | wire.ResponseCustomToolCall | JsonObject)[] = [];
  const fields: JsonObject = {};
  for (const p of parts) {
    if (p.kind.case === "thinking") reasoning += p.kind.value.text;
    else if (isRefusal(p)) refusal = (refusal ?? "") + (p.kind.value as { text: string }).text;
    else {
      const c = toolCallOf(p);
      if (c) calls.push(c);
      const start = content.length;
      content += contentText(p);
      if (p.kind.case === "text") for (const cite of p.kind.value.citations) pushUrlCitation(annotations, cite, start, content.length);
    }
    const mf = messageFieldsOf(p);
    if (mf) {
      for (const [k, v] of Object.entries(mf)) {
        if (k === "annotations" && Array.isArray(v)) annotations.push(...v);
        else if (k !== "refusal") fields[k] = v as JsonObject[string];
      }
    }
  }
  const message: wire.ResponseMessage = { ...fields, role: "assistant", content: content || (calls.length || refusal !== null ? null : ""), refusal, annotations };
  if (reasoning) message.reasoning_content = reasoning;
  if (calls.length) {
    const first = calls[0] as wire.ResponseToolCall;
    if (legacyFunctions && first.type === "function") message.function_call = first.function;
    else message.tool_calls = calls;
  }
  return { message, hasToolCall: calls.length > 0, refused: refusal !== null };
}

function choiceOf(c: Candidate, legacyFunctions: boolean): wire.Choice {
  const { message, hasToolCall, refused } = messageOf(c.parts, legacyFunctions);
  return { index: c.index, message, logprobs: logprobsOf(c.logprobs), finish_reason: finishReasonOf(c, { hasToolCall, refused, legacyFunctions }) };
}

/** Response fields an OpenAI upstream sent that the neutral model does not name (system_fingerprint, service_tier, newer ones). */
export function responseFieldsOf(resp: Pick<GenerateResponse, "vendorExtras">): JsonObject {
  return resp.vendorExtras[VENDOR] ?? {};
}

export function fromCoreCompletion(resp: GenerateResponse, o: ResponseOptions): wire.ChatCompletion {
  const { system_fingerprint, service_tier, ...rest } = responseFieldsOf(resp);
  let choices = [...resp.candidates].sort((a, b) => a.index - b.index).map((c) => choiceOf(c, o.legacyFunctions));
  // A prompt blocked before any answer: one filtered choice, as OpenAI reports a filtered completion.
  if (!choices.length && resp.promptFeedback?.blockReason) {
    choices = [{ index: 0, message: { role: "assistant", content: null, refusal: null, annotations: [] }, logprobs: null, finish_reason: "content_filter" }];
  }
  const tier = typeof service_tier === "string" ? service_tier : o.serviceTier;
  return {
    ...rest,
    id: o.id,
    object: "chat.completion",
    created: o.created,
    model: o.model,
    choices,
    usage: usageOf(resp.usage),
    ...(tier ? { service_tier: tier } : {}),
    system_fingerprint: typeof system_fingerprint === "string" ? system_fingerprint : fingerprintOf(resp.channel, resp.modelVersion),
  };
}
