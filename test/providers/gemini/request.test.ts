import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import { ChatInputSchema, HarmBlockThreshold, HarmCategory, MediaResolution, Modality, Role, ToolChoiceMode } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { SKIP_SIGNATURE, toVendorRequest } from "../../../src/providers/gemini/request.js";
import { toGeminiSchema } from "../../../src/providers/gemini/schema.js";
import { errorDetail } from "../../../src/core/errors.js";

type Init = MessageInitShape<typeof ChatInputSchema>;
const input = (init: Init) => create(ChatInputSchema, { model: "gemini-client", ...init });
const text = (t: string) => ({ kind: { case: "text" as const, value: { text: t } } });
const user = (t: string) => ({ role: Role.USER, parts: [text(t)] });

t.test("contents, system instruction, generation config, safety", async (t) => {
  const { body, plan } = toVendorRequest(
    input({
      system: [text("be brief")],
      turns: [user("hi"), { role: Role.ASSISTANT, parts: [text("hello")] }, user("again")],
      config: {
        maxOutputTokens: 64,
        temperature: 1.5,
        topP: 0.9,
        topK: 40,
        stopSequences: ["x"],
        seed: 3n,
        presencePenalty: 0.5,
        frequencyPenalty: 0.25,
        candidateCount: 2,
        responseLogprobs: true,
        logprobs: 2,
        responseModalities: [Modality.TEXT],
        mediaResolution: MediaResolution.LOW,
        enableEnhancedCivicAnswers: true,
        speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: "Kore" } } },
        thinking: { includeThoughts: true, budgetTokens: 128 },
      },
      safetySettings: [{ category: HarmCategory.DANGEROUS_CONTENT, threshold: HarmBlockThreshold.BLOCK_NONE }],
    }),
  );
  t.same(body, {
    contents: [
      { role: "user", parts: [{ text: "hi" }] },
      { role: "model", parts: [{ text: "hello" }] },
      { role: "user", parts: [{ text: "again" }] },
    ],
    systemInstruction: { parts: [{ text: "be brief" }] },
    safetySettings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", threshold: "BLOCK_NONE" }],
    generationConfig: {
      stopSequences: ["x"],
      responseModalities: ["TEXT"],
      candidateCount: 2,
      maxOutputTokens: 64,
      temperature: 1.5,
      topP: 0.9,
      topK: 40,
      seed: 3,
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
      responseLogprobs: true,
      logprobs: 2,
      enableEnhancedCivicAnswers: true,
      speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: "Kore" } } },
      mediaResolution: "MEDIA_RESOLUTION_LOW",
      thinkingConfig: { includeThoughts: true, thinkingBudget: 128 },
    },
  });
  t.equal(plan.singleCall, false);
});

t.test("the newer enum values go out by name", async (t) => {
  const { body } = toVendorRequest(
    input({
      turns: [user("q")],
      config: { responseModalities: [Modality.TEXT, Modality.VIDEO] },
      safetySettings: [{ category: HarmCategory.JAILBREAK, threshold: HarmBlockThreshold.BLOCK_LOW_AND_ABOVE }],
    }),
  );
  t.same(body.generationConfig?.responseModalities, ["TEXT", "VIDEO"]);
  t.same(body.safetySettings, [{ category: "HARM_CATEGORY_JAILBREAK", threshold: "BLOCK_LOW_AND_ABOVE" }]);
  const img = toVendorRequest(input({ turns: [user("q")], config: { responseModalities: [Modality.IMAGE], imageConfig: { aspectRatio: "16:9" } } })).body;
  t.same(img.generationConfig?.imageConfig, { aspectRatio: "16:9" });
});

t.test("thinking config from other formats", async (t) => {
  const tc = (thinking: object) => toVendorRequest(input({ turns: [user("q")], config: { thinking } })).body.generationConfig?.thinkingConfig;
  t.same(tc({ enabled: true, budgetTokens: 2048, includeThoughts: true }), { includeThoughts: true, thinkingBudget: 2048 });
  t.same(tc({ enabled: false }), { thinkingBudget: 0 });
  t.same(tc({ enabled: true, includeThoughts: true }), { includeThoughts: true, thinkingBudget: -1 });
  t.same(tc({ effort: "high" }), { thinkingLevel: "HIGH" });
  t.same(
    [tc({ effort: "xhigh" }), tc({ effort: "max" }), tc({ effort: "minimal" })],
    [{ thinkingLevel: "HIGH" }, { thinkingLevel: "HIGH" }, { thinkingLevel: "MINIMAL" }],
    "Gemini's levels stop at HIGH",
  );
  t.same(tc({ enabled: true, budgetTokens: 2048, includeThoughts: false, display: "omitted" }), { thinkingBudget: 2048 }, "omitted thoughts are not asked for");
});

t.test("signatures: Gemini's travel back, others are dropped, a step's signature lands on its first call", async (t) => {
  const { body } = toVendorRequest(
    input({
      turns: [
        user("q"),
        {
          role: Role.ASSISTANT,
          parts: [
            { kind: { case: "thinking", value: { text: "gemini thought" } } },
            { kind: { case: "thinking", value: { text: "claude thought" } }, signature: { issuer: "anthropic", value: "A_SIG" } },
            { kind: { case: "redactedThinking", value: { data: "RED", issuer: "anthropic" } } },
            { ...text("answer"), signature: { issuer: "gemini", value: "G_TEXT" } },
          ],
        },
        user("next"),
        {
          role: Role.ASSISTANT,
          parts: [
            { kind: { case: "thinking", value: { text: "" } }, signature: { issuer: "gemini", value: "G_STEP" } },
            { kind: { case: "toolCall", value: { id: "c1", name: "f", arguments: { a: 1 } } } },
            { kind: { case: "toolCall", value: { id: "c2", name: "f", arguments: { a: 2 } } } },
          ],
        },
        {
          role: Role.USER,
          parts: [{ kind: { case: "toolResult", value: { callId: "c1", content: [text("r1")] } } }, { kind: { case: "toolResult", value: { callId: "c2", name: "f", structured: { ok: true } } } }],
        },
      ],
    }),
  );
  t.same(body.contents[1], {
    role: "model",
    parts: [
      { text: "gemini thought", thought: true },
      { text: "answer", thoughtSignature: "G_TEXT" },
    ],
  });
  t.same(body.contents[3], {
    role: "model",
    parts: [{ functionCall: { id: "c1", name: "f", args: { a: 1 } }, thoughtSignature: "G_STEP" }, { functionCall: { id: "c2", name: "f", args: { a: 2 } } }],
  });
  t.same(body.contents[4], {
    role: "user",
    parts: [{ functionResponse: { id: "c1", name: "f", response: { output: "r1" } } }, { functionResponse: { id: "c2", name: "f", response: { ok: true } } }],
  });
  t.notMatch(JSON.stringify(body), /A_SIG|RED|claude thought/);
});

t.test("a function call of the current tool loop that another vendor made gets the placeholder signature", async (t) => {
  const call = (id: string) => ({ role: Role.ASSISTANT, parts: [{ kind: { case: "toolCall" as const, value: { id, name: "f", arguments: {} } } }] });
  const result = (id: string) => ({ role: Role.USER, parts: [{ kind: { case: "toolResult" as const, value: { callId: id, name: "f", content: [text("ok")] } } }] });
  const { body } = toVendorRequest(input({ turns: [user("old"), call("a"), result("a"), user("new"), call("b"), result("b"), call("c"), result("c")] }));
  const sigs = body.contents.filter((c) => c.role === "model").map((c) => c.parts[0]!.thoughtSignature);
  t.same(sigs, [undefined, SKIP_SIGNATURE, SKIP_SIGNATURE], "only the current loop's calls");
});

t.test("tools, tool config, schemas", async (t) => {
  const { body, plan } = toVendorRequest(
    input({
      turns: [user("q")],
      tools: [
        {
          kind: { case: "function", value: { name: "simple", description: "d", parameters: { type: "object", properties: { a: { type: ["string", "null"], enum: ["x", null] } }, required: ["a"] } } },
        },
        {
          kind: {
            case: "function",
            value: {
              name: "rich",
              parameters: {
                $schema: "http://json-schema.org/draft-07/schema#",
                type: "object",
                additionalProperties: false,
                properties: { b: { $ref: "#/$defs/B" } },
                $defs: { B: { type: "number" } },
              },
            },
          },
        },
        { kind: { case: "function", value: { name: "bare" } } },
        { kind: { case: "codeExecution", value: {} } },
        { kind: { case: "vendor", value: { type: "googleSearch", name: "googleSearch", config: {} } } },
      ],
      toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: ["simple"], disableParallel: true },
    }),
  );
  t.same(body.tools, [
    {
      functionDeclarations: [
        { name: "simple", description: "d", parameters: { type: "OBJECT", properties: { a: { type: "STRING", nullable: true, enum: ["x"] } }, required: ["a"] } },
        { name: "rich", parametersJsonSchema: { type: "object", additionalProperties: false, properties: { b: { $ref: "#/$defs/B" } }, $defs: { B: { type: "number" } } } },
        { name: "bare" },
      ],
    },
    { codeExecution: {} },
    { googleSearch: {} },
  ]);
  t.same(body.toolConfig, { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["simple"] } });
  t.equal(plan.singleCall, true);
  const err = t.throws(() => toVendorRequest(input({ turns: [user("q")], tools: [{ kind: { case: "vendor", value: { type: "bash_20250124", name: "bash" } } }] }))) as ConnectError;
  t.equal(errorDetail(err)?.field, "tools[0]");
  const json = toVendorRequest(input({ turns: [user("q")], config: { responseMimeType: "text/x.enum", responseSchema: { type: "string", enum: ["A", "B"] } } })).body.generationConfig;
  t.same(json, { responseMimeType: "text/x.enum", responseSchema: { type: "STRING", enum: ["A", "B"] } });
});

t.test("custom tools are emulated: a declaration with one string parameter, calls with {input}", async (t) => {
  const grammar = { type: "grammar", syntax: "lark", definition: "start: /SELECT .+/" };
  const { body, plan } = toVendorRequest(
    input({
      turns: [
        user("count"),
        { role: Role.ASSISTANT, parts: [{ kind: { case: "toolCall", value: { id: "call_s", name: "sql", input: "SELECT 1" } } }] },
        { role: Role.USER, parts: [{ kind: { case: "toolResult", value: { callId: "call_s", content: [text("1")] } } }] },
      ],
      tools: [{ kind: { case: "custom", value: { name: "sql", description: "Run SQL", format: grammar } } }],
    }),
  );
  t.same(body.tools, [
    {
      functionDeclarations: [
        {
          name: "sql",
          description: 'Run SQL\n\nPut the whole input in the "input" string; it must follow the Lark grammar given in that parameter\'s description.',
          parameters: {
            type: "OBJECT",
            properties: { input: { type: "STRING", description: "The tool's whole input as free text, sent as it is (not JSON-encoded). It must follow this Lark grammar:\nstart: /SELECT .+/" } },
            required: ["input"],
          },
        },
      ],
    },
  ]);
  t.same(body.contents[1]!.parts[0]!.functionCall, { id: "call_s", name: "sql", args: { input: "SELECT 1" } }, "a custom call in history: args {input}");
  t.same(body.contents[2]!.parts[0]!.functionResponse, { id: "call_s", name: "sql", response: { output: "1" } }, "its result names it");
  t.same([...plan.customTools], ["sql"]);
});

t.test("schema conversion table", async (t) => {
  const cases: [unknown, unknown][] = [
    [
      { type: "integer", minimum: 1, description: "n" },
      { type: "INTEGER", minimum: 1, description: "n" },
    ],
    [
      { type: "array", items: { type: "string" }, minItems: 1 },
      { type: "ARRAY", items: { type: "STRING" }, minItems: 1 },
    ],
    [{ anyOf: [{ type: "string" }, { type: "null" }] }, { anyOf: [{ type: "STRING" }, { type: "NULL" }] }],
    [
      { type: "string", examples: ["e"] },
      { type: "STRING", example: "e" },
    ],
    [
      { type: "object", propertyOrdering: ["b", "a"], required: ["a"] },
      { type: "OBJECT", propertyOrdering: ["b", "a"], required: ["a"] },
    ],
    [{ type: "null" }, { type: "NULL" }],
    [{ type: "type_unspecified" }, undefined],
    [{ type: "object", additionalProperties: false }, undefined],
    [{ oneOf: [{ type: "string" }] }, undefined],
    [{ const: 1 }, undefined],
    [{ type: ["string", "number"] }, undefined],
  ];
  for (const [js, want] of cases) t.same(toGeminiSchema(js), want, JSON.stringify(js));
});

t.test("media, refusals, tool results without a name", async (t) => {
  const { body } = toVendorRequest(
    input({
      turns: [
        {
          role: Role.USER,
          parts: [
            { kind: { case: "media", value: { mimeType: "image/png", source: { case: "data", value: new Uint8Array([1, 2, 3]) } } } },
            { kind: { case: "media", value: { mimeType: "video/mp4", source: { case: "uri", value: "gs://bucket/v.mp4" } } } },
          ],
        },
      ],
    }),
  );
  t.same(body.contents[0]!.parts, [{ inlineData: { mimeType: "image/png", data: "AQID" } }, { fileData: { mimeType: "video/mp4", fileUri: "gs://bucket/v.mp4" } }]);
  const e1 = t.throws(() =>
    toVendorRequest(input({ turns: [{ role: Role.USER, parts: [{ kind: { case: "media", value: { mimeType: "image/png", source: { case: "uri", value: "https://x/y.png" } } } }] }] })),
  ) as ConnectError;
  t.equal(errorDetail(e1)?.field, "turns[0].parts[0].media");
  const e2 = t.throws(() => toVendorRequest(input({ turns: [{ role: Role.USER, parts: [{ kind: { case: "toolResult", value: { callId: "nope" } } }] }] }))) as ConnectError;
  t.equal(errorDetail(e2)?.field, "turns[0].parts[0].tool_result.name");
  const e3 = t.throws(() => toVendorRequest(input({ turns: [user("q")], config: { stopSequences: ["1", "2", "3", "4", "5", "6"] } }))) as ConnectError;
  t.equal(errorDetail(e3)?.field, "config.stop_sequences");
  const withImage = toVendorRequest(
    input({
      turns: [
        user("q"),
        { role: Role.ASSISTANT, parts: [{ kind: { case: "toolCall", value: { id: "s", name: "shot", arguments: {} } } }] },
        {
          role: Role.USER,
          parts: [
            {
              kind: {
                case: "toolResult",
                value: { callId: "s", content: [text("here"), { kind: { case: "media", value: { mimeType: "image/png", source: { case: "data", value: new Uint8Array([7]) } } } }] },
              },
            },
          ],
        },
      ],
    }),
  ).body;
  t.same(withImage.contents[2]!.parts, [{ functionResponse: { id: "s", name: "shot", response: { output: "here" } } }, { inlineData: { mimeType: "image/png", data: "Bw==" } }]);
});

t.test("Gemini's own settings: a part's extras join the part, toolConfig extras sit beside the calling mode, other vendors' hints are left out", async (t) => {
  const bytes = new Uint8Array([1, 2, 3]);
  const { body } = toVendorRequest(
    input({
      turns: [
        {
          role: Role.USER,
          parts: [
            { kind: { case: "media", value: { mimeType: "video/mp4", source: { case: "data", value: bytes } } }, vendorExtras: { gemini: { videoMetadata: { fps: 2 } } } },
            text("what happens?"),
          ],
        },
      ],
      toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: [] },
      tools: [{ kind: { case: "function", value: { name: "f", parameters: { type: "object" } } } }],
      vendorExtras: {
        gemini: { serviceTier: "flex", toolConfig: { retrievalConfig: { languageCode: "nl" } } },
        anthropic: { service_tier: "auto", inference_geo: "eu" },
        openai: { serviceTier: "x", labels: { a: "b" } },
      },
    }),
  );
  t.same(body.contents[0]!.parts[0], { inlineData: { mimeType: "video/mp4", data: Buffer.from(bytes).toString("base64") }, videoMetadata: { fps: 2 } });
  t.same(body.toolConfig, { retrievalConfig: { languageCode: "nl" }, functionCallingConfig: { mode: "ANY" } });
  t.equal(body.serviceTier, "flex");
  t.notOk("service_tier" in body || "inference_geo" in body || "labels" in body, "other vendors' serving hints are left out");

  const e = (() => {
    try {
      toVendorRequest(input({ turns: [user("hi")], vendorExtras: { anthropic: { container: "c1" } } }));
    } catch (err) {
      return err as ConnectError;
    }
  })();
  t.equal(errorDetail(e!)?.field, "container", "another vendor's feature is refused, not dropped");
});

t.test("a system turn is a user turn marked as a system instruction; it does not end a tool loop", async (t) => {
  const call = { kind: { case: "toolCall" as const, value: { id: "c1", name: "f", arguments: {} } } };
  const result = { kind: { case: "toolResult" as const, value: { callId: "c1", name: "f", content: [text("ok")] } } };
  const { body } = toVendorRequest(
    input({
      turns: [
        user("go"),
        { role: Role.ASSISTANT, parts: [call] },
        { role: Role.SYSTEM, parts: [text("Be terse."), { kind: { case: "thinking", value: { text: "t" } } }] },
        { role: Role.USER, parts: [result] },
      ],
    }),
  );
  t.same(body.contents[2], { role: "user", parts: [{ text: "<system_instruction>\nBe terse.\n</system_instruction>" }, { text: "t", thought: true }] }, "texts marked, a thought not");
  t.equal(body.contents[1]!.parts[0]!.thoughtSignature, SKIP_SIGNATURE, "the call is still in the current loop");
});

t.test("a GenAI client's own fields: whole parts, content and declaration fields, newer tools; another vendor's tool is refused", async (t) => {
  const { body } = toVendorRequest(
    input({
      system: [
        { kind: { case: "text", value: { text: "Sys" } }, vendorExtras: { gemini: { futureFlag: true } } },
        { vendorExtras: { gemini: { futureSystemPart: {} } } },
        { vendorExtras: { anthropic: { type: "future_block" } } },
      ],
      turns: [
        {
          role: Role.USER,
          parts: [text("hi"), { vendorExtras: { gemini: { futurePart: { x: 1 } } } }, { vendorExtras: { anthropic: { type: "future_block" } } }],
          vendorExtras: { gemini: { futureContentField: "c" } },
        },
      ],
      tools: [
        { kind: { case: "function", value: { name: "f", description: "d" } }, vendorExtras: { gemini: { behavior: "NON_BLOCKING" }, anthropic: { strict: true } } },
        { kind: { case: "vendor", value: { type: "futureTool", name: "futureTool", config: { a: 1 }, vendor: "gemini" } } },
      ],
      config: { thinking: { includeThoughts: true } },
      vendorExtras: { gemini: { generationConfig: { futureKnob: 1, thinkingConfig: { thinkingLevel: "ULTRA" } }, toolConfig: { functionCallingConfig: { mode: "FUTURE" } } } },
    }),
  );
  t.same(body.systemInstruction, { parts: [{ futureFlag: true, text: "Sys" }, { futureSystemPart: {} }] });
  t.same(body.contents, [{ futureContentField: "c", role: "user", parts: [{ text: "hi" }, { futurePart: { x: 1 } }] }]);
  t.same(body.tools, [{ functionDeclarations: [{ behavior: "NON_BLOCKING", name: "f", description: "d" }] }, { futureTool: { a: 1 } }]);
  t.same(body.generationConfig, { futureKnob: 1, thinkingConfig: { includeThoughts: true, thinkingLevel: "ULTRA" } }, "laid over what was built");
  t.same(body.toolConfig, { functionCallingConfig: { mode: "FUTURE" } });
  const e = t.throws(() =>
    toVendorRequest(input({ turns: [user("hi")], tools: [{ kind: { case: "vendor", value: { type: "future_tool_20270101", name: "ft", vendor: "anthropic" } } }] })),
  ) as ConnectError;
  t.equal(errorDetail(e)?.field, "tools[0]");
});
