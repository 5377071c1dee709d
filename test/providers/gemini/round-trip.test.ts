// Property test: a generateContent request goes through the generate-content
// facade to the neutral model and through this provider back to a Gemini
// request with every documented field intact; and a Gemini response goes
// through this provider and the facade back to the same response. Requests come
// from a seeded generator over the field space.
import t from "tap";
import { toCoreChatInput } from "../../../src/facades/generate-content/translate.js";
import { fromCoreResponse } from "../../../src/facades/generate-content/translate-response.js";
import * as gwire from "../../../src/facades/generate-content/wire.js";
import { toVendorRequest } from "../../../src/providers/gemini/request.js";
import { fromVendorResponse } from "../../../src/providers/gemini/response.js";
import { GeminiStreamTranslator } from "../../../src/providers/gemini/stream.js";
import { collectStream } from "../../../src/core/chat/stream.js";
import { guardStream } from "../../../src/core/chat/stream-guard.js";
import { idSource } from "../../../src/providers/shared/parts.js";
import { fixture } from "../../fixtures/fake-upstream.js";
import { rng } from "../../helpers/rng.js";

type R = () => number;
const pick = <T>(r: R, xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
const maybe = (r: R, p = 0.5) => r() < p;
const word = (r: R) => pick(r, ["alpha", "beta", "sunny", "Paris", "ünïcødé ✓", "two\nlines"]);
const num = (r: R) => Math.floor(r() * 1e6);

function userParts(r: R): any[] {
  return Array.from({ length: 1 + Math.floor(r() * 3) }, () => {
    switch (pick(r, ["text", "text", "image", "audio", "pdf"])) {
      case "text":
        return { text: word(r) };
      case "image":
        return { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } };
      case "audio":
        return { inlineData: { mimeType: "audio/wav", data: "UklGRg==" } };
      default:
        return { inlineData: { mimeType: "application/pdf", data: "JVBERi0=" } };
    }
  });
}

function contents(r: R): any[] {
  const out: any[] = [{ role: maybe(r, 0.8) ? "user" : undefined, parts: userParts(r) }];
  const rounds = Math.floor(r() * 3);
  for (let i = 0; i < rounds; i++) {
    const parts: any[] = [];
    if (maybe(r)) parts.push({ text: word(r), thought: true });
    if (maybe(r, 0.3)) parts.push({ executableCode: { language: "PYTHON", code: "print(1)" } }, { codeExecutionResult: { outcome: pick(r, ["OUTCOME_OK", "OUTCOME_FAILED"]), output: "1" } });
    const calls = 1 + Math.floor(r() * 2);
    const ids: string[] = [];
    for (let c = 0; c < calls; c++) {
      const id = `fc-${i}-${c}-${num(r)}`;
      ids.push(id);
      parts.push({
        functionCall: { id, name: pick(r, ["get_weather", "get_time"]), args: { city: word(r), n: num(r), deep: { list: [1, "two", null] } } },
        ...(c === 0 ? { thoughtSignature: `CiQB${num(r)}==` } : {}),
      });
    }
    out.push({ role: "model", parts });
    out.push({ role: "user", parts: ids.map((id) => ({ functionResponse: { id, name: "get_weather", response: maybe(r, 0.2) ? { error: "no such city" } : { temp: num(r), unit: "C" } } })) });
  }
  if (rounds && maybe(r)) out.push({ role: "model", parts: [{ text: word(r), thoughtSignature: `CiQB${num(r)}==` }] }, { role: "user", parts: [{ text: word(r) }] });
  return out;
}

const SCHEMA = {
  type: "OBJECT",
  properties: {
    city: { type: "STRING", description: "City" },
    days: { type: "INTEGER", minimum: 1, maximum: 7 },
    tags: { type: "ARRAY", items: { type: "STRING", enum: ["a", "b"] } },
    note: { type: "STRING", nullable: true },
  },
  required: ["city"],
};

function request(r: R): any {
  const req: any = { contents: contents(r) };
  if (maybe(r)) req.systemInstruction = { parts: [{ text: "Be brief." }, ...(maybe(r) ? [{ text: "Use metric." }] : [])] };
  if (maybe(r, 0.8)) {
    req.tools = [
      {
        functionDeclarations: [
          { name: "get_weather", description: "Weather", parameters: SCHEMA },
          { name: "get_time", ...(maybe(r) ? { parametersJsonSchema: { type: "object", properties: { tz: { type: "string" } }, additionalProperties: false } } : {}) },
        ],
      },
      ...(maybe(r, 0.3) ? [{ codeExecution: {} }] : []),
      ...(maybe(r, 0.3) ? [{ googleSearch: {} }] : []),
    ];
    if (maybe(r)) req.toolConfig = { functionCallingConfig: pick(r, [{ mode: "AUTO" }, { mode: "NONE" }, { mode: "ANY" }, { mode: "ANY", allowedFunctionNames: ["get_weather"] }]) };
  }
  if (maybe(r, 0.4))
    req.safetySettings = [
      {
        category: pick(r, ["HARM_CATEGORY_HARASSMENT", "HARM_CATEGORY_HATE_SPEECH", "HARM_CATEGORY_SEXUALLY_EXPLICIT", "HARM_CATEGORY_DANGEROUS_CONTENT", "HARM_CATEGORY_CIVIC_INTEGRITY"]),
        threshold: pick(r, ["BLOCK_NONE", "BLOCK_ONLY_HIGH", "BLOCK_MEDIUM_AND_ABOVE", "BLOCK_LOW_AND_ABOVE", "OFF"]),
      },
    ];
  const g: any = {};
  if (maybe(r)) g.maxOutputTokens = 1 + num(r);
  if (maybe(r)) g.temperature = Math.round(r() * 200) / 100;
  if (maybe(r, 0.3)) g.topP = 0.95;
  if (maybe(r, 0.3)) g.topK = 64;
  if (maybe(r, 0.3)) g.stopSequences = ["END"];
  if (maybe(r, 0.2)) g.seed = num(r);
  if (maybe(r, 0.2)) g.presencePenalty = 0.5;
  if (maybe(r, 0.2)) g.frequencyPenalty = -0.5;
  if (maybe(r, 0.2)) g.candidateCount = 2;
  if (maybe(r, 0.2)) {
    g.responseLogprobs = true;
    if (maybe(r)) g.logprobs = 3;
  }
  if (maybe(r, 0.2)) g.responseModalities = ["TEXT"];
  if (maybe(r, 0.2)) g.mediaResolution = pick(r, ["MEDIA_RESOLUTION_LOW", "MEDIA_RESOLUTION_MEDIUM", "MEDIA_RESOLUTION_HIGH"]);
  if (maybe(r, 0.2)) g.enableEnhancedCivicAnswers = true;
  if (maybe(r, 0.2)) g.speechConfig = { voiceConfig: { prebuiltVoiceConfig: { voiceName: "Kore" } }, languageCode: "en-US" };
  const json = pick(r, ["none", "none", "json", "schema", "jsonschema", "enum"]);
  if (json === "json") g.responseMimeType = "application/json";
  if (json === "schema") Object.assign(g, { responseMimeType: "application/json", responseSchema: SCHEMA });
  if (json === "jsonschema") Object.assign(g, { responseMimeType: "application/json", responseJsonSchema: { type: "object", properties: { a: { const: 1 } } } });
  if (json === "enum") Object.assign(g, { responseMimeType: "text/x.enum", responseSchema: { type: "STRING", enum: ["YES", "NO"] } });
  const th = pick(r, ["none", "budget", "dynamic", "off", "level"]);
  if (th !== "none") {
    g.thinkingConfig = {
      ...(maybe(r) ? { includeThoughts: true } : {}),
      ...(th === "budget"
        ? { thinkingBudget: 1 + Math.floor(r() * 8192) }
        : th === "dynamic"
          ? { thinkingBudget: -1 }
          : th === "off"
            ? { thinkingBudget: 0 }
            : { thinkingLevel: pick(r, ["LOW", "HIGH"]) }),
    };
  }
  if (Object.keys(g).length) req.generationConfig = g;
  return req;
}

function normalize(req: any): any {
  const out = JSON.parse(JSON.stringify(req));
  for (const c of out.contents) c.role ??= "user";
  return out;
}

function roundTrip(req: any): any {
  const parsed = gwire.generateContentRequest.parse(req);
  return toVendorRequest(toCoreChatInput(parsed, "gemini-2.5-flash")).body;
}

t.test("generated requests survive Gemini -> neutral -> Gemini", async (t) => {
  const r = rng(424242);
  for (let i = 0; i < 300; i++) {
    const req = request(r);
    const back = JSON.parse(JSON.stringify(roundTrip(req)));
    if (!t.same(back, normalize(req), `case ${i}`)) {
      t.comment(JSON.stringify(req));
      break;
    }
  }
});

/** A documented response in canonical form; ids this provider had to invent are not the upstream's. */
function canon(resp: any, original: any): any {
  const out = JSON.parse(JSON.stringify(resp));
  // Zero counters and empty detail lists are how the facade spells "none".
  const u = out.usageMetadata;
  if (u) for (const k of Object.keys(u)) if (u[k] === 0 && k !== "promptTokenCount" && k !== "totalTokenCount" && original.usageMetadata?.[k] === undefined) delete u[k];
  if (u) for (const k of Object.keys(u)) if (Array.isArray(u[k]) && u[k].length === 0 && original.usageMetadata?.[k] === undefined) delete u[k];
  out.candidates?.forEach((c: any, ci: number) => {
    c.content.parts.forEach((p: any, pi: number) => {
      const o = original.candidates[ci].content.parts[pi];
      if (p.functionCall && !o?.functionCall?.id) delete p.functionCall.id;
    });
  });
  return out;
}

const RESPONSES: [string, any, boolean][] = [
  ["text with safety ratings", fixture("gemini/text.json"), false],
  ["thoughts and a signed call", fixture("gemini/thinking-function-call.json"), true],
  ["blocked prompt", fixture("gemini/blocked.json"), false],
  [
    "everything a candidate can carry",
    {
      candidates: [
        {
          content: {
            parts: [
              { executableCode: { language: "PYTHON", code: "print(2+2)" } },
              { codeExecutionResult: { outcome: "OUTCOME_OK", output: "4" } },
              { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
              { text: "Four.", thoughtSignature: "CiQBxyz==" },
            ],
            role: "model",
          },
          finishReason: "MAX_TOKENS",
          index: 0,
          safetyRatings: [{ category: "HARM_CATEGORY_HATE_SPEECH", probability: "MEDIUM", blocked: true }],
          finishMessage: "stopped",
          citationMetadata: { citationSources: [{ startIndex: 0, endIndex: 4, uri: "https://x" }] },
          groundingMetadata: { webSearchQueries: ["q"] },
          avgLogprobs: -0.5,
          logprobsResult: { topCandidates: [{ candidates: [{ token: "Four", tokenId: 7, logProbability: -0.1 }] }], chosenCandidates: [{ token: "Four", tokenId: 7, logProbability: -0.1 }] },
        },
        { content: { parts: [{ functionCall: { id: "fc-9", name: "f", args: { a: 1 } } }], role: "model" }, finishReason: "UNEXPECTED_TOOL_CALL", index: 1 },
      ],
      usageMetadata: {
        promptTokenCount: 100,
        cachedContentTokenCount: 40,
        candidatesTokenCount: 30,
        toolUsePromptTokenCount: 5,
        thoughtsTokenCount: 12,
        totalTokenCount: 147,
        promptTokensDetails: [
          { modality: "TEXT", tokenCount: 80 },
          { modality: "IMAGE", tokenCount: 20 },
        ],
        cacheTokensDetails: [{ modality: "TEXT", tokenCount: 40 }],
        candidatesTokensDetails: [{ modality: "TEXT", tokenCount: 30 }],
        toolUsePromptTokensDetails: [{ modality: "TEXT", tokenCount: 5 }],
      },
      modelVersion: "gemini-2.5-pro",
      responseId: "resp-all",
    },
    false,
  ],
];

t.test("responses survive Gemini -> neutral -> Gemini, whole and streamed", async (t) => {
  for (const [name, r, includeThoughts] of RESPONSES) {
    const neutral = fromVendorResponse(r, { model: "gemini-2.5-flash", channel: "c", newId: idSource("x", "call_") });
    t.same(canon(fromCoreResponse(neutral, { includeThoughts }), r), r, `${name} (whole)`);
    const tr = new GeminiStreamTranslator({ model: "gemini-2.5-flash", channel: "c", newId: idSource("x", "call_") });
    const streamed = await collectStream(
      guardStream(
        (async function* () {
          yield* tr.push(r);
        })(),
      ),
    );
    streamed.candidates.forEach((c, i) => (c.finishMessage = neutral.candidates[i]!.finishMessage));
    streamed.candidates.forEach((c, i) => {
      c.citationMetadata = neutral.candidates[i]!.citationMetadata;
      c.groundingMetadata = neutral.candidates[i]!.groundingMetadata;
      c.avgLogprobs = neutral.candidates[i]!.avgLogprobs;
    });
    t.same(canon(fromCoreResponse(streamed, { includeThoughts }), r), r, `${name} (streamed; per-chunk metadata aside)`);
  }
});
