// Gemini GenerateContentResponse -> neutral GenerateResponse. Pure.
// thoughtSignatures become {issuer: "gemini"} on the part they came with (a
// signature-only empty text part joins the part before it); thought parts
// become thinking; a function call without an id gets a generated one; a stop
// with function calls is a tool use. A functionCall of an emulated custom
// tool is a call with free-text input. Grounding by Google Search is a
// WebSearchCall part before the answer, and citations on its text
// (web-search.ts).
import { type JsonObject } from "@bufbuild/protobuf";
import { vendorExtrasOf } from "../../core/json-fields.js";
import { create } from "../../core/proto/create.js";
import {
  BlockReason,
  CandidateSchema,
  CodeOutcome,
  FinishReason,
  GenerateResponseSchema,
  HarmCategory,
  HarmProbability,
  LogprobsResultSchema,
  Modality,
  ModalityTokensSchema,
  PartSchema,
  PromptFeedbackSchema,
  SafetyRatingSchema,
  UsageSchema,
  type Candidate,
  type GenerateResponse,
  type LogprobsResult,
  type ModalityTokens,
  type Part,
  type PromptFeedback,
  type SafetyRating,
  type Usage,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { customInputOf } from "../shared/custom-tools.js";
import { VENDOR } from "./request.js";
import { groundingCitations, groundingPart, isWebGrounding } from "./web-search.js";
import type * as wire from "./wire.js";

const n = (v: number | null | undefined) => BigInt(Math.max(0, Math.trunc(v ?? 0)));

const FINISH: Record<string, FinishReason> = {
  STOP: FinishReason.STOP,
  MAX_TOKENS: FinishReason.MAX_TOKENS,
  SAFETY: FinishReason.SAFETY,
  RECITATION: FinishReason.RECITATION,
  LANGUAGE: FinishReason.LANGUAGE,
  OTHER: FinishReason.OTHER,
  BLOCKLIST: FinishReason.BLOCKLIST,
  PROHIBITED_CONTENT: FinishReason.PROHIBITED_CONTENT,
  SPII: FinishReason.SPII,
  MALFORMED_FUNCTION_CALL: FinishReason.MALFORMED_TOOL_CALL,
  IMAGE_SAFETY: FinishReason.IMAGE_SAFETY,
  IMAGE_PROHIBITED_CONTENT: FinishReason.IMAGE_SAFETY,
};

export function finishOf(reason: string | undefined, hasToolCall: boolean): { finishReason: FinishReason; vendorFinishReason: string } {
  if (!reason) return { finishReason: FinishReason.UNSPECIFIED, vendorFinishReason: "" };
  let f = FINISH[reason] ?? FinishReason.OTHER;
  if (f === FinishReason.STOP && hasToolCall) f = FinishReason.TOOL_USE;
  return { finishReason: f, vendorFinishReason: reason };
}

const enumOf = <E extends Record<string, string | number>>(e: E, name: string | undefined, prefix: string, fallback: E[keyof E]): E[keyof E] => {
  const key = (name ?? "").startsWith(prefix) ? name!.slice(prefix.length) : (name ?? "");
  const v = e[key as keyof E];
  return typeof v === "number" ? v : fallback;
};

export function safetyRatingsOf(list: wire.SafetyRating[] | undefined): SafetyRating[] {
  return (list ?? []).map((r) =>
    create(SafetyRatingSchema, {
      category: enumOf(HarmCategory, r.category, "HARM_CATEGORY_", HarmCategory.UNSPECIFIED),
      probability: enumOf(HarmProbability, r.probability, "HARM_PROBABILITY_", HarmProbability.UNSPECIFIED),
      blocked: r.blocked ?? false,
    }),
  );
}

export function promptFeedbackOf(pf: wire.GenerateContentResponse["promptFeedback"]): PromptFeedback | undefined {
  if (!pf) return undefined;
  return create(PromptFeedbackSchema, {
    blockReason: pf.blockReason ? enumOf(BlockReason, pf.blockReason, "BLOCK_REASON_", BlockReason.OTHER) : BlockReason.UNSPECIFIED,
    safetyRatings: safetyRatingsOf(pf.safetyRatings),
    blockMessage: pf.blockReasonMessage ?? "",
  });
}

function modalities(list: wire.ModalityCount[] | undefined): ModalityTokens[] {
  return (list ?? []).map((d) => create(ModalityTokensSchema, { modality: enumOf(Modality, d.modality, "MODALITY_", Modality.UNSPECIFIED), tokenCount: n(d.tokenCount) }));
}

/** Per-modality prompt counts without their cached part (the neutral input excludes the cache). */
function minus(all: ModalityTokens[], cached: ModalityTokens[]): ModalityTokens[] {
  if (!cached.length) return all;
  return all.map((d) => {
    const c = cached.find((x) => x.modality === d.modality)?.tokenCount ?? 0n;
    return create(ModalityTokensSchema, { modality: d.modality, tokenCount: d.tokenCount > c ? d.tokenCount - c : 0n });
  });
}

/** usageMetadata -> neutral: the prompt includes the cached part; output includes thoughts. */
export function usageOf(u: wire.UsageMetadata | undefined): Usage {
  const prompt = n(u?.promptTokenCount);
  const cached = n(u?.cachedContentTokenCount);
  const thoughts = n(u?.thoughtsTokenCount);
  const cacheDetails = modalities(u?.cacheTokensDetails);
  return create(UsageSchema, {
    inputTokens: prompt > cached ? prompt - cached : 0n,
    cacheReadTokens: cached,
    outputTokens: n(u?.candidatesTokenCount) + thoughts,
    thinkingTokens: thoughts,
    toolUsePromptTokens: n(u?.toolUsePromptTokenCount),
    inputDetails: minus(modalities(u?.promptTokensDetails), cacheDetails),
    outputDetails: modalities(u?.candidatesTokensDetails),
    cacheDetails,
    toolUseDetails: modalities(u?.toolUsePromptTokensDetails),
  });
}

const OUTCOME: Record<string, CodeOutcome> = { OUTCOME_OK: CodeOutcome.OK, OUTCOME_FAILED: CodeOutcome.FAILED, OUTCOME_DEADLINE_EXCEEDED: CodeOutcome.DEADLINE_EXCEEDED };

const NO_CUSTOM: ReadonlySet<string> = new Set();

/** One Gemini part -> a neutral part (undefined for a signature-only empty text); a call named in `custom` is a custom tool's call. */
export function partOf(p: wire.Part, newId: () => string, custom: ReadonlySet<string> = NO_CUSTOM): Part | undefined {
  const sig = p.thoughtSignature ? { signature: { issuer: VENDOR, value: p.thoughtSignature } } : {};
  if (p.functionCall) {
    const fc = p.functionCall;
    const args = (fc.args ?? {}) as JsonObject;
    const call = custom.has(fc.name) ? { input: customInputOf(args) } : { arguments: args };
    return create(PartSchema, { kind: { case: "toolCall", value: { id: fc.id || newId(), name: fc.name, ...call } }, ...sig });
  }
  if (p.inlineData)
    return create(PartSchema, {
      kind: { case: "media", value: { mimeType: p.inlineData.mimeType, source: { case: "data", value: new Uint8Array(Buffer.from(p.inlineData.data, "base64")) } } },
      ...sig,
    });
  if (p.fileData) return create(PartSchema, { kind: { case: "media", value: { mimeType: p.fileData.mimeType ?? "", source: { case: "uri", value: p.fileData.fileUri } } }, ...sig });
  if (p.executableCode) return create(PartSchema, { kind: { case: "executableCode", value: { language: p.executableCode.language, code: p.executableCode.code } }, ...sig });
  if (p.codeExecutionResult) {
    return create(PartSchema, {
      kind: { case: "codeExecutionResult", value: { outcome: OUTCOME[p.codeExecutionResult.outcome] ?? CodeOutcome.UNSPECIFIED, output: p.codeExecutionResult.output ?? "" } },
      ...sig,
    });
  }
  if (p.functionResponse) return undefined;
  if (p.thought) return create(PartSchema, { kind: { case: "thinking", value: { text: p.text ?? "" } }, ...sig });
  if (p.text === undefined || (p.text === "" && !p.thoughtSignature)) return undefined;
  return create(PartSchema, { kind: { case: "text", value: { text: p.text } }, ...sig });
}

export function logprobsOf(l: wire.Candidate["logprobsResult"]): LogprobsResult | undefined {
  if (!l) return undefined;
  const cand = (c: wire.LogprobCandidate) => ({ token: c.token ?? "", tokenId: c.tokenId ?? 0, logProbability: c.logProbability ?? 0 });
  return create(LogprobsResultSchema, {
    topCandidates: (l.topCandidates ?? []).map((t) => ({ candidates: (t.candidates ?? []).map(cand) })),
    chosenCandidates: (l.chosenCandidates ?? []).map(cand),
  });
}

/**
 * Parts of a candidate. A signature is the signature of the thinking before it:
 * one that comes on the first part after unsigned thoughts is kept on the
 * thinking part (so formats that carry signatures only on thinking keep it;
 * request.ts puts it back on that part for Gemini), and an empty text part
 * that only carries a signature hands it to the part before.
 */
export function partsOf(list: wire.Part[] | undefined, newId: () => string, singleCall: boolean, custom: ReadonlySet<string> = NO_CUSTOM): Part[] {
  const out: Part[] = [];
  let calls = 0;
  for (const wp of list ?? []) {
    if (wp.functionCall && singleCall && calls++ > 0) continue;
    const p = partOf(wp, newId, custom);
    if (!p) continue;
    const prev = out.at(-1);
    if (p.signature && p.kind.case !== "thinking" && prev && !prev.signature && (prev.kind.case === "thinking" || (p.kind.case === "text" && p.kind.value.text === ""))) {
      prev.signature = p.signature;
      p.signature = undefined;
      if (p.kind.case === "text" && p.kind.value.text === "") continue;
    }
    out.push(p);
  }
  return out;
}

/** A web search the grounding metadata tells of: its citations on the last text part, and the search as a part before the answer. */
function withGrounding(parts: Part[], gm: Record<string, unknown> | undefined, newId: () => string): Part[] {
  if (!isWebGrounding(gm)) return parts;
  const text = parts.findLast((p) => p.kind.case === "text");
  if (text?.kind.case === "text") text.kind.value.citations.push(...groundingCitations(gm));
  return [groundingPart(gm, newId()), ...parts];
}

function candidateOf(c: wire.Candidate, i: number, newId: () => string, singleCall: boolean, custom: ReadonlySet<string>): Candidate {
  const parts = withGrounding(partsOf(c.content?.parts, newId, singleCall, custom), c.groundingMetadata, newId);
  const fin = finishOf(
    c.finishReason ?? "STOP",
    parts.some((p) => p.kind.case === "toolCall"),
  );
  const logprobs = logprobsOf(c.logprobsResult);
  return create(CandidateSchema, {
    index: c.index ?? i,
    parts,
    finishReason: fin.finishReason,
    vendorFinishReason: fin.vendorFinishReason,
    safetyRatings: safetyRatingsOf(c.safetyRatings),
    finishMessage: c.finishMessage ?? "",
    ...(c.citationMetadata ? { citationMetadata: c.citationMetadata as JsonObject } : {}),
    ...(c.groundingMetadata ? { groundingMetadata: c.groundingMetadata as JsonObject } : {}),
    ...(c.avgLogprobs !== undefined ? { avgLogprobs: c.avgLogprobs } : {}),
    ...(logprobs ? { logprobs } : {}),
  });
}

const RESPONSE_FIELDS = new Set(["candidates", "promptFeedback", "usageMetadata", "modelVersion", "responseId"]);

export function responseExtras(r: wire.GenerateContentResponse): Record<string, JsonObject> {
  return vendorExtrasOf(VENDOR, r, RESPONSE_FIELDS);
}

export function fromVendorResponse(
  r: wire.GenerateContentResponse,
  ctx: { model: string; channel: string; newId: () => string; singleCall?: boolean; customTools?: ReadonlySet<string> },
): GenerateResponse {
  const pf = promptFeedbackOf(r.promptFeedback);
  return create(GenerateResponseSchema, {
    id: r.responseId ?? "",
    model: ctx.model,
    modelVersion: r.modelVersion ?? "",
    channel: ctx.channel,
    usage: usageOf(r.usageMetadata),
    ...(pf ? { promptFeedback: pf } : {}),
    vendorExtras: responseExtras(r),
    candidates: (r.candidates ?? []).map((c, i) => candidateOf(c, i, ctx.newId, ctx.singleCall ?? false, ctx.customTools ?? NO_CUSTOM)),
  });
}
