// Pure translation of a neutral GenerateResponse into a Responses API Response
// object (notes B.5), and what the stream (./stream.ts) shares with it: the
// Response with the request fields it echoes, the usage, the status. The
// output items come from ./output.ts, the same code the stream runs. No I/O,
// no clock.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { FinishReason, type GenerateResponse, type Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { ResponseFailure } from "./failure.js";
import type { ResponseMeta } from "./meta.js";
import { OutputAssembler, type OutputItem } from "./output.js";

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

export interface ResponseState {
  status: ResponseStatus;
  output: OutputItem[];
  usage: JsonObject | null;
  error?: ResponseFailure | null;
  /** Why an incomplete response stopped. */
  incompleteReason?: IncompleteReason;
  /** Unix seconds, for a completed response. */
  completedAt?: number | null;
}

/** What OpenAI answers for a request field the client left out. */
const ECHO_DEFAULTS = {
  background: false,
  instructions: null,
  max_output_tokens: null,
  max_tool_calls: null,
  parallel_tool_calls: true,
  previous_response_id: null,
  prompt_cache_key: null,
  safety_identifier: null,
  service_tier: "default",
  store: true,
  temperature: 1,
  tool_choice: "auto",
  tools: [],
  top_logprobs: 0,
  top_p: 1,
  truncation: "disabled",
  user: null,
  metadata: {},
} satisfies JsonObject;

/** Request fields that are never part of a Response. */
const NOT_ECHOED = new Set(["input", "include", "stream", "stream_options"]);

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The whole Response object: ids, the echoed request fields (OpenAI's defaults for those left out), and the state of the answer. */
export function responseObject(meta: ResponseMeta, s: ResponseState): JsonObject {
  const e = meta.echo;
  const echo = <K extends keyof typeof ECHO_DEFAULTS>(k: K): JsonValue => e[k] ?? ECHO_DEFAULTS[k];
  // "auto" is answered with the tier that served the request.
  const tier = e.service_tier === "auto" || e.service_tier == null ? ECHO_DEFAULTS.service_tier : e.service_tier;
  const out: JsonObject = {
    id: meta.id,
    object: "response",
    created_at: meta.createdAt,
    status: s.status,
    background: echo("background"),
    completed_at: s.completedAt ?? null,
    error: s.error ? { code: s.error.code, message: s.error.message } : null,
    incomplete_details: s.incompleteReason ? { reason: s.incompleteReason } : null,
    instructions: echo("instructions"),
    max_output_tokens: echo("max_output_tokens"),
    max_tool_calls: echo("max_tool_calls"),
    model: meta.model,
    output: s.output as JsonValue,
    parallel_tool_calls: echo("parallel_tool_calls"),
    previous_response_id: echo("previous_response_id"),
    prompt_cache_key: echo("prompt_cache_key"),
    reasoning: { effort: null, summary: null, ...(isObject(e.reasoning) ? e.reasoning : {}) },
    safety_identifier: echo("safety_identifier"),
    service_tier: tier,
    store: echo("store"),
    temperature: echo("temperature"),
    text: { format: { type: "text" }, verbosity: "medium", ...(isObject(e.text) ? e.text : {}) },
    tool_choice: echo("tool_choice"),
    tools: echo("tools"),
    top_logprobs: echo("top_logprobs"),
    top_p: echo("top_p"),
    truncation: echo("truncation"),
    usage: s.usage,
    user: echo("user"),
    metadata: echo("metadata"),
  };
  for (const k of Object.keys(e)) if (!(k in out) && !NOT_ECHOED.has(k) && e[k] !== undefined) out[k] = e[k];
  return out;
}

const n = (v: bigint | undefined) => Number(v ?? 0n);

/** Neutral usage -> OpenAI's: input tokens include the cached ones (read and written), output tokens the reasoning ones. */
export function usageOf(u: Usage | undefined): JsonObject {
  const cached = n(u?.cacheReadTokens);
  const written = n(u?.cacheWriteTokens);
  const input = n(u?.inputTokens) + cached + written;
  const output = n(u?.outputTokens);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached, cache_write_tokens: written },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: n(u?.thinkingTokens) },
    total_tokens: input + output,
  };
}

export type IncompleteReason = "max_output_tokens" | "content_filter";

export interface Outcome {
  status: "completed" | "incomplete";
  reason?: IncompleteReason;
}

const FILTERED = new Set([FinishReason.SAFETY, FinishReason.RECITATION, FinishReason.BLOCKLIST, FinishReason.PROHIBITED_CONTENT, FinishReason.SPII, FinishReason.IMAGE_SAFETY, FinishReason.LANGUAGE]);

/** How an answer ended: cut at the token limit, filtered (a prompt blocked before any answer too), or complete. A refusal OpenAI gave is an answer. */
export function outcomeOf(finish: { finishReason: FinishReason; vendorFinishReason: string } | undefined, o: { blocked: boolean; refused: boolean }): Outcome {
  if (!finish) return o.blocked ? { status: "incomplete", reason: "content_filter" } : { status: "completed" };
  const f = finish.finishReason;
  if (f === FinishReason.MAX_TOKENS || f === FinishReason.CONTEXT_WINDOW_EXCEEDED) return { status: "incomplete", reason: "max_output_tokens" };
  if (f === FinishReason.SAFETY && finish.vendorFinishReason === "refusal" && o.refused) return { status: "completed" };
  if (FILTERED.has(f)) return { status: "incomplete", reason: "content_filter" };
  return { status: "completed" };
}

/**
 * The Response for a whole answer (its first candidate; Responses has no
 * `n`). `completedAt` (unix seconds) is the caller's clock, for
 * `completed_at`.
 */
export function fromCoreResponse(resp: GenerateResponse, meta: ResponseMeta, completedAt?: number): JsonObject {
  const cand = resp.candidates.find((c) => c.index === 0) ?? resp.candidates[0];
  const asm = new OutputAssembler(meta);
  cand?.parts.forEach((p, i) => {
    asm.start(i, p);
    asm.stop(i);
  });
  const oc = outcomeOf(cand, { blocked: !!resp.promptFeedback?.blockReason, refused: asm.refused });
  asm.close(oc.status === "incomplete");
  return responseObject(meta, {
    status: oc.status,
    output: meta.compact ? [asm.compaction()] : asm.output,
    usage: usageOf(resp.usage),
    incompleteReason: oc.reason,
    completedAt: oc.status === "completed" ? completedAt : null,
  });
}
