// Neutral answers -> generate-content JSON, as tables (pure, no server).
import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  BlockReason,
  CandidateSchema,
  CodeOutcome,
  CountTokensResponseSchema,
  FinishReason,
  GenerateResponseSchema,
  HarmCategory,
  HarmProbability,
  ModalityTokensSchema,
  Modality,
  PartSchema,
  SignatureSchema,
  UsageSchema,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { encodeSignature } from "../../../src/core/chat/signature-codec.js";
import { decodeThoughtSignature } from "../../../src/facades/generate-content/thought-signature.js";
import { fromCoreCountTokens, fromCoreFinish, fromCoreParts, fromCoreResponse, fromCoreUsage } from "../../../src/facades/generate-content/translate-response.js";

const part = (init: MessageInitShape<typeof PartSchema>) => create(PartSchema, init);
const sig = (issuer: string, value: string) => create(SignatureSchema, { issuer, value });

const FINISH: [FinishReason, string, string][] = [
  [FinishReason.STOP, "", "STOP"],
  [FinishReason.MAX_TOKENS, "", "MAX_TOKENS"],
  [FinishReason.STOP_SEQUENCE, "", "STOP"],
  [FinishReason.TOOL_USE, "", "STOP"],
  [FinishReason.SAFETY, "", "SAFETY"],
  [FinishReason.RECITATION, "", "RECITATION"],
  [FinishReason.LANGUAGE, "", "LANGUAGE"],
  [FinishReason.BLOCKLIST, "", "BLOCKLIST"],
  [FinishReason.PROHIBITED_CONTENT, "", "PROHIBITED_CONTENT"],
  [FinishReason.SPII, "", "SPII"],
  [FinishReason.MALFORMED_TOOL_CALL, "", "MALFORMED_FUNCTION_CALL"],
  [FinishReason.IMAGE_SAFETY, "", "IMAGE_SAFETY"],
  [FinishReason.PAUSE_TURN, "", "OTHER"],
  [FinishReason.CONTEXT_WINDOW_EXCEEDED, "", "MAX_TOKENS"],
  [FinishReason.OTHER, "", "OTHER"],
  [FinishReason.UNSPECIFIED, "", "FINISH_REASON_UNSPECIFIED"],
  [FinishReason.OTHER, "UNEXPECTED_TOOL_CALL", "UNEXPECTED_TOOL_CALL"],
  [FinishReason.OTHER, "end_turn", "OTHER"],
];
for (const [reason, vendor, want] of FINISH) t.equal(fromCoreFinish(reason, vendor), want, `finish ${FinishReason[reason]} ${vendor}`);

const local = sig("local", "L1");
const PARTS: [string, ReturnType<typeof part>[], boolean, unknown[]][] = [
  ["text", [part({ kind: { case: "text", value: { text: "hi" } } })], false, [{ text: "hi" }]],
  [
    "media",
    [part({ kind: { case: "media", value: { mimeType: "image/png", source: { case: "data", value: new Uint8Array([0, 1, 2]) } } } })],
    false,
    [{ inlineData: { mimeType: "image/png", data: "AAEC" } }],
  ],
  [
    "media by uri",
    [part({ kind: { case: "media", value: { mimeType: "application/pdf", source: { case: "uri", value: "gs://b/f" } } } })],
    false,
    [{ fileData: { mimeType: "application/pdf", fileUri: "gs://b/f" } }],
  ],
  ["tool call", [part({ kind: { case: "toolCall", value: { id: "c1", name: "f", arguments: { a: 1 } } } })], false, [{ functionCall: { id: "c1", name: "f", args: { a: 1 } } }]],
  [
    "tool result",
    [part({ kind: { case: "toolResult", value: { callId: "c1", name: "f", content: [part({ kind: { case: "text", value: { text: "ok" } } })] } } })],
    false,
    [{ functionResponse: { id: "c1", name: "f", response: { output: "ok" } } }],
  ],
  [
    "code",
    [part({ kind: { case: "executableCode", value: { language: "PYTHON", code: "print(2)" } } }), part({ kind: { case: "codeExecutionResult", value: { outcome: CodeOutcome.OK, output: "2" } } })],
    false,
    [{ executableCode: { language: "PYTHON", code: "print(2)" } }, { codeExecutionResult: { outcome: "OUTCOME_OK", output: "2" } }],
  ],
  ["redacted thinking is not shown", [part({ kind: { case: "redactedThinking", value: { data: "x" } } })], false, []],
  [
    "visible thought: its signature rides on the next part, replacing that part's own",
    [part({ kind: { case: "thinking", value: { text: "plan" } }, signature: local }), part({ kind: { case: "text", value: { text: "answer" } }, signature: sig("local", "OWN") })],
    true,
    [
      { text: "plan", thought: true },
      { text: "answer", thoughtSignature: encodeSignature(local, "gemini") },
    ],
  ],
  [
    "a Gemini signature travels raw on its own part",
    [part({ kind: { case: "thinking", value: { text: "plan" } } }), part({ kind: { case: "toolCall", value: { name: "f" } }, signature: sig("gemini", "CiQB") })],
    true,
    [
      { text: "plan", thought: true },
      { functionCall: { name: "f", args: {} }, thoughtSignature: "CiQB" },
    ],
  ],
  [
    "a thought with nothing after it leaves its signature on an empty part",
    [part({ kind: { case: "thinking", value: { text: "plan" } }, signature: local })],
    true,
    [
      { text: "plan", thought: true },
      { text: "", thoughtSignature: encodeSignature(local, "gemini") },
    ],
  ],
];
for (const [name, parts, include, want] of PARTS) t.same(fromCoreParts(parts, include), want, `parts: ${name}`);

t.test("hidden thoughts travel inside the signature", async (t) => {
  const out = fromCoreParts([part({ kind: { case: "thinking", value: { text: "secret" } }, signature: local }), part({ kind: { case: "text", value: { text: "answer" } } })], false);
  t.equal(out.length, 1);
  t.equal(out[0]!.text, "answer");
  const d = decodeThoughtSignature(out[0]!.thoughtSignature!, "f");
  t.same(d.kind === "thought" ? [d.text, d.signature.issuer, d.signature.value] : [], ["secret", "local", "L1"]);
  t.same(fromCoreParts([part({ kind: { case: "thinking", value: { text: "unsigned" } } })], false), [], "an unsigned hidden thought leaves nothing");
  const gem = fromCoreParts([part({ kind: { case: "thinking", value: { text: "g" } }, signature: sig("gemini", "RAW") }), part({ kind: { case: "text", value: { text: "a" } } })], false);
  t.same(gem, [{ text: "a", thoughtSignature: "RAW" }], "a Gemini thought signature needs no text");
});

t.test("usage: prompt includes the cache, candidates exclude thoughts", async (t) => {
  const u = create(UsageSchema, {
    inputTokens: 10n,
    cacheReadTokens: 30n,
    outputTokens: 25n,
    thinkingTokens: 20n,
    toolUsePromptTokens: 4n,
    inputDetails: [create(ModalityTokensSchema, { modality: Modality.TEXT, tokenCount: 2n }), create(ModalityTokensSchema, { modality: Modality.IMAGE, tokenCount: 8n })],
    cacheDetails: [create(ModalityTokensSchema, { modality: Modality.TEXT, tokenCount: 30n })],
    outputDetails: [create(ModalityTokensSchema, { modality: Modality.TEXT, tokenCount: 25n })],
    toolUseDetails: [create(ModalityTokensSchema, { modality: Modality.TEXT, tokenCount: 4n })],
  });
  t.same(fromCoreUsage(u), {
    promptTokenCount: 40,
    cachedContentTokenCount: 30,
    candidatesTokenCount: 5,
    toolUsePromptTokenCount: 4,
    thoughtsTokenCount: 20,
    totalTokenCount: 69,
    promptTokensDetails: [
      { modality: "TEXT", tokenCount: 32 },
      { modality: "IMAGE", tokenCount: 8 },
    ],
    cacheTokensDetails: [{ modality: "TEXT", tokenCount: 30 }],
    candidatesTokensDetails: [{ modality: "TEXT", tokenCount: 5 }],
    toolUsePromptTokensDetails: [{ modality: "TEXT", tokenCount: 4 }],
  });
  t.same(
    Object.keys(fromCoreUsage(u)),
    [
      "promptTokenCount",
      "cachedContentTokenCount",
      "candidatesTokenCount",
      "toolUsePromptTokenCount",
      "thoughtsTokenCount",
      "totalTokenCount",
      "promptTokensDetails",
      "cacheTokensDetails",
      "candidatesTokensDetails",
      "toolUsePromptTokensDetails",
    ],
    "fields in the order Gemini sends them",
  );
  t.same(fromCoreUsage(undefined), { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 });
});

t.test("a whole response, and a blocked one", async (t) => {
  const resp = create(GenerateResponseSchema, {
    id: "r1",
    model: "gemini-2.5-flash",
    modelVersion: "v-1",
    usage: { inputTokens: 3n, outputTokens: 2n },
    candidates: [
      create(CandidateSchema, {
        index: 0,
        parts: [part({ kind: { case: "text", value: { text: "ok" } } })],
        finishReason: FinishReason.STOP_SEQUENCE,
        safetyRatings: [{ category: HarmCategory.HARASSMENT, probability: HarmProbability.LOW }],
        avgLogprobs: -0.5,
        logprobs: { chosenCandidates: [{ token: "ok", tokenId: 7, logProbability: -0.5 }], topCandidates: [{ candidates: [{ token: "ok", tokenId: 7, logProbability: -0.5 }] }] },
      }),
    ],
  });
  t.same(fromCoreResponse(resp, { includeThoughts: false }), {
    candidates: [
      {
        content: { parts: [{ text: "ok" }], role: "model" },
        finishReason: "STOP",
        index: 0,
        safetyRatings: [{ category: "HARM_CATEGORY_HARASSMENT", probability: "LOW" }],
        avgLogprobs: -0.5,
        logprobsResult: {
          topCandidates: [{ candidates: [{ token: "ok", tokenId: 7, logProbability: -0.5 }] }],
          chosenCandidates: [{ token: "ok", tokenId: 7, logProbability: -0.5 }],
        },
      },
    ],
    usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5, promptTokensDetails: [] },
    modelVersion: "v-1",
    responseId: "r1",
  });
  const blocked = create(GenerateResponseSchema, {
    id: "r2",
    model: "m",
    usage: { inputTokens: 3n },
    promptFeedback: { blockReason: BlockReason.SAFETY, blockMessage: "no", safetyRatings: [{ category: HarmCategory.DANGEROUS_CONTENT, probability: HarmProbability.HIGH, blocked: true }] },
  });
  const whole = fromCoreResponse(resp, { includeThoughts: false });
  t.same(Object.keys(whole), ["candidates", "usageMetadata", "modelVersion", "responseId"], "fields in the order Gemini sends them");
  t.same(Object.keys((whole.candidates as object[])[0]!), ["content", "finishReason", "index", "safetyRatings", "avgLogprobs", "logprobsResult"]);
  const b = fromCoreResponse(blocked, { includeThoughts: false });
  t.same(Object.keys(b), ["promptFeedback", "usageMetadata", "modelVersion", "responseId"]);
  t.equal(b.candidates, undefined);
  t.same(b.promptFeedback, { blockReason: "SAFETY", safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true }], blockReasonMessage: "no" });
  t.equal(b.modelVersion, "m", "modelVersion falls back to the model");
});

t.test("countTokens", async (t) => {
  t.same(fromCoreCountTokens(create(CountTokensResponseSchema, { inputTokens: 5n, cachedTokens: 7n, inputDetails: [{ modality: Modality.TEXT, tokenCount: 12n }] })), {
    totalTokens: 12,
    cachedContentTokenCount: 7,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: 12 }],
  });
  t.same(fromCoreCountTokens(create(CountTokensResponseSchema, { inputTokens: 5n })), { totalTokens: 5, promptTokensDetails: [] });
});
