// Hostile upstream answers, end to end without the network: rich OpenAI,
// Anthropic, Gemini and Responses answers, mutated at random (values of other
// types, keys dropped, items added or removed), go through the provider's
// translator and the core's shape check. Whatever passes the check, every
// facade renders (Chat Completions, Messages, generate-content, Responses)
// into JSON; whatever does not is refused as the upstream's malformed answer.
// A translator's own exception is that too (exchangeJson turns it into one).
import t from "tap";
import { readFileSync } from "node:fs";
import { GenerateResponseSchema, type GenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { shapeFault } from "../../../src/core/proto/shape.js";
import { fromVendorResponse as fromOpenAI } from "../../../src/providers/openai/response.js";
import { fromVendorResponse as fromAnthropic } from "../../../src/providers/anthropic/response.js";
import { fromVendorResponse as fromGemini } from "../../../src/providers/gemini/response.js";
import { fromVendorResponse as fromResponses } from "../../../src/providers/openai-responses/response.js";
import { completionId, fromCoreCompletion } from "../../../src/facades/openai-chat/translate-response.js";
import { fromCoreMessage } from "../../../src/facades/messages/translate.js";
import { fromCoreResponse as fromCoreContent } from "../../../src/facades/generate-content/translate-response.js";
import { fromCoreResponse as fromCoreResponses } from "../../../src/facades/openai-responses/translate-response.js";
import { sealer } from "../../../src/facades/openai-responses/seal.js";
import { mutate, rng } from "./mutate.js";
import { wholeResponse } from "../openai-responses/fixtures.js";

const fixture = (p: string): unknown => JSON.parse(readFileSync(new URL(`../../fixtures/${p}`, import.meta.url), "utf8"));

/** Richer answers than the fixtures: logprobs, citations, server tools, code execution, inline data. */
const OPENAI_RICH = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1700000000,
  model: "gpt-x",
  choices: [
    {
      index: 0,
      finish_reason: "tool_calls",
      logprobs: { content: [{ token: "Hi", logprob: -0.1, bytes: [72, 105], top_logprobs: [{ token: "Hi", logprob: -0.1, bytes: [72, 105] }] }] },
      message: {
        role: "assistant",
        content: "Hello there",
        reasoning_content: "thinking",
        annotations: [{ type: "url_citation", url_citation: { url: "https://a", title: "A", start_index: 0, end_index: 5 } }],
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get", arguments: '{"a":1}' } },
          { id: "call_2", type: "custom", custom: { name: "patch", input: "xx" } },
        ],
      },
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 1 } },
};
const ANTHROPIC_RICH = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-x",
  stop_reason: "tool_use",
  content: [
    { type: "thinking", thinking: "hmm", signature: "sig" },
    { type: "redacted_thinking", data: "xx" },
    { type: "text", text: "Hello", citations: [{ type: "web_search_result_location", url: "https://a", title: "A", encrypted_index: "e", cited_text: "c" }] },
    { type: "server_tool_use", id: "srv_1", name: "web_search", input: { query: "q" } },
    { type: "web_search_tool_result", tool_use_id: "srv_1", content: [{ type: "web_search_result", url: "https://a", title: "A", encrypted_content: "e" }] },
    { type: "tool_use", id: "tu_1", name: "get", input: { a: 1 } },
  ],
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 2, cache_creation_input_tokens: 1, server_tool_use: { web_search_requests: 1 } },
};
const GEMINI_RICH = {
  candidates: [
    {
      index: 0,
      finishReason: "STOP",
      avgLogprobs: -0.3,
      content: {
        role: "model",
        parts: [
          { text: "hmm", thought: true, thoughtSignature: "c2ln" },
          { text: "Hello" },
          { functionCall: { id: "f1", name: "get", args: { a: 1 } } },
          { executableCode: { language: "PYTHON", code: "print(1)" } },
          { codeExecutionResult: { outcome: "OUTCOME_OK", output: "1" } },
          { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
        ],
      },
      safetyRatings: [{ category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" }],
      citationMetadata: { citationSources: [{ uri: "https://a", startIndex: 0, endIndex: 3 }] },
      groundingMetadata: { webSearchQueries: ["q"], groundingChunks: [{ web: { uri: "https://a", title: "A" } }] },
      logprobsResult: { topCandidates: [{ candidates: [{ token: "He", logProbability: -0.1 }] }], chosenCandidates: [{ token: "He", logProbability: -0.1 }] },
    },
  ],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 17, thoughtsTokenCount: 2, cachedContentTokenCount: 1, promptTokensDetails: [{ modality: "TEXT", tokenCount: 10 }] },
  modelVersion: "gemini-x",
  responseId: "r1",
};

let ids = 0;
const newId = () => `id_${++ids}`;
const VENDORS: [string, unknown[], (body: never) => GenerateResponse][] = [
  ["openai", [fixture("openai/chat-reasoning-tools.json"), OPENAI_RICH], (b) => fromOpenAI(b, { model: "m", channel: "c", newId, stops: [] })],
  ["anthropic", [fixture("anthropic/message-thinking-tool.json"), ANTHROPIC_RICH], (b) => fromAnthropic(b, { model: "m", channel: "c" })],
  ["gemini", [fixture("gemini/thinking-function-call.json"), GEMINI_RICH], (b) => fromGemini(b, { model: "m", channel: "c", newId })],
  ["openai responses", [wholeResponse], (b) => fromResponses(b, { model: "m", channel: "c", newId })],
];

const seal = sealer("hostile-answers");
/** Every facade's rendering of one neutral answer, as the JSON each sends. */
function renderAll(resp: GenerateResponse): string[] {
  return [
    JSON.stringify(fromCoreCompletion(resp, { id: completionId(resp.id, "chatcmpl-fresh"), created: 1, model: "m", legacyFunctions: false })),
    JSON.stringify(fromCoreMessage(resp, { id: "msg_fresh", model: "m" })),
    JSON.stringify(fromCoreContent(resp, { includeThoughts: true })),
    JSON.stringify(fromCoreResponses(resp, { id: "resp_1", createdAt: 1, model: "m", echo: {}, includeEncrypted: true, sealer: seal, toolNames: new Map() })),
  ];
}

const ROUNDS = 400;

for (const [vendor, seeds, translate] of VENDORS) {
  t.test(`${vendor}: a mutated answer is rendered by every facade or refused as malformed`, async (t) => {
    t.doesNotThrow(() => renderAll(translate(structuredClone(seeds[0]) as never)), "the answer itself renders");
    const count = { untranslatable: 0, refused: 0, rendered: 0 };
    const failures: string[] = [];
    seeds.forEach((seed, s) => {
      const r = rng(1000 * s + vendor.length);
      for (let i = 0; i < ROUNDS; i++) {
        const body = mutate(seed, r, 0.08);
        let resp: GenerateResponse;
        try {
          resp = translate(body as never);
        } catch {
          count.untranslatable++;
          continue;
        }
        if (shapeFault(GenerateResponseSchema, resp)) {
          count.refused++;
          continue;
        }
        try {
          renderAll(resp);
          count.rendered++;
        } catch (err) {
          failures.push(`${String(err)} for ${JSON.stringify(body).slice(0, 400)}`);
        }
      }
    });
    t.same(failures.slice(0, 3), [], "no facade throws on an answer that passed the check");
    t.ok(count.rendered > (ROUNDS * seeds.length) / 10, `enough answers rendered to mean something (${JSON.stringify(count)})`);
    t.ok(count.refused + count.untranslatable > 0, "and some were refused");
  });
}
