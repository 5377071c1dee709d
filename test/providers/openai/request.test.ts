import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import { ChatInputSchema, HarmBlockThreshold, HarmCategory, Modality, Role, ToolChoiceMode } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { openaiToolId, reasoningEffort, toVendorRequest } from "../../../src/providers/openai/request.js";
import { errorDetail } from "../../../src/core/errors.js";

type Init = MessageInitShape<typeof ChatInputSchema>;
const input = (init: Init) => create(ChatInputSchema, { model: "claude-client", ...init });
const user = (text: string) => ({ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text } } }] });
const compat = { stream: false, official: false };

t.test("system, turns, sampling; compatible servers get max_tokens and top_k", async (t) => {
  const { body } = toVendorRequest(
    input({
      system: [{ kind: { case: "text", value: { text: "be brief" } } }, { kind: { case: "text", value: { text: "be kind" } } }],
      turns: [user("hi")],
      config: { maxOutputTokens: 50, temperature: 1.5, topP: 0.5, topK: 3, stopSequences: ["X"], seed: 7n, presencePenalty: 0.1, frequencyPenalty: 0.2, candidateCount: 2 },
      metadata: { userId: "u9" },
    }),
    "gpt-up",
    { stream: true, official: false },
  );
  t.same(body, {
    model: "gpt-up",
    messages: [
      { role: "system", content: "be brief\n\nbe kind" },
      { role: "user", content: "hi" },
    ],
    max_tokens: 50,
    temperature: 1.5,
    top_p: 0.5,
    top_k: 3,
    stop: ["X"],
    seed: 7,
    presence_penalty: 0.1,
    frequency_penalty: 0.2,
    n: 2,
    user: "u9",
    stream: true,
    stream_options: { include_usage: true },
  });
});

t.test("api.openai.com gets max_completion_tokens and refuses top_k", async (t) => {
  const { body } = toVendorRequest(input({ turns: [user("hi")], config: { maxOutputTokens: 50 } }), "gpt-5", { stream: false, official: true });
  t.equal(body.max_completion_tokens, 50);
  t.notOk("max_tokens" in body);
  const err = t.throws(() => toVendorRequest(input({ turns: [user("hi")], config: { topK: 3 } }), "gpt-5", { stream: false, official: true })) as ConnectError;
  t.equal(errorDetail(err)?.field, "config.top_k");
});

t.test("a tool loop: assistant tool_calls, tool messages, ids that fit OpenAI", async (t) => {
  const longId = "toolu_" + "x".repeat(50);
  const { body } = toVendorRequest(
    input({
      turns: [
        user("weather?"),
        {
          role: Role.ASSISTANT,
          parts: [
            { kind: { case: "thinking", value: { text: "hidden" } }, signature: { issuer: "anthropic", value: "S" } },
            { kind: { case: "redactedThinking", value: { data: "R", issuer: "anthropic" } } },
            { kind: { case: "text", value: { text: "Let me look." } } },
            { kind: { case: "toolCall", value: { id: "toolu_01A", name: "get_weather", arguments: { city: "Paris" } } } },
            { kind: { case: "toolCall", value: { id: longId, name: "get_time", arguments: {} } } },
          ],
        },
        {
          role: Role.USER,
          parts: [
            { kind: { case: "toolResult", value: { callId: "toolu_01A", name: "get_weather", content: [{ kind: { case: "text", value: { text: "sunny" } } }] } } },
            { kind: { case: "toolResult", value: { callId: longId, name: "get_time", structured: { t: "noon" }, isError: true } } },
            { kind: { case: "text", value: { text: "and?" } } },
          ],
        },
      ],
    }),
    "m",
    compat,
  );
  const mapped = openaiToolId(longId);
  t.ok(mapped.length <= 40 && mapped.startsWith("call_"));
  t.same(body.messages, [
    { role: "user", content: "weather?" },
    {
      role: "assistant",
      content: "Let me look.",
      tool_calls: [
        { id: "toolu_01A", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        { id: mapped, type: "function", function: { name: "get_time", arguments: "{}" } },
      ],
    },
    { role: "tool", tool_call_id: "toolu_01A", content: "sunny" },
    { role: "tool", tool_call_id: mapped, content: 'Error: {"t":"noon"}' },
    { role: "user", content: "and?" },
  ]);
  t.notMatch(JSON.stringify(body), /hidden|"R"/, "thinking is not sent to OpenAI-compatible servers");
});

t.test("media parts", async (t) => {
  const media = (mimeType: string, source: { case: "data"; value: Uint8Array } | { case: "uri"; value: string }, name = "") => ({
    kind: { case: "media" as const, value: { mimeType, source, name } },
  });
  const { body } = toVendorRequest(
    input({
      turns: [
        {
          role: Role.USER,
          parts: [
            { kind: { case: "text", value: { text: "look" } } },
            media("image/png", { case: "data", value: new Uint8Array([1, 2, 3]) }),
            media("image/jpeg", { case: "uri", value: "https://x/y.jpg" }),
            media("audio/wav", { case: "data", value: new Uint8Array([9]) }),
            media("application/pdf", { case: "data", value: new Uint8Array([4]) }, "a.pdf"),
          ],
        },
      ],
    }),
    "m",
    compat,
  );
  t.same(body.messages[0], {
    role: "user",
    content: [
      { type: "text", text: "look" },
      { type: "image_url", image_url: { url: "data:image/png;base64,AQID" } },
      { type: "image_url", image_url: { url: "https://x/y.jpg" } },
      { type: "input_audio", input_audio: { data: "CQ==", format: "wav" } },
      { type: "file", file: { file_data: "data:application/pdf;base64,BA==", filename: "a.pdf" } },
    ],
  });
  const err = t.throws(() => toVendorRequest(input({ turns: [{ role: Role.USER, parts: [media("video/mp4", { case: "data", value: new Uint8Array([1]) })] }] }), "m", compat)) as ConnectError;
  t.equal(errorDetail(err)?.field, "turns[0].parts[0].media");
});

t.test("tools and tool choice", async (t) => {
  const tools = [{ kind: { case: "function" as const, value: { name: "a", description: "A", parameters: { type: "object" } } } }, { kind: { case: "function" as const, value: { name: "b" } } }];
  const cases: [ToolChoiceMode, string[], boolean, unknown, string[], boolean | undefined][] = [
    [ToolChoiceMode.AUTO, [], false, "auto", ["a", "b"], undefined],
    [ToolChoiceMode.NONE, [], false, "none", ["a", "b"], undefined],
    [ToolChoiceMode.ANY, [], true, "required", ["a", "b"], false],
    [ToolChoiceMode.ANY, ["b"], false, { type: "function", function: { name: "b" } }, ["a", "b"], undefined],
    [ToolChoiceMode.ANY, ["a", "b"], false, "required", ["a", "b"], undefined],
  ];
  for (const [mode, allowedNames, disableParallel, want, names, parallel] of cases) {
    const { body } = toVendorRequest(input({ turns: [user("q")], tools, toolChoice: { mode, allowedNames, disableParallel } }), "m", compat);
    t.same(body.tool_choice, want);
    t.same(
      body.tools!.map((x) => (x.type === "function" ? x.function.name : x.custom.name)),
      names,
    );
    t.equal(body.parallel_tool_calls, parallel);
  }
  t.same(toVendorRequest(input({ turns: [user("q")], tools }), "m", compat).body.tools![1], { type: "function", function: { name: "b", parameters: { type: "object", properties: {} } } });
  for (const [tool, field] of [
    [{ kind: { case: "codeExecution" as const, value: {} } }, "tools[0].code_execution"],
    [{ kind: { case: "vendor" as const, value: { type: "computer_20241022", name: "computer" } } }, "tools[0]"],
  ] as const) {
    const err = t.throws(() => toVendorRequest(input({ turns: [user("q")], tools: [tool] }), "m", compat)) as ConnectError;
    t.equal(errorDetail(err)?.field, field);
    t.equal(errorDetail(err)?.reason, "unsupported_by_upstream");
  }
});

t.test("custom tools are native: the tool, its calls in history, a choice of it", async (t) => {
  const lark = { type: "grammar", syntax: "lark", definition: "start: /SELECT .+/" };
  const tools = [
    { kind: { case: "custom" as const, value: { name: "sql", description: "Run SQL", format: lark } } },
    { kind: { case: "custom" as const, value: { name: "note", format: { type: "text" } } } },
    { kind: { case: "custom" as const, value: { name: "free" } } },
    { kind: { case: "function" as const, value: { name: "get_weather" } } },
  ];
  const turns = [
    user("count"),
    { role: Role.ASSISTANT, parts: [{ kind: { case: "toolCall" as const, value: { id: "call_s", name: "sql", input: "SELECT 1" } } }] },
    { role: Role.USER, parts: [{ kind: { case: "toolResult" as const, value: { callId: "call_s", content: [{ kind: { case: "text" as const, value: { text: "1" } } }] } } }] },
  ];
  const { body } = toVendorRequest(input({ turns, tools }), "m", compat);
  t.same(body.tools!.slice(0, 3), [
    { type: "custom", custom: { name: "sql", description: "Run SQL", format: { type: "grammar", grammar: { syntax: "lark", definition: "start: /SELECT .+/" } } } },
    { type: "custom", custom: { name: "note", format: { type: "text" } } },
    { type: "custom", custom: { name: "free" } },
  ]);
  t.same(body.messages.slice(1), [
    { role: "assistant", content: null, tool_calls: [{ id: "call_s", type: "custom", custom: { name: "sql", input: "SELECT 1" } }] },
    { role: "tool", tool_call_id: "call_s", content: "1" },
  ]);
  const choose = (name: string) => toVendorRequest(input({ turns: [user("q")], tools, toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: [name] } }), "m", compat).body.tool_choice;
  t.same(choose("sql"), { type: "custom", custom: { name: "sql" } }, "a custom tool is chosen as one");
  t.same(choose("get_weather"), { type: "function", function: { name: "get_weather" } });
  const own = toVendorRequest(input({ turns: [user("q")], tools: [{ ...tools[0]!, vendorExtras: { openai: { defer_loading: true, custom: { format: { cache: "y" } } } } }] }), "m", compat).body
    .tools![0];
  t.same(
    own,
    { type: "custom", defer_loading: true, custom: { name: "sql", description: "Run SQL", format: { type: "grammar", cache: "y", grammar: { syntax: "lark", definition: "start: /SELECT .+/" } } } },
    "a client's own fields laid over",
  );
});

t.test("JSON output, logprobs, reasoning effort", async (t) => {
  const schema = toVendorRequest(
    input({ turns: [user("q")], config: { responseMimeType: "application/json", responseSchema: { type: "object", properties: { a: { type: "string" } } } } }),
    "m",
    compat,
  ).body;
  t.same(schema.response_format, { type: "json_schema", json_schema: { name: "response", schema: { type: "object", properties: { a: { type: "string" } } }, strict: false } });
  const any = toVendorRequest(input({ turns: [user("q")], config: { responseMimeType: "application/json" } }), "m", compat).body;
  t.same(any.response_format, { type: "json_object" });
  t.match(any.messages[0], { role: "system", content: /JSON/ });
  const lp = toVendorRequest(input({ turns: [user("q")], config: { responseLogprobs: true, logprobs: 3 } }), "m", compat).body;
  t.same([lp.logprobs, lp.top_logprobs], [true, 3]);
  const eff = (thinking: object) => reasoningEffort(input({ config: { thinking } }));
  t.same(
    [
      eff({ budgetTokens: 1024 }),
      eff({ enabled: true, budgetTokens: 20000 }),
      eff({ effort: "max" }),
      eff({ effort: "xhigh" }),
      eff({ effort: "low" }),
      eff({ enabled: false, effort: "high" }),
      eff({ enabled: true }),
    ],
    [undefined, undefined, "high", "high", "low", undefined, undefined],
    "OpenAI-compatible servers: clamped to high",
  );
  const official = (effort: string) => reasoningEffort(input({ config: { thinking: { effort } } }), true);
  t.same([official("xhigh"), official("max"), official("minimal")], ["xhigh", "max", "minimal"], "api.openai.com takes its own levels");
  t.equal(toVendorRequest(input({ turns: [user("q")], config: { thinking: { effort: "xhigh" } } }), "m", { stream: false, official: true }).body.reasoning_effort, "xhigh");
  t.equal(toVendorRequest(input({ turns: [user("q")], config: { thinking: { effort: "xhigh" } } }), "m", compat).body.reasoning_effort, "high");
  const refusals: [Init, string][] = [
    [{ config: { responseModalities: [Modality.AUDIO] } }, "config.response_modalities"],
    [{ config: { speechConfig: {} } }, "config.speech_config"],
    [{ config: { enableEnhancedCivicAnswers: true } }, "config.enable_enhanced_civic_answers"],
    [
      {
        safetySettings: [
          { category: HarmCategory.HARASSMENT, threshold: HarmBlockThreshold.BLOCK_NONE },
          { category: HarmCategory.HARASSMENT, threshold: HarmBlockThreshold.BLOCK_LOW_AND_ABOVE },
        ],
      },
      "safety_settings[1]",
    ],
  ];
  for (const [extra, field] of refusals) {
    const err = t.throws(() => toVendorRequest(input({ turns: [user("q")], ...extra }), "m", compat)) as ConnectError;
    t.equal(errorDetail(err)?.field, field);
  }
  t.ok(toVendorRequest(input({ turns: [user("q")], safetySettings: [{ category: HarmCategory.HARASSMENT, threshold: HarmBlockThreshold.OFF }] }), "m", compat), "block none / off pass as no-ops");
});

t.test("a system turn is a system message at its place; its media is refused; other vendors' newer fields are left out", async (t) => {
  const sys = (...texts: string[]) => ({ role: Role.SYSTEM, parts: texts.map((text) => ({ kind: { case: "text" as const, value: { text } } })) });
  const { body } = toVendorRequest(
    input({
      turns: [user("a"), sys("Be terse.", "Really."), sys(""), user("b")],
      vendorExtras: { anthropic: { future_top_level: 1, thinking: { type: "adaptive", display: "updates" } }, gemini: { futureTopLevel: 2 } },
    }),
    "gpt",
    compat,
  );
  t.same(body.messages, [
    { role: "user", content: "a" },
    { role: "system", content: "Be terse.\n\nReally." },
    { role: "user", content: "b" },
  ]);
  t.notOk("future_top_level" in body || "futureTopLevel" in body || "thinking" in body);
  const e = t.throws(() =>
    toVendorRequest(
      input({ turns: [user("a"), { role: Role.SYSTEM, parts: [{ kind: { case: "media", value: { mimeType: "image/png", source: { case: "data", value: new Uint8Array([1]) } } } }] }] }),
      "gpt",
      compat,
    ),
  ) as ConnectError;
  t.equal(errorDetail(e)?.field, "turns[1].parts[0].media");
  const mcp = t.throws(() => toVendorRequest(input({ turns: [user("a")], vendorExtras: { anthropic: { mcp_servers: [] } } }), "gpt", compat)) as ConnectError;
  t.equal(errorDetail(mcp)?.field, "mcp_servers", "a feature whose absence changes the answer is still refused");
  const prompt = t.throws(() => toVendorRequest(input({ turns: [user("a")], vendorExtras: { "openai-responses": { prompt: { id: "pmpt_1" } } } }), "gpt", compat)) as ConnectError;
  t.equal(errorDetail(prompt)?.field, "prompt", "a stored prompt is Responses-only: refused on Chat Completions");
  const rest = toVendorRequest(input({ turns: [user("a")], vendorExtras: { "openai-responses": { truncation: "auto", future_field: 1 } } }), "gpt", compat).body;
  t.notOk("truncation" in rest || "future_field" in rest, "the other unread Responses fields are left out");
});

t.test("web search: Chat Completions has none; a declared one is left out, a forced one refused", async (t) => {
  const search = { kind: { case: "webSearch" as const, value: { contextSize: "high" } } };
  const fn = { kind: { case: "function" as const, value: { name: "f" } } };
  const body = (init: Init) => toVendorRequest(input({ turns: [user("hi")], ...init }), "gpt-up", compat).body;
  const only = body({ tools: [search], toolChoice: { mode: ToolChoiceMode.AUTO } });
  t.equal(only.tools, undefined, "the only tool: no tools, no choice");
  t.equal(only.tool_choice, undefined);
  const beside = body({ tools: [search, fn], toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: ["web_search", "f"] } });
  t.same(beside.tools, [{ type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } }], "beside a function: the function alone");
  t.same(beside.tool_choice, { type: "function", function: { name: "f" } }, "the choice among them is the function");
  const options = body({ tools: [search], vendorExtras: { openai: { web_search_options: { search_context_size: "high" } } } });
  t.same(options.web_search_options, { search_context_size: "high" }, "a Chat Completions client's web_search_options still go as sent");
  for (const toolChoice of [
    { mode: ToolChoiceMode.ANY, allowedNames: ["web_search"] },
    { mode: ToolChoiceMode.ANY, allowedNames: [] },
  ]) {
    const err = t.throws(() => toVendorRequest(input({ turns: [user("hi")], tools: [search], toolChoice }), "gpt-up", compat)) as ConnectError;
    t.match(err.message, /a tool choice that forces web search is not supported/);
    t.same({ code: err.code, reason: errorDetail(err)?.reason, field: errorDetail(err)?.field }, { code: 3, reason: "unsupported_by_upstream", field: "tool_choice" });
  }
});

t.test("OpenAI's hosted tools and their Responses items: not on Chat Completions", async (t) => {
  const hosted = { kind: { case: "vendor" as const, value: { type: "code_interpreter", vendor: "openai", config: { container: { type: "auto" } } } } };
  const err = t.throws(() => toVendorRequest(input({ turns: [user("hi")], tools: [hosted] }), "gpt-up", compat)) as ConnectError;
  t.same({ reason: errorDetail(err)?.reason, field: errorDetail(err)?.field }, { reason: "unsupported_by_upstream", field: "tools[0]" }, "a hosted tool is refused");
  const chatTool = { kind: { case: "vendor" as const, value: { type: "future_tool", vendor: "openai", config: { x: 1 } } } };
  t.same(toVendorRequest(input({ turns: [user("hi")], tools: [chatTool] }), "gpt-up", compat).body.tools, [{ x: 1, type: "future_tool" }], "a Chat client's tool of a newer type still goes as sent");
  const item = { id: "ci_1", type: "code_interpreter_call", code: "print(1)" };
  const body = toVendorRequest(
    input({
      turns: [
        user("hi"),
        { role: Role.ASSISTANT, parts: [{ vendorExtras: { openai: item } }, { kind: { case: "text", value: { text: "done" } } }] },
        { role: Role.USER, parts: [{ vendorExtras: { openai: { type: "mcp_approval_response", approve: true } } }, { kind: { case: "text", value: { text: "more" } } }] },
      ],
    }),
    "gpt-up",
    compat,
  ).body;
  t.same(
    body.messages.slice(1),
    [
      { role: "assistant", content: "done" },
      { role: "user", content: "more" },
    ],
    "a Responses item is left out of either turn",
  );
});
