// generate-content request -> neutral ChatInput, as tables (pure, no server).
import t from "tap";
import { create, toJson } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { ChatInputSchema, HarmBlockThreshold, HarmCategory, MediaResolution, Modality, Role, SignatureSchema, ToolChoiceMode, type ChatInput } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { encodeSignature } from "../../../src/core/chat/signature-codec.js";
import { errorDetail } from "../../../src/core/errors.js";
import { encodeHiddenThought } from "../../../src/facades/generate-content/thought-signature.js";
import { originField } from "../../../src/facades/generate-content/contents.js";
import { responseOptions, toCoreChatInput, toCoreRequest } from "../../../src/facades/generate-content/translate.js";
import * as wire from "../../../src/facades/generate-content/wire.js";

function input(body: unknown): ChatInput {
  return toCoreChatInput(wire.generateContentRequest.parse(body), "gemini-2.5-flash");
}
/** The input as proto JSON, minus the metadata every input has. */
function json(body: unknown): Record<string, unknown> {
  const j = toJson(ChatInputSchema, input(body)) as Record<string, unknown>;
  delete j.metadata;
  return j;
}
const user = (...parts: unknown[]) => ({ role: "user", parts });
const localSig = create(SignatureSchema, { issuer: "local", value: "SIGVALUE" });

const CASES: [string, unknown, Record<string, unknown>][] = [
  ["text", { contents: [user({ text: "hi" })] }, { model: "gemini-2.5-flash", turns: [{ role: "ROLE_USER", parts: [{ text: { text: "hi" } }] }] }],
  [
    "roles: model is the assistant, function and tool are the user; one role in a row is one turn",
    { contents: [{ parts: [{ text: "a" }] }, { role: "model", parts: [{ text: "b" }] }, { role: "function", parts: [{ text: "c" }] }, { role: "tool", parts: [{ text: "d" }] }] },
    {
      model: "gemini-2.5-flash",
      turns: [
        { role: "ROLE_USER", parts: [{ text: { text: "a" } }] },
        { role: "ROLE_ASSISTANT", parts: [{ text: { text: "b" } }] },
        { role: "ROLE_USER", parts: [{ text: { text: "c" } }, { text: { text: "d" } }] },
      ],
    },
  ],
  [
    "streamed chunks kept as separate Contents (the SDK's chat history) are one turn, thought fragments one thought",
    {
      contents: [
        user({ text: "q" }),
        { role: "model", parts: [{ text: "I ", thought: true }] },
        { role: "model", parts: [{ text: "think", thought: true }] },
        { role: "model", parts: [{ text: "You ", thoughtSignature: encodeSignature(localSig, "gemini") }] },
        { role: "model", parts: [{ text: "said" }] },
      ],
    },
    {
      model: "gemini-2.5-flash",
      turns: [
        { role: "ROLE_USER", parts: [{ text: { text: "q" } }] },
        { role: "ROLE_ASSISTANT", parts: [{ thinking: { text: "I think" }, signature: { issuer: "local", value: "SIGVALUE" } }, { text: { text: "You " } }, { text: { text: "said" } }] },
      ],
    },
  ],
  [
    "inline data (snake_case too)",
    { contents: [user({ inline_data: { mime_type: "image/png", data: "AAEC" } })] },
    { model: "gemini-2.5-flash", turns: [{ role: "ROLE_USER", parts: [{ media: { mimeType: "image/png", data: "AAEC" } }] }] },
  ],
  [
    "system instruction",
    { system_instruction: { parts: [{ text: "be brief" }, { text: "and kind" }] }, contents: [user({ text: "x" })] },
    { model: "gemini-2.5-flash", system: [{ text: { text: "be brief" } }, { text: { text: "and kind" } }], turns: [{ role: "ROLE_USER", parts: [{ text: { text: "x" } }] }] },
  ],
  [
    "code parts",
    {
      contents: [user({ text: "run" }), { role: "model", parts: [{ executableCode: { language: "PYTHON", code: "print(1)" } }, { codeExecutionResult: { outcome: "OUTCOME_OK", output: "1\n" } }] }],
    },
    {
      model: "gemini-2.5-flash",
      turns: [
        { role: "ROLE_USER", parts: [{ text: { text: "run" } }] },
        { role: "ROLE_ASSISTANT", parts: [{ executableCode: { language: "PYTHON", code: "print(1)" } }, { codeExecutionResult: { outcome: "CODE_OUTCOME_OK", output: "1\n" } }] },
      ],
    },
  ],
  [
    "function calls get ids; responses without ids pair with them by name",
    {
      contents: [
        user({ text: "go" }),
        { role: "model", parts: [{ functionCall: { name: "a", args: { x: 1 } } }, { functionCall: { name: "b" } }] },
        user({ functionResponse: { name: "b", response: { ok: true } } }, { functionResponse: { name: "a", response: { error: "boom" } } }),
      ],
    },
    {
      model: "gemini-2.5-flash",
      turns: [
        { role: "ROLE_USER", parts: [{ text: { text: "go" } }] },
        { role: "ROLE_ASSISTANT", parts: [{ toolCall: { id: "call_1_0", name: "a", arguments: { x: 1 } } }, { toolCall: { id: "call_1_1", name: "b", arguments: {} } }] },
        {
          role: "ROLE_USER",
          parts: [{ toolResult: { callId: "call_1_1", name: "b", structured: { ok: true } } }, { toolResult: { callId: "call_1_0", name: "a", structured: { error: "boom" }, isError: true } }],
        },
      ],
    },
  ],
  [
    "ids given by the client are kept",
    { contents: [{ role: "model", parts: [{ functionCall: { id: "c1", name: "a", args: {} } }] }, user({ functionResponse: { id: "c1", name: "a", response: { v: 1 } } })] },
    {
      model: "gemini-2.5-flash",
      turns: [
        { role: "ROLE_ASSISTANT", parts: [{ toolCall: { id: "c1", name: "a", arguments: {} } }] },
        { role: "ROLE_USER", parts: [{ toolResult: { callId: "c1", name: "a", structured: { v: 1 } } }] },
      ],
    },
  ],
  [
    "a visible thought takes the signature of the part after it",
    {
      contents: [
        {
          role: "model",
          parts: [
            { text: "hmm", thought: true },
            { text: "answer", thoughtSignature: encodeSignature(localSig, "gemini") },
          ],
        },
        user({ text: "x" }),
      ],
    },
    {
      model: "gemini-2.5-flash",
      turns: [
        { role: "ROLE_ASSISTANT", parts: [{ thinking: { text: "hmm" }, signature: { issuer: "local", value: "SIGVALUE" } }, { text: { text: "answer" } }] },
        { role: "ROLE_USER", parts: [{ text: { text: "x" } }] },
      ],
    },
  ],
  [
    "an empty carrier part is folded into the thought",
    {
      contents: [
        {
          role: "model",
          parts: [
            { text: "hmm", thought: true },
            { text: "", thoughtSignature: encodeSignature(localSig, "gemini") },
          ],
        },
      ],
    },
    { model: "gemini-2.5-flash", turns: [{ role: "ROLE_ASSISTANT", parts: [{ thinking: { text: "hmm" }, signature: { issuer: "local", value: "SIGVALUE" } }] }] },
  ],
  [
    "a hidden thought comes back out of its signature",
    { contents: [{ role: "model", parts: [{ functionCall: { id: "c", name: "f", args: {} }, thoughtSignature: encodeHiddenThought("secret plan", localSig) }] }] },
    {
      model: "gemini-2.5-flash",
      turns: [{ role: "ROLE_ASSISTANT", parts: [{ thinking: { text: "secret plan" }, signature: { issuer: "local", value: "SIGVALUE" } }, { toolCall: { id: "c", name: "f", arguments: {} } }] }],
    },
  ],
  [
    "a Gemini signature stays on its own part",
    {
      contents: [
        {
          role: "model",
          parts: [
            { text: "t", thought: true },
            { functionCall: { id: "c", name: "f", args: {} }, thoughtSignature: "CiQBraw" },
          ],
        },
      ],
    },
    {
      model: "gemini-2.5-flash",
      turns: [{ role: "ROLE_ASSISTANT", parts: [{ thinking: { text: "t" } }, { toolCall: { id: "c", name: "f", arguments: {} }, signature: { issuer: "gemini", value: "CiQBraw" } }] }],
    },
  ],
  [
    "tools: Gemini Schema, JSON Schema, none, code execution, built-ins",
    {
      contents: [user({ text: "x" })],
      tools: [
        {
          functionDeclarations: [
            { name: "a", description: "A", parameters: { type: "OBJECT", properties: { q: { type: "STRING" } }, required: ["q"] } },
            { name: "b", parametersJsonSchema: { type: "object", additionalProperties: false } },
            { name: "c" },
          ],
        },
        { codeExecution: {} },
        { google_search: {} },
      ],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["a"] } },
    },
    {
      model: "gemini-2.5-flash",
      turns: [{ role: "ROLE_USER", parts: [{ text: { text: "x" } }] }],
      tools: [
        { function: { name: "a", description: "A", parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } } },
        { function: { name: "b", parameters: { type: "object", additionalProperties: false } } },
        { function: { name: "c", parameters: { type: "object", properties: {} } } },
        { codeExecution: {} },
        { webSearch: {} },
      ],
      toolChoice: { mode: "TOOL_CHOICE_MODE_ANY", allowedNames: ["a"] },
    },
  ],
  [
    "googleSearch is the neutral web search: excludeDomains blocked, its other settings for Gemini; the other built-ins stay Gemini's",
    {
      contents: [user({ text: "x" })],
      tools: [{ googleSearch: { excludeDomains: ["spam.example"], timeRangeFilter: { startTime: "2026-01-01T00:00:00Z" } } }, { urlContext: {} }],
    },
    {
      model: "gemini-2.5-flash",
      turns: [{ role: "ROLE_USER", parts: [{ text: { text: "x" } }] }],
      tools: [
        { webSearch: { blockedDomains: ["spam.example"] }, vendorExtras: { gemini: { timeRangeFilter: { startTime: "2026-01-01T00:00:00Z" } } } },
        { vendor: { type: "urlContext", name: "urlContext", config: {}, vendor: "gemini" } },
      ],
    },
  ],
];

for (const [name, body, want] of CASES) t.same(json(body), want, name);

t.test("generation config: the newer enum values of the GenAI SDK", async (t) => {
  const c = input({
    contents: [user({ text: "x" })],
    generationConfig: { responseModalities: ["TEXT", "VIDEO"] },
    safetySettings: [{ category: "HARM_CATEGORY_JAILBREAK", threshold: "BLOCK_LOW_AND_ABOVE" }],
  });
  t.same(c.config?.responseModalities, [Modality.TEXT, Modality.VIDEO]);
  t.equal(c.safetySettings[0]?.category, HarmCategory.JAILBREAK);
});

t.test("generation config: image output settings and a voice by name are kept, not dropped", async (t) => {
  const camel = input({
    contents: [user({ text: "x" })],
    generationConfig: { responseModalities: ["IMAGE"], imageConfig: { aspectRatio: "16:9", imageSize: "2K" }, speechConfig: { voiceConfig: { voice: "Puck" } } },
  });
  t.same(camel.config?.imageConfig, { aspectRatio: "16:9", imageSize: "2K" });
  t.same(camel.config?.speechConfig, { voiceConfig: { voice: "Puck" } });
  const snake = input({ contents: [user({ text: "x" })], generation_config: { image_config: { aspect_ratio: "1:1", output_compression_quality: 80 } } });
  t.same(snake.config?.imageConfig, { aspectRatio: "1:1", outputCompressionQuality: 80 }, "REST's snake_case too");
});

t.test("generation config: every field", async (t) => {
  const i = input({
    contents: [user({ text: "x" })],
    generationConfig: {
      stopSequences: ["END"],
      responseMimeType: "application/json",
      responseSchema: { type: "OBJECT", properties: { a: { type: "INTEGER" } } },
      responseModalities: ["TEXT", "IMAGE"],
      candidateCount: 2,
      maxOutputTokens: 100,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: -0.2,
      responseLogprobs: true,
      logprobs: 3,
      enableEnhancedCivicAnswers: true,
      speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: "Kore" } }, languageCode: "en-US" },
      thinkingConfig: { includeThoughts: true, thinkingBudget: 512, thinkingLevel: "HIGH" },
      mediaResolution: "MEDIA_RESOLUTION_LOW",
    },
    safetySettings: [
      { category: "HARM_CATEGORY_HATE_SPEECH", threshold: "BLOCK_ONLY_HIGH" },
      { category: "HARM_CATEGORY_CIVIC_INTEGRITY", threshold: "OFF" },
    ],
  });
  const c = i.config!;
  t.same(c.stopSequences, ["END"]);
  t.equal(c.responseMimeType, "application/json");
  t.same(c.responseSchema, { type: "object", properties: { a: { type: "integer" } } });
  t.same(c.responseModalities, [Modality.TEXT, Modality.IMAGE]);
  t.equal(c.candidateCount, 2);
  t.equal(c.maxOutputTokens, 100);
  t.equal(c.temperature, 0.5);
  t.equal(c.topP, 0.9);
  t.equal(c.topK, 40);
  t.equal(c.seed, 7n);
  t.equal(c.presencePenalty, 0.1);
  t.equal(c.frequencyPenalty, -0.2);
  t.equal(c.responseLogprobs, true);
  t.equal(c.logprobs, 3);
  t.equal(c.enableEnhancedCivicAnswers, true);
  t.same(c.speechConfig, { voiceConfig: { prebuiltVoiceConfig: { voiceName: "Kore" } }, languageCode: "en-US" });
  t.equal(c.thinking?.includeThoughts, true);
  t.equal(c.thinking?.budgetTokens, 512);
  t.equal(c.thinking?.effort, "high");
  t.equal(c.mediaResolution, MediaResolution.LOW);
  t.same(
    i.safetySettings.map((s) => [s.category, s.threshold]),
    [
      [HarmCategory.HATE_SPEECH, HarmBlockThreshold.BLOCK_ONLY_HIGH],
      [HarmCategory.CIVIC_INTEGRITY, HarmBlockThreshold.OFF],
    ],
  );
  t.same(responseOptions({ generationConfig: { thinkingConfig: { includeThoughts: true } } }), { includeThoughts: true });
  t.same(responseOptions({}), { includeThoughts: false });
});

t.test("thinking budgets: 0 turns thinking off, -1 is dynamic", async (t) => {
  const off = input({ contents: [user({ text: "x" })], generationConfig: { thinkingConfig: { thinkingBudget: 0 } } });
  t.equal(off.config?.thinking?.enabled, false);
  const dyn = input({ contents: [user({ text: "x" })], generationConfig: { thinkingConfig: { thinkingBudget: -1 } } });
  t.equal(dyn.config?.thinking?.enabled, true);
  t.equal(dyn.config?.thinking?.budgetTokens, undefined);
});

t.test("cachedContent and tool choice modes", async (t) => {
  const i = input({ contents: [user({ text: "x" })], cachedContent: "cachedContents/abc123", toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["in_cache"] } } });
  t.equal(i.cachedContent, "cachedContents/abc123");
  t.equal(i.toolChoice?.mode, ToolChoiceMode.ANY, "names may refer to the cached tools");
  for (const [mode, want] of [
    ["AUTO", ToolChoiceMode.AUTO],
    ["NONE", ToolChoiceMode.NONE],
    ["MODE_UNSPECIFIED", ToolChoiceMode.UNSPECIFIED],
  ] as const) {
    t.equal(input({ contents: [user({ text: "x" })], toolConfig: { functionCallingConfig: { mode } } }).toolChoice?.mode, want, mode);
  }
  t.equal(input({ contents: [user({ text: "x" })] }).turns[0]!.role, Role.USER);
});

const ERRORS: [string, unknown, string][] = [
  ["no contents", { contents: [] }, "contents"],
  ["fileData", { contents: [user({ fileData: { fileUri: "gs://x" } })] }, "contents[0].parts[0].fileData"],
  ["thought on a call", { contents: [{ role: "model", parts: [{ functionCall: { name: "f" }, thought: true }] }] }, "contents[0].parts[0].thought"],
  ["bad mime", { contents: [user({ inlineData: { mimeType: "png", data: "AAAA" } })] }, "contents[0].parts[0].inlineData.mimeType"],
  ["empty inline data", { contents: [user({ inlineData: { mimeType: "image/png", data: "" } })] }, "contents[0].parts[0].inlineData.data"],
  [
    "both parameter forms",
    { contents: [user({ text: "x" })], tools: [{ functionDeclarations: [{ name: "f", parameters: { type: "OBJECT" }, parametersJsonSchema: {} }] }] },
    "tools[0].functionDeclarations[0].parametersJsonSchema",
  ],
  ["ANY without functions", { contents: [user({ text: "x" })], toolConfig: { functionCallingConfig: { mode: "ANY" } } }, "toolConfig.functionCallingConfig.mode"],
  [
    "both response schemas",
    { contents: [user({ text: "x" })], generationConfig: { responseMimeType: "application/json", responseSchema: { type: "STRING" }, responseJsonSchema: {} } },
    "generationConfig.responseJsonSchema",
  ],
  ["responseJsonSchema not an object", { contents: [user({ text: "x" })], generationConfig: { responseMimeType: "application/json", responseJsonSchema: [1] } }, "generationConfig.responseJsonSchema"],
  ["a newer tool kind that is not an object", { contents: [user({ text: "x" })], tools: [{ futureTool: true }] }, "tools[0].futureTool"],
  ["an empty part (no kind, no field)", { contents: [user({})] }, "contents[0].parts[0]"],
];

for (const [name, body, field] of ERRORS) {
  t.test(`error: ${name}`, async (t) => {
    try {
      input(body);
      t.fail("expected an error");
    } catch (e) {
      t.ok(e instanceof ConnectError, String(e));
      t.equal(errorDetail(e as ConnectError)?.field, field);
    }
  });
}

t.test("null means not set, as in proto3 JSON", async (t) => {
  const i = input({ contents: [{ role: null, parts: [{ text: "x", thought: null }] }], systemInstruction: null, generationConfig: { temperature: null, max_output_tokens: 5 } });
  t.equal(i.turns[0]!.role, Role.USER);
  t.equal(i.system.length, 0);
  t.equal(i.config?.temperature, undefined);
  t.equal(i.config?.maxOutputTokens, 5);
});

t.test("origins point neutral fields back at the wire", async (t) => {
  const { origins } = toCoreRequest(
    wire.generateContentRequest.parse({
      contents: [
        user({ text: "q" }),
        { role: "model", parts: [{ text: "a", thought: true }] },
        { role: "model", parts: [{ text: "b", thoughtSignature: encodeSignature(localSig, "gemini") }, { functionCall: { name: "f" } }] },
        user({ text: "hidden" }),
        { role: "model", parts: [{ text: "x", thoughtSignature: encodeHiddenThought("t", localSig) }] },
      ],
    }),
    "m",
  );
  const MAP: [string, string | undefined][] = [
    ["turns[0].parts[0]", "contents[0].parts[0]"],
    ["turns[1].parts[0].signature", "contents[2].parts[0].thoughtSignature"],
    ["turns[1].parts[0]", "contents[1].parts[0]"],
    ["turns[1].parts[1].text", "contents[2].parts[0].text"],
    ["turns[1].parts[2]", "contents[2].parts[1]"],
    ["turns[3].parts[0].signature", "contents[4].parts[0].thoughtSignature"],
    ["turns[3].parts[1]", "contents[4].parts[0]"],
    ["turns[1]", "contents[1]"],
    ["turns[9].parts[0]", undefined],
    ["turns[1].parts[9]", undefined],
    ["config.temperature", undefined],
  ];
  for (const [neutral, want] of MAP) t.equal(originField(origins, neutral), want, neutral);
  const cached = toCoreRequest(wire.generateContentRequest.parse({ contents: [user({ text: "q" })], cachedContent: "cachedContents/a" }), "m");
  t.same(cached.origins, [], "no origins when a cache shifts the turns");
});
