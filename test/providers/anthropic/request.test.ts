import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { ChatInputSchema, HarmBlockThreshold, HarmCategory, Modality, Role, ToolChoiceMode, type ChatInput } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { toVendorCountRequest, toVendorRequest } from "../../../src/providers/anthropic/request.js";
import { errorDetail } from "../../../src/core/errors.js";

type Init = MessageInitShape<typeof ChatInputSchema>;
const input = (init: Init): ChatInput => create(ChatInputSchema, { model: "claude-x", ...init });
const user = (text: string) => ({ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text } } }] });

t.test("a plain request", async (t) => {
  const { body, betas } = toVendorRequest(
    input({
      system: [{ kind: { case: "text", value: { text: "be brief" } } }],
      turns: [user("hi")],
      config: { maxOutputTokens: 100, temperature: 0.5, topP: 0.9, topK: 5, stopSequences: ["END"] },
      metadata: { userId: "u1", betas: ["b1", "b2"] },
    }),
    "claude-up",
    { stream: true },
  );
  t.same(body, {
    model: "claude-up",
    max_tokens: 100,
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    system: "be brief",
    metadata: { user_id: "u1" },
    stop_sequences: ["END"],
    stream: true,
    temperature: 0.5,
    top_p: 0.9,
    top_k: 5,
  });
  t.same(betas, ["b1", "b2"]);
});

t.test("max_tokens defaults, temperature is clamped to Anthropic's range", async (t) => {
  const { body } = toVendorRequest(input({ turns: [user("hi")], config: { temperature: 1.7 } }), "m", { stream: false });
  t.equal(body.max_tokens, 8192);
  t.equal(body.temperature, 1);
  t.notOk("stream" in body);
});

t.test("signatures go back only to their issuer", async (t) => {
  const turns = [
    user("q"),
    {
      role: Role.ASSISTANT,
      parts: [
        { kind: { case: "thinking" as const, value: { text: "mine" } }, signature: { issuer: "anthropic", value: "SIG_A" } },
        { kind: { case: "thinking" as const, value: { text: "gemini's" } }, signature: { issuer: "gemini", value: "SIG_G" } },
        { kind: { case: "thinking" as const, value: { text: "unsigned" } } },
        { kind: { case: "redactedThinking" as const, value: { data: "RED_A", issuer: "anthropic" } } },
        { kind: { case: "redactedThinking" as const, value: { data: "RED_X", issuer: "local" } } },
        { kind: { case: "text" as const, value: { text: "answer" } }, signature: { issuer: "gemini", value: "SIG_ON_TEXT" } },
        { kind: { case: "toolCall" as const, value: { id: "call_abc", name: "f", arguments: { a: 1 } } } },
      ],
    },
    { role: Role.USER, parts: [{ kind: { case: "toolResult" as const, value: { callId: "call_abc", name: "f", content: [{ kind: { case: "text" as const, value: { text: "42" } } }] } } }] },
  ];
  const { body } = toVendorRequest(input({ turns }), "m", { stream: false });
  t.same(body.messages[1], {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "mine", signature: "SIG_A" },
      { type: "redacted_thinking", data: "RED_A" },
      { type: "text", text: "answer" },
      { type: "tool_use", id: "call_abc", name: "f", input: { a: 1 } },
    ],
  });
  t.same(body.messages[2], { role: "user", content: [{ type: "tool_result", tool_use_id: "call_abc", content: [{ type: "text", text: "42" }] }] });
  t.notMatch(JSON.stringify(body), /SIG_G|RED_X|SIG_ON_TEXT/);
});

t.test("tool ids outside Anthropic's charset map the same way for the call and its result", async (t) => {
  const turns = [
    user("q"),
    { role: Role.ASSISTANT, parts: [{ kind: { case: "toolCall" as const, value: { id: "call:1/x", name: "f", arguments: {} } } }] },
    { role: Role.USER, parts: [{ kind: { case: "toolResult" as const, value: { callId: "call:1/x", name: "f", structured: { ok: true } } } }] },
  ];
  const { body } = toVendorRequest(input({ turns }), "m", { stream: false });
  const use = body.messages[1]!.content[0] as { id: string };
  const res = body.messages[2]!.content[0] as { tool_use_id: string; content: unknown };
  t.match(use.id, /^toolu_[A-Za-z0-9_]+$/);
  t.equal(res.tool_use_id, use.id);
  t.same(res.content, [{ type: "text", text: '{"ok":true}' }]);
});

t.test("tool results lead a user message, consecutive same-role turns merge", async (t) => {
  const turns = [
    user("q"),
    { role: Role.ASSISTANT, parts: [{ kind: { case: "toolCall" as const, value: { id: "t1", name: "f", arguments: {} } } }] },
    { role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text: "also" } } }, { kind: { case: "toolResult" as const, value: { callId: "t1", isError: true } } }] },
    user("more"),
  ];
  const { body } = toVendorRequest(input({ turns }), "m", { stream: false });
  t.equal(body.messages.length, 3);
  t.same(
    body.messages[2]!.content.map((b) => b.type),
    ["tool_result", "text", "text"],
  );
  t.equal((body.messages[2]!.content[0] as { is_error?: boolean }).is_error, true);
});

t.test("media: images, documents, refusals", async (t) => {
  const media = (mimeType: string, source: { case: "data"; value: Uint8Array } | { case: "uri"; value: string }, extra = {}) => ({
    kind: { case: "media" as const, value: { mimeType, source, ...extra } },
  });
  const { body } = toVendorRequest(
    input({
      turns: [
        {
          role: Role.USER,
          parts: [
            media("image/png", { case: "data", value: new Uint8Array([1, 2, 3]) }),
            media("image/jpeg", { case: "uri", value: "https://x/y.jpg" }),
            media("application/pdf", { case: "data", value: new Uint8Array([4]) }, { name: "Doc", context: "ctx", citations: true }),
            media("text/plain", { case: "data", value: new TextEncoder().encode("plain words") }),
          ],
        },
      ],
    }),
    "m",
    { stream: false },
  );
  t.same(body.messages[0]!.content, [
    { type: "image", source: { type: "base64", media_type: "image/png", data: "AQID" } },
    { type: "image", source: { type: "url", url: "https://x/y.jpg" } },
    { type: "document", source: { type: "base64", media_type: "application/pdf", data: "BA==" }, title: "Doc", context: "ctx", citations: { enabled: true } },
    { type: "document", source: { type: "text", media_type: "text/plain", data: "plain words" } },
  ]);
  const err = t.throws(() =>
    toVendorRequest(input({ turns: [{ role: Role.USER, parts: [media("audio/wav", { case: "data", value: new Uint8Array([1]) })] }] }), "m", { stream: false }),
  ) as ConnectError;
  t.equal(errorDetail(err)?.field, "turns[0].parts[0].media");
  t.equal(errorDetail(err)?.reason, "unsupported_by_upstream");
});

t.test("tools and tool choice", async (t) => {
  const tools = [
    { kind: { case: "function" as const, value: { name: "a", description: "A", parameters: { type: "object", properties: { x: { type: "string" } } } } }, cacheControl: { type: "ephemeral" } },
    { kind: { case: "function" as const, value: { name: "b" } } },
    { kind: { case: "vendor" as const, value: { type: "bash_20250124", name: "bash", config: {} } } },
  ];
  const cases: [ToolChoiceMode, string[], boolean, unknown, string[]][] = [
    [ToolChoiceMode.AUTO, [], false, { type: "auto" }, ["a", "b", "bash"]],
    [ToolChoiceMode.ANY, [], true, { type: "any", disable_parallel_tool_use: true }, ["a", "b", "bash"]],
    [ToolChoiceMode.ANY, ["b"], false, { type: "tool", name: "b" }, ["a", "b", "bash"]],
    [ToolChoiceMode.ANY, ["a", "bash"], false, { type: "any" }, ["a", "bash"]],
    [ToolChoiceMode.NONE, [], false, { type: "none" }, ["a", "b", "bash"]],
  ];
  for (const [mode, allowedNames, disableParallel, want, names] of cases) {
    const { body } = toVendorRequest(input({ turns: [user("q")], tools, toolChoice: { mode, allowedNames, disableParallel } }), "m", { stream: false });
    t.same(body.tool_choice, want, `mode ${mode} ${allowedNames}`);
    t.same(
      body.tools!.map((x) => x.name),
      names,
    );
  }
  const { body } = toVendorRequest(input({ turns: [user("q")], tools }), "m", { stream: false });
  t.same(body.tools![0], { name: "a", description: "A", input_schema: { type: "object", properties: { x: { type: "string" } } }, cache_control: { type: "ephemeral" } });
  t.same(body.tools![1], { name: "b", input_schema: { type: "object", properties: {} } });
  t.same(body.tools![2], { type: "bash_20250124", name: "bash" });
  const e1 = t.throws(() => toVendorRequest(input({ turns: [user("q")], tools: [{ kind: { case: "codeExecution", value: {} } }] }), "m", { stream: false })) as ConnectError;
  t.equal(errorDetail(e1)?.field, "tools[0].code_execution");
  const e2 = t.throws(() =>
    toVendorRequest(input({ turns: [user("q")], tools: [{ kind: { case: "vendor", value: { type: "googleSearch", name: "googleSearch" } } }] }), "m", { stream: false }),
  ) as ConnectError;
  t.equal(errorDetail(e2)?.field, "tools[0]");
});

t.test("custom tools are emulated: a function with one string parameter, calls with {input}", async (t) => {
  const cases: Array<[string, Record<string, string> | undefined, string, string, string]> = [
    [
      "lark grammar",
      { type: "grammar", syntax: "lark", definition: "start: /SELECT .+/" },
      "Run SQL",
      'Run SQL\n\nPut the whole input in the "input" string; it must follow the Lark grammar given in that parameter\'s description.',
      "The tool's whole input as free text, sent as it is (not JSON-encoded). It must follow this Lark grammar:\nstart: /SELECT .+/",
    ],
    [
      "regex grammar",
      { type: "grammar", syntax: "regex", definition: "\\d+" },
      "",
      'Put the whole input in the "input" string; it must follow the regular expression given in that parameter\'s description.',
      "The tool's whole input as free text, sent as it is (not JSON-encoded). It must match this regular expression: \\d+",
    ],
    ["text", { type: "text" }, "Save a note", 'Save a note\n\nPut the whole input, as free text, in the "input" string.', "The tool's whole input as free text, sent as it is (not JSON-encoded)."],
    ["no format", undefined, "", 'Put the whole input, as free text, in the "input" string.', "The tool's whole input as free text, sent as it is (not JSON-encoded)."],
  ];
  for (const [name, format, description, toolDescription, inputDescription] of cases) {
    const tool = { kind: { case: "custom" as const, value: { name: "t", description, ...(format ? { format } : {}) } }, cacheControl: { type: "ephemeral" } };
    const { body, plan } = toVendorRequest(input({ turns: [user("q")], tools: [tool] }), "m", { stream: false });
    t.same(
      body.tools![0],
      {
        name: "t",
        description: toolDescription,
        input_schema: { type: "object", properties: { input: { type: "string", description: inputDescription } }, required: ["input"] },
        cache_control: { type: "ephemeral" },
      },
      name,
    );
    t.same([...plan.customTools], ["t"], `${name}: the plan knows it`);
  }
  const { body } = toVendorRequest(
    input({
      turns: [user("patch it"), { role: Role.ASSISTANT, parts: [{ kind: { case: "toolCall", value: { id: "call_p", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" } } }] }],
      tools: [{ kind: { case: "custom", value: { name: "apply_patch" } } }],
      toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: ["apply_patch"] },
    }),
    "m",
    { stream: false },
  );
  t.same(body.messages[1]!.content, [{ type: "tool_use", id: "call_p", name: "apply_patch", input: { input: "*** Begin Patch\n*** End Patch" } }], "a custom call in history: tool_use with {input}");
  t.same(body.tool_choice, { type: "tool", name: "apply_patch" });
});

t.test("thinking: budgets, adaptive, disabled, effort", async (t) => {
  const th = (thinking: object, extra: { metadata?: { sourceFormat: string } } = {}) =>
    toVendorRequest(input({ turns: [user("q")], config: { maxOutputTokens: 4000, thinking }, ...extra }), "m", { stream: false }).body;
  t.same(th({ enabled: true, budgetTokens: 2000, includeThoughts: true }).thinking, { type: "enabled", budget_tokens: 2000 });
  t.same(th({ budgetTokens: 100 }).thinking, { type: "enabled", budget_tokens: 1024 }, "Gemini-style budget below Anthropic's minimum");
  const big = th({ budgetTokens: 5000 });
  t.same(big.thinking, { type: "enabled", budget_tokens: 5000 });
  t.ok(big.max_tokens > 5000, "max_tokens raised above the budget");
  t.same(th({ enabled: false }).thinking, { type: "disabled" });
  t.same(th({ budgetTokens: 0 }).thinking, { type: "disabled" });
  t.same(th({ enabled: true }, { metadata: { sourceFormat: "messages" } }).thinking, { type: "adaptive" });
  t.same(th({ enabled: true }, { metadata: { sourceFormat: "generate-content" } }).thinking, { type: "enabled", budget_tokens: 2000 });
  t.same(th({ effort: "high", includeThoughts: false }).output_config, { effort: "high" });
  t.same(th({ effort: "xhigh" }).output_config, { effort: "xhigh" }, "xhigh and max are Anthropic's own levels");
  t.same(th({ effort: "minimal" }).output_config, { effort: "low" });
  t.same(th({ enabled: true, display: "omitted" }, { metadata: { sourceFormat: "messages" } }).thinking, { type: "adaptive", display: "omitted" });
  t.same(th({ enabled: true, budgetTokens: 2000, display: "summarized" }).thinking, { type: "enabled", budget_tokens: 2000, display: "summarized" });
  t.same(th({ enabled: true, budgetTokens: 2000, display: "" }).thinking, { type: "enabled", budget_tokens: 2000 }, "no display unless the caller chose one");
  t.same(th({ enabled: false, display: "omitted" }).thinking, { type: "disabled" });
  t.notOk(th({ effort: "high" }).thinking);
});

t.test("thinking is left out when the tool loop's last step has no Anthropic thinking", async (t) => {
  const turns = [
    user("q"),
    {
      role: Role.ASSISTANT,
      parts: [
        { kind: { case: "thinking" as const, value: { text: "g" } }, signature: { issuer: "gemini", value: "G" } },
        { kind: { case: "toolCall" as const, value: { id: "t1", name: "f", arguments: {} } } },
      ],
    },
    { role: Role.USER, parts: [{ kind: { case: "toolResult" as const, value: { callId: "t1", content: [{ kind: { case: "text" as const, value: { text: "r" } } }] } } }] },
  ];
  const { body } = toVendorRequest(input({ turns, config: { thinking: { enabled: true, budgetTokens: 2048 } } }), "m", { stream: false });
  t.notOk(body.thinking);
});

t.test("JSON output uses output_config.format, wrapping non-object roots", async (t) => {
  const obj = toVendorRequest(input({ turns: [user("q")], config: { responseMimeType: "application/json", responseSchema: { type: "object", properties: { a: { type: "number" } } } } }), "m", {
    stream: false,
  });
  t.same(obj.body.output_config, { format: { type: "json_schema", schema: { type: "object", properties: { a: { type: "number" } } } } });
  const en = toVendorRequest(input({ turns: [user("q")], config: { responseMimeType: "text/x.enum", responseSchema: { type: "string", enum: ["A", "B"] } } }), "m", { stream: false });
  t.same(en.body.output_config?.format?.schema, { type: "object", properties: { value: { type: "string", enum: ["A", "B"] } }, required: ["value"], additionalProperties: false });
  t.match(en.plan.json, { kind: "schema", wrapped: true, raw: true });
  const any = toVendorRequest(input({ turns: [user("q")], config: { responseMimeType: "application/json" } }), "m", { stream: false });
  t.match(JSON.stringify(any.body.system), /valid JSON/);
});

t.test("features Anthropic lacks are refused naming the field", async (t) => {
  const cases: [NonNullable<Init["config"]>, string][] = [
    [{ candidateCount: 2 }, "config.candidate_count"],
    [{ responseModalities: [Modality.IMAGE] }, "config.response_modalities"],
    [{ responseLogprobs: true }, "config.response_logprobs"],
    [{ presencePenalty: 0.5 }, "config.presence_penalty"],
    [{ frequencyPenalty: 0.5 }, "config.frequency_penalty"],
    [{ speechConfig: { voiceConfig: {} } }, "config.speech_config"],
    [{ seed: 7n }, "config.seed"],
    [{ enableEnhancedCivicAnswers: true }, "config.enable_enhanced_civic_answers"],
  ];
  for (const [config, field] of cases) {
    const err = t.throws(() => toVendorRequest(input({ turns: [user("q")], config }), "m", { stream: false })) as ConnectError;
    t.equal(errorDetail(err)?.field, field);
    t.match(err.rawMessage, /not supported when the model is served by a anthropic upstream/);
  }
  const safety = t.throws(() =>
    toVendorRequest(input({ turns: [user("q")], safetySettings: [{ category: HarmCategory.DANGEROUS_CONTENT, threshold: HarmBlockThreshold.BLOCK_MEDIUM_AND_ABOVE }] }), "m", { stream: false }),
  ) as ConnectError;
  t.equal(errorDetail(safety)?.field, "safety_settings[0]");
  t.ok(toVendorRequest(input({ turns: [user("q")], safetySettings: [{ category: HarmCategory.DANGEROUS_CONTENT, threshold: HarmBlockThreshold.BLOCK_NONE }] }), "m", { stream: false }));
  const ex = t.throws(() => toVendorRequest(input({ turns: [user("q")], vendorExtras: { openai: { logit_bias: { "1": 2 } } } }), "m", { stream: false })) as ConnectError;
  t.equal(errorDetail(ex)?.field, "logit_bias");
});

t.test("Anthropic vendor extras ride along; count_tokens drops generation fields", async (t) => {
  const i = input({
    turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "x" } }, vendorExtras: { anthropic: { custom_block_field: 1 } } }] }],
    vendorExtras: { anthropic: { service_tier: "auto", container: "c1" } },
    config: { maxOutputTokens: 10, temperature: 0.1 },
  });
  const { body } = toVendorRequest(i, "m", { stream: false });
  t.equal(body.service_tier, "auto");
  t.equal(body.container, "c1");
  t.same(body.messages[0]!.content[0], { custom_block_field: 1, type: "text", text: "x" });
  const count = toVendorCountRequest(i, "m");
  t.notOk("max_tokens" in count);
  t.notOk("temperature" in count);
  t.equal(count.model, "m");
});

t.test("a text part that stands in for a whole Anthropic block goes as the block, in a message and in a tool result", async (t) => {
  const block = { type: "search_result", source: "s", title: "t", content: [{ type: "text", text: "c" }], cache_control: { type: "ephemeral" } };
  const ref = { type: "tool_reference", tool_name: "get_weather" };
  const standIn = (b: Record<string, unknown>, text: string) => ({ kind: { case: "text" as const, value: { text } }, vendorExtras: { anthropic: b as never } });
  const i = input({
    turns: [
      { role: Role.USER, parts: [standIn(block, "Search result: t"), { kind: { case: "text", value: { text: "q" } } }] },
      { role: Role.ASSISTANT, parts: [{ kind: { case: "toolCall", value: { id: "toolu_1", name: "tool_search", arguments: {} } } }] },
      { role: Role.USER, parts: [{ kind: { case: "toolResult", value: { callId: "toolu_1", content: [standIn(ref, "Tool reference: get_weather")] } } }] },
    ],
  });
  const { body } = toVendorRequest(i, "m", { stream: false });
  t.same(body.messages[0]!.content, [block, { type: "text", text: "q" }]);
  t.same(body.messages[2]!.content, [{ type: "tool_result", tool_use_id: "toolu_1", content: [ref] }]);
  t.same((toVendorCountRequest(i, "m").messages as typeof body.messages)[0]!.content[0], block, "count_tokens the same");
});

t.test("executable code from another vendor is shown as text", async (t) => {
  const { body } = toVendorRequest(
    input({
      turns: [
        user("q"),
        {
          role: Role.ASSISTANT,
          parts: [{ kind: { case: "executableCode", value: { language: "PYTHON", code: "print(1)" } } }, { kind: { case: "codeExecutionResult", value: { outcome: 1, output: "1" } } }],
        },
      ],
    }),
    "m",
    { stream: false },
  );
  t.same(body.messages[1]!.content, [
    { type: "text", text: "```python\nprint(1)\n```" },
    { type: "text", text: "Code execution output:\n```\n1\n```" },
  ]);
});

t.test("a Messages client's own fields go back as sent: system turns, message fields, tool fields, newer values", async (t) => {
  const text = (s: string) => ({ kind: { case: "text" as const, value: { text: s } } });
  const { body } = toVendorRequest(
    input({
      turns: [
        user("a"),
        { role: Role.SYSTEM, parts: [text("Be terse.")] },
        { role: Role.SYSTEM, parts: [text("Really.")], vendorExtras: { anthropic: { future_message_field: 1 } } },
        { role: Role.SYSTEM, parts: [text("Again.")] },
        {
          role: Role.USER,
          parts: [
            {
              kind: {
                case: "toolResult",
                value: { callId: "toolu_1", content: [text("r"), { vendorExtras: { anthropic: { type: "future_block", y: 2 } } }, { vendorExtras: { gemini: { futurePart: {} } } }] },
              },
            },
          ],
        },
      ],
      tools: [
        { kind: { case: "function", value: { name: "f", description: "d", parameters: { type: "object" } } }, vendorExtras: { anthropic: { defer_loading: true }, gemini: { behavior: "X" } } },
        { kind: { case: "vendor", value: { type: "future_tool", name: "ft", config: { k: 1 }, vendor: "anthropic" } } },
      ],
      config: { thinking: { enabled: true, includeThoughts: true } },
      metadata: { sourceFormat: "messages", userId: "u" },
      vendorExtras: { anthropic: { thinking: { type: "adaptive", display: "updates" }, metadata: { future_meta: "m" }, output_config: { effort: "ultra" }, tool_choice: { type: "future" } } },
    }),
    "m",
    { stream: false },
  );
  t.same(
    body.messages.map((m) => [m.role, m.content.length, m.future_message_field]),
    [
      ["user", 1, undefined],
      ["system", 1, undefined],
      ["system", 1, 1],
      ["system", 1, undefined],
      ["user", 1, undefined],
    ],
    "a message with its own fields is not merged with its neighbours",
  );
  t.same(body.messages[4]!.content[0], {
    type: "tool_result",
    tool_use_id: "toolu_1",
    content: [
      { type: "text", text: "r" },
      { type: "future_block", y: 2 },
    ],
  });
  t.same(body.tools, [
    { defer_loading: true, name: "f", description: "d", input_schema: { type: "object" } },
    { k: 1, type: "future_tool", name: "ft" },
  ]);
  t.same(body.thinking, { type: "adaptive", display: "updates" });
  t.same(body.metadata, { user_id: "u", future_meta: "m" });
  t.same(body.output_config, { effort: "ultra" });
  t.same(body.tool_choice, { type: "future" });

  // Thinking left out mid tool loop (the last step came from elsewhere) stays out, newer display or not.
  const loop = toVendorRequest(
    input({
      turns: [
        user("q"),
        {
          role: Role.ASSISTANT,
          parts: [
            { kind: { case: "thinking", value: { text: "t" } }, signature: { issuer: "gemini", value: "g" } },
            { kind: { case: "toolCall", value: { id: "toolu_1", name: "f", arguments: {} } } },
          ],
        },
        { role: Role.USER, parts: [{ kind: { case: "toolResult", value: { callId: "toolu_1", content: [text("r")] } } }] },
      ],
      tools: [{ kind: { case: "function", value: { name: "f", parameters: { type: "object" } } } }],
      config: { thinking: { enabled: true, includeThoughts: true } },
      metadata: { sourceFormat: "messages" },
      vendorExtras: { anthropic: { thinking: { type: "adaptive", display: "updates" } } },
    }),
    "m",
    { stream: false },
  );
  t.notOk("thinking" in loop.body);
  const newer = toVendorRequest(input({ turns: [user("q")], metadata: { sourceFormat: "messages" }, vendorExtras: { anthropic: { thinking: { type: "future_mode" } } } }), "m", { stream: false });
  t.same(newer.body.thinking, { type: "future_mode" }, "a thinking type the neutral model has no form for: as sent");
  const gemini = t.throws(() =>
    toVendorRequest(input({ turns: [user("q")], tools: [{ kind: { case: "vendor", value: { type: "future_tool_20270101", name: "x", vendor: "gemini" } } }] }), "m", { stream: false }),
  ) as ConnectError;
  t.equal(errorDetail(gemini)?.field, "tools[0]", "another vendor's tool is refused whatever its type looks like");
});

t.test("a Responses client's unread fields are left out; a stored prompt is refused", async (t) => {
  const body = toVendorRequest(input({ turns: [user("hi")], vendorExtras: { "openai-responses": { truncation: "auto", metadata: { k: "v" } } } }), "claude-up", { stream: false }).body as Record<
    string,
    unknown
  >;
  t.notOk("truncation" in body);
  t.notOk((body.metadata as Record<string, unknown> | undefined)?.k, "metadata is not Anthropic's");
  const e = t.throws(() => toVendorRequest(input({ turns: [user("hi")], vendorExtras: { "openai-responses": { prompt: { id: "pmpt_1" } } } }), "claude-up", { stream: false })) as ConnectError;
  t.equal(errorDetail(e)?.field, "prompt");
  t.equal(errorDetail(e)?.reason, "unsupported_by_upstream");
});
