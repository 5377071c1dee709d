// Neutral answers -> generate-content JSON (spec 2.6). Pure.
import type { JsonObject } from "@bufbuild/protobuf";
import {
  BlockReason,
  CodeOutcome,
  FinishReason,
  HarmCategory,
  HarmProbability,
  Modality,
  type Candidate,
  type CountTokensResponse,
  type GenerateResponse,
  type LogprobCandidate,
  type LogprobsResult,
  type ModalityTokens,
  type Part,
  type PromptFeedback,
  type SafetyRating,
  type Usage,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { callArguments } from "../../core/chat/tool-calls.js";
import type { ResponseOptions } from "./translate.js";
import { encodeHiddenThought, encodePartSignature } from "./thought-signature.js";
import { groundingOf } from "./web-search.js";

/** A part as Gemini sends it; only the fields that are set appear. */
export type WirePart = Record<string, unknown> & { thoughtSignature?: string };

const GEMINI_FINISH = new Set([
  "FINISH_REASON_UNSPECIFIED",
  "STOP",
  "MAX_TOKENS",
  "SAFETY",
  "RECITATION",
  "LANGUAGE",
  "OTHER",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "MALFORMED_FUNCTION_CALL",
  "IMAGE_SAFETY",
  "UNEXPECTED_TOOL_CALL",
  "TOO_MANY_TOOL_CALLS",
]);

const FINISH: Record<FinishReason, string> = {
  [FinishReason.UNSPECIFIED]: "FINISH_REASON_UNSPECIFIED",
  [FinishReason.STOP]: "STOP",
  [FinishReason.MAX_TOKENS]: "MAX_TOKENS",
  [FinishReason.STOP_SEQUENCE]: "STOP",
  [FinishReason.TOOL_USE]: "STOP",
  [FinishReason.SAFETY]: "SAFETY",
  [FinishReason.RECITATION]: "RECITATION",
  [FinishReason.LANGUAGE]: "LANGUAGE",
  [FinishReason.BLOCKLIST]: "BLOCKLIST",
  [FinishReason.PROHIBITED_CONTENT]: "PROHIBITED_CONTENT",
  [FinishReason.SPII]: "SPII",
  [FinishReason.MALFORMED_TOOL_CALL]: "MALFORMED_FUNCTION_CALL",
  [FinishReason.IMAGE_SAFETY]: "IMAGE_SAFETY",
  [FinishReason.PAUSE_TURN]: "OTHER",
  [FinishReason.CONTEXT_WINDOW_EXCEEDED]: "MAX_TOKENS",
  [FinishReason.OTHER]: "OTHER",
};

/** Neutral finish reason -> Gemini's enum; the upstream's own Gemini reason wins when it has one. */
export function fromCoreFinish(reason: FinishReason, vendorReason = ""): string {
  if (vendorReason && GEMINI_FINISH.has(vendorReason)) return vendorReason;
  return FINISH[reason] ?? "OTHER";
}

const BLOCK: Record<BlockReason, string> = {
  [BlockReason.UNSPECIFIED]: "BLOCK_REASON_UNSPECIFIED",
  [BlockReason.SAFETY]: "SAFETY",
  [BlockReason.OTHER]: "OTHER",
  [BlockReason.BLOCKLIST]: "BLOCKLIST",
  [BlockReason.PROHIBITED_CONTENT]: "PROHIBITED_CONTENT",
  [BlockReason.IMAGE_SAFETY]: "IMAGE_SAFETY",
};

export const modalityName = (m: Modality) => (m === Modality.UNSPECIFIED ? "MODALITY_UNSPECIFIED" : Modality[m]);

export function fromCoreSafetyRatings(list: SafetyRating[]): JsonObject[] {
  return list.map((r) => ({
    category: `HARM_CATEGORY_${HarmCategory[r.category]}`,
    probability: r.probability === HarmProbability.UNSPECIFIED ? "HARM_PROBABILITY_UNSPECIFIED" : HarmProbability[r.probability],
    ...(r.blocked ? { blocked: true } : {}),
  }));
}

export function fromCorePromptFeedback(pf: PromptFeedback | undefined): JsonObject | undefined {
  if (!pf || (pf.blockReason === BlockReason.UNSPECIFIED && pf.safetyRatings.length === 0)) return undefined;
  return {
    ...(pf.blockReason !== BlockReason.UNSPECIFIED ? { blockReason: BLOCK[pf.blockReason] } : {}),
    safetyRatings: fromCoreSafetyRatings(pf.safetyRatings),
    ...(pf.blockMessage ? { blockReasonMessage: pf.blockMessage } : {}),
  };
}

const OUTCOME: Record<CodeOutcome, string> = {
  [CodeOutcome.UNSPECIFIED]: "OUTCOME_UNSPECIFIED",
  [CodeOutcome.OK]: "OUTCOME_OK",
  [CodeOutcome.FAILED]: "OUTCOME_FAILED",
  [CodeOutcome.DEADLINE_EXCEEDED]: "OUTCOME_DEADLINE_EXCEEDED",
};

/** One non-thinking part in Gemini's shape (undefined for parts Gemini cannot show). */
export function fromCorePart(p: Part): WirePart | undefined {
  const k = p.kind;
  switch (k.case) {
    case "text":
      return { text: k.value.text };
    case "media": {
      const s = k.value.source;
      if (s.case === "data") return { inlineData: { mimeType: k.value.mimeType, data: Buffer.from(s.value).toString("base64") } };
      if (s.case === "uri") return { fileData: { mimeType: k.value.mimeType, fileUri: s.value } };
      return undefined;
    }
    case "toolCall":
      return { functionCall: { ...(k.value.id ? { id: k.value.id } : {}), name: k.value.name, args: callArguments(k.value) } };
    case "toolResult": {
      const text = k.value.content.flatMap((c) => (c.kind.case === "text" ? [c.kind.value.text] : [])).join("");
      const response = k.value.structured ?? (k.value.isError ? { error: text } : { output: text });
      return { functionResponse: { ...(k.value.callId ? { id: k.value.callId } : {}), name: k.value.name, response } };
    }
    case "executableCode":
      return { executableCode: { language: k.value.language || "PYTHON", code: k.value.code } };
    case "codeExecutionResult":
      return { codeExecutionResult: { outcome: OUTCOME[k.value.outcome], ...(k.value.output ? { output: k.value.output } : {}) } };
    default:
      return undefined;
  }
}

/**
 * Neutral parts -> Gemini parts. Thoughts appear as `thought: true` parts only
 * when asked for; a thinking signature rides on the next non-thought part (an
 * empty text part when none follows), as Gemini does, in place of that part's
 * own signature.
 */
export function fromCoreParts(parts: Part[], includeThoughts: boolean): WirePart[] {
  const out: WirePart[] = [];
  let pending: string | undefined;
  for (const p of parts) {
    const k = p.kind;
    if (k.case === "thinking") {
      if (includeThoughts) out.push({ text: k.value.text, thought: true });
      if (p.signature) pending = includeThoughts ? encodePartSignature(p.signature) : encodeHiddenThought(k.value.text, p.signature);
      continue;
    }
    const wp = fromCorePart(p);
    if (!wp) continue;
    // The thinking's signature wins over the part's own (Gemini has one field).
    const sig = pending ?? (p.signature ? encodePartSignature(p.signature) : undefined);
    if (sig) wp.thoughtSignature = sig;
    pending = undefined;
    out.push(wp);
  }
  if (pending) out.push({ text: "", thoughtSignature: pending });
  return out;
}

function fromCoreLogprobCandidate(c: LogprobCandidate): JsonObject {
  return { token: c.token, tokenId: c.tokenId, logProbability: c.logProbability };
}

export function fromCoreLogprobs(l: LogprobsResult): JsonObject {
  return {
    topCandidates: l.topCandidates.map((t) => ({ candidates: t.candidates.map(fromCoreLogprobCandidate) })),
    chosenCandidates: l.chosenCandidates.map(fromCoreLogprobCandidate),
  };
}

// The renderers below build each object field by field, in the order
// Gemini sends them: a conditional spread per optional field costs a
// temporary object and a copy each, on every answer.
export function fromCoreCandidate(c: Candidate, opts: ResponseOptions): JsonObject {
  const o: JsonObject = {
    content: { parts: fromCoreParts(c.parts, opts.includeThoughts), role: "model" } as JsonObject,
    finishReason: fromCoreFinish(c.finishReason, c.vendorFinishReason),
    index: c.index,
  };
  if (c.safetyRatings.length) o.safetyRatings = fromCoreSafetyRatings(c.safetyRatings);
  if (c.finishMessage) o.finishMessage = c.finishMessage;
  if (c.citationMetadata) o.citationMetadata = c.citationMetadata;
  // Gemini's own grounding as it came; another vendor's search drawn as grounding.
  const grounding = c.groundingMetadata ?? groundingOf(c.parts);
  if (grounding) o.groundingMetadata = grounding;
  if (c.avgLogprobs !== undefined) o.avgLogprobs = c.avgLogprobs;
  if (c.logprobs) o.logprobsResult = fromCoreLogprobs(c.logprobs);
  return o;
}

function details(list: ModalityTokens[]): JsonObject[] {
  return list.filter((d) => d.tokenCount > 0n).map((d) => ({ modality: modalityName(d.modality), tokenCount: Number(d.tokenCount) }));
}

/** Adds up per-modality counts of several lists. */
function mergeDetails(...lists: ModalityTokens[][]): JsonObject[] {
  if (lists.every((l) => l.length === 0)) return [];
  const sum = new Map<Modality, bigint>();
  for (const l of lists) for (const d of l) sum.set(d.modality, (sum.get(d.modality) ?? 0n) + d.tokenCount);
  return [...sum].filter(([, n]) => n > 0n).map(([m, n]) => ({ modality: modalityName(m), tokenCount: Number(n) }));
}

/**
 * Neutral usage -> usageMetadata. promptTokenCount includes the cached part;
 * candidatesTokenCount excludes thoughts (which Gemini counts separately).
 */
export function fromCoreUsage(u: Usage | undefined): JsonObject {
  if (!u) return { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 };
  const prompt = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  const thoughts = u.thinkingTokens;
  const candidates = u.outputTokens > thoughts ? u.outputTokens - thoughts : 0n;
  const outDetails = u.outputDetails.map((d) => (d.modality === Modality.TEXT && d.tokenCount === u.outputTokens ? { ...d, tokenCount: candidates } : d));
  const o: JsonObject = { promptTokenCount: Number(prompt) };
  if (u.cacheReadTokens > 0n) o.cachedContentTokenCount = Number(u.cacheReadTokens);
  o.candidatesTokenCount = Number(candidates);
  if (u.toolUsePromptTokens > 0n) o.toolUsePromptTokenCount = Number(u.toolUsePromptTokens);
  if (thoughts > 0n) o.thoughtsTokenCount = Number(thoughts);
  o.totalTokenCount = Number(prompt + u.outputTokens + u.toolUsePromptTokens);
  o.promptTokensDetails = mergeDetails(u.inputDetails, u.cacheDetails);
  if (u.cacheDetails.length) o.cacheTokensDetails = details(u.cacheDetails);
  if (outDetails.length) o.candidatesTokensDetails = details(outDetails as ModalityTokens[]);
  if (u.toolUseDetails.length) o.toolUsePromptTokensDetails = details(u.toolUseDetails);
  return o;
}

/** Usage known before any output: the prompt only. */
export function promptOnlyUsage(u: Usage | undefined): JsonObject | undefined {
  if (!u) return undefined;
  const prompt = Number(u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens);
  return { promptTokenCount: prompt, totalTokenCount: prompt };
}

export function fromCoreResponse(resp: GenerateResponse, opts: ResponseOptions): JsonObject {
  const o: JsonObject = {};
  if (resp.candidates.length) o.candidates = resp.candidates.map((c) => fromCoreCandidate(c, opts));
  const pf = fromCorePromptFeedback(resp.promptFeedback);
  if (pf) o.promptFeedback = pf;
  o.usageMetadata = fromCoreUsage(resp.usage);
  o.modelVersion = resp.modelVersion || resp.model;
  o.responseId = resp.id;
  return o;
}

export function fromCoreCountTokens(r: CountTokensResponse): JsonObject {
  return {
    totalTokens: Number(r.inputTokens + r.cachedTokens),
    ...(r.cachedTokens > 0n ? { cachedContentTokenCount: Number(r.cachedTokens) } : {}),
    promptTokensDetails: details(r.inputDetails),
  };
}
