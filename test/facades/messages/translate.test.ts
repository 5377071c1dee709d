import t from "tap";
import { create } from "@bufbuild/protobuf";
import { BlockReason, FinishReason, GenerateResponseSchema, PartSchema, Role, SignatureSchema, ToolChoiceMode, UsageSchema } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { encodeSignature } from "../../../src/core/chat/signature-codec.js";
import { fromCoreMessage, fromCorePart, stopReasonOf, toCoreChatInput, usageOf } from "../../../src/facades/messages/translate.js";
import * as wire from "../../../src/facades/messages/wire.js";

const ctx = { betas: ["b1", "b2"], requestId: "req_1" };
const parse = (body: unknown) => wire.messagesRequest.parse(body);

t.test("toCore: fields, merge of consecutive same-role messages, continuation", async (t) => {
  const { input } = toCoreChatInput(
    parse({
      model: "claude-x",
      max_tokens: 100,
      system: "be brief",
      temperature: 0.5,
      top_p: 0.9,
      top_k: 5,
      stop_sequences: ["END"],
      metadata: { user_id: "u-1" },
      service_tier: "auto",
      messages: [
        { role: "user", content: "alpha" },
        { role: "user", content: [{ type: "text", text: "beta", cache_control: { type: "ephemeral", ttl: "1h" } }] },
        { role: "assistant", content: "Sure" },
      ],
    }),
    ctx,
  );
  t.equal(input.model, "claude-x");
  t.equal(input.system[0]?.kind.case, "text");
  t.equal(input.turns.length, 2, "two user messages merge into one turn");
  t.equal(input.turns[0]!.role, Role.USER);
  t.same(
    input.turns[0]!.parts.map((p) => (p.kind.case === "text" ? p.kind.value.text : "")),
    ["alpha", "beta"],
  );
  t.equal(input.turns[0]!.parts[1]!.cacheControl?.ttl, "1h");
  t.equal(input.turns[1]!.role, Role.ASSISTANT, "final assistant message is the last turn (continued)");
  t.equal(input.config?.maxOutputTokens, 100);
  t.equal(input.config?.temperature, 0.5);
  t.equal(input.config?.topP, 0.9);
  t.equal(input.config?.topK, 5);
  t.same(input.config?.stopSequences, ["END"]);
  t.equal(input.metadata?.userId, "u-1");
  t.same(input.metadata?.betas, ["b1", "b2"]);
  t.equal(input.metadata?.sourceFormat, "messages");
  t.same(input.vendorExtras.anthropic, { service_tier: "auto" }, "unknown top-level fields go to vendor_extras");
});

t.test("toCore: tools, tool choice, tool round trip and media", async (t) => {
  const png = Buffer.from([1, 2, 3]).toString("base64");
  const { input, clientField } = toCoreChatInput(
    parse({
      model: "m",
      max_tokens: 10,
      tools: [
        { name: "get_weather", description: "w", input_schema: { type: "object", properties: { city: { type: "string" } } } },
        { type: "bash_20250124", name: "bash" },
        { type: "computer_20241022", name: "computer", display_width_px: 800, display_height_px: 600 },
      ],
      tool_choice: { type: "tool", name: "get_weather", disable_parallel_tool_use: true },
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
            { type: "text", text: "hi" },
          ],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "sunny", is_error: false },
            { type: "document", source: { type: "text", media_type: "text/plain", data: "doc" }, title: "T" },
          ],
        },
      ],
    }),
    ctx,
  );
  t.equal(input.tools[0]!.kind.case, "function");
  t.same(input.tools[0]!.kind.value && "parameters" in input.tools[0]!.kind.value ? input.tools[0]!.kind.value.parameters : null, { type: "object", properties: { city: { type: "string" } } });
  const bash = input.tools[1]!.kind;
  t.equal(bash.case, "vendor");
  t.equal(bash.case === "vendor" && bash.value.type, "bash_20250124");
  const computer = input.tools[2]!.kind;
  t.same(computer.case === "vendor" && computer.value.config, { display_width_px: 800, display_height_px: 600 });
  t.equal(input.toolChoice?.mode, ToolChoiceMode.ANY);
  t.same(input.toolChoice?.allowedNames, ["get_weather"]);
  t.equal(input.toolChoice?.disableParallel, true);
  const media = input.turns[0]!.parts[0]!.kind;
  t.equal(media.case, "media");
  t.same(media.case === "media" && media.value.source.case === "data" ? [...media.value.source.value] : null, [1, 2, 3]);
  t.equal(media.case === "media" && media.value.mimeType, "image/png");
  const result = input.turns[2]!.parts[0]!.kind;
  t.equal(result.case, "toolResult");
  t.equal(result.case === "toolResult" && result.value.name, "get_weather", "the tool name comes from the earlier tool_use");
  t.equal(result.case === "toolResult" && result.value.callId, "toolu_1");
  const doc = input.turns[2]!.parts[1]!.kind;
  t.equal(doc.case === "media" && doc.value.name, "T");
  t.equal(clientField("turns[2].parts[1].signature"), "messages.2.content.1.signature");
  t.equal(clientField("config.max_output_tokens"), "max_tokens");
  t.equal(clientField("tools[1].name"), "tools.1.name");
});

t.test("toCore: thinking display and effort", async (t) => {
  const th = (body: object) => toCoreChatInput(parse({ model: "m", max_tokens: 4096, messages: [{ role: "user", content: "q" }], ...body }), ctx).input.config?.thinking;
  const pick = (c: ReturnType<typeof th>) => c && { enabled: c.enabled, include: c.includeThoughts, display: c.display, effort: c.effort };
  t.same(pick(th({ thinking: { type: "adaptive", display: "omitted" } })), { enabled: true, include: false, display: "omitted", effort: "" }, "omitted: thoughts not returned");
  t.same(pick(th({ thinking: { type: "enabled", budget_tokens: 1024, display: "summarized" } })), { enabled: true, include: true, display: "summarized", effort: "" });
  t.same(pick(th({ thinking: { type: "adaptive" }, output_config: { effort: "xhigh" } })), { enabled: true, include: true, display: "", effort: "xhigh" });
  t.same(pick(th({ output_config: { effort: "max" } })), { enabled: undefined, include: false, display: "", effort: "max" });
});

t.test("toCore: thinking and signatures keep their issuer", async (t) => {
  const localSig = encodeSignature(create(SignatureSchema, { issuer: "local", value: "hmac==" }), "anthropic");
  const redacted = encodeSignature(create(SignatureSchema, { issuer: "gemini", value: "opaque" }), "anthropic");
  const { input, clientField } = toCoreChatInput(
    parse({
      model: "m",
      max_tokens: 4096,
      thinking: { type: "enabled", budget_tokens: 2048 },
      messages: [
        { role: "user", content: "q" },
        { role: "user", content: "q2" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: localSig },
            { type: "thinking", thinking: "raw", signature: "EqQBraw" },
            { type: "thinking", thinking: "unsigned", signature: "" },
            { type: "redacted_thinking", data: redacted },
          ],
        },
        { role: "user", content: "go on" },
      ],
    }),
    ctx,
  );
  t.same(input.config?.thinking && { enabled: input.config.thinking.enabled, budget: input.config.thinking.budgetTokens, include: input.config.thinking.includeThoughts }, {
    enabled: true,
    budget: 2048,
    include: true,
  });
  const parts = input.turns[1]!.parts;
  t.same([parts[0]!.signature?.issuer, parts[0]!.signature?.value], ["local", "hmac=="]);
  t.same([parts[1]!.signature?.issuer, parts[1]!.signature?.value], ["anthropic", "EqQBraw"], "an unwrapped signature is Anthropic's own");
  t.equal(parts[2]!.signature, undefined, "an empty signature is no signature");
  const r = parts[3]!.kind;
  t.same(r.case === "redactedThinking" && [r.value.issuer, r.value.data], ["gemini", "opaque"]);
  t.equal(clientField("turns[1].parts[0].signature"), "messages.2.content.0.signature", "field paths survive the merge of messages 0 and 1");
  const disabled = toCoreChatInput(parse({ model: "m", max_tokens: 10, thinking: { type: "disabled" }, messages: [{ role: "user", content: "x" }] }), ctx);
  t.equal(disabled.input.config?.thinking?.enabled, false);
});

t.test("toCore: structured output and tool_choice none", async (t) => {
  const { input } = toCoreChatInput(
    parse({
      model: "m",
      max_tokens: 10,
      tools: [{ name: "a", input_schema: { type: "object" } }],
      tool_choice: { type: "none" },
      output_config: { format: { type: "json_schema", schema: { type: "object" } } },
      messages: [{ role: "user", content: "x" }],
    }),
    ctx,
  );
  t.equal(input.toolChoice?.mode, ToolChoiceMode.NONE);
  t.equal(input.config?.responseMimeType, "application/json");
  t.same(input.config?.responseSchema, { type: "object" });
});

t.test("stop reasons", async (t) => {
  const table: [FinishReason, boolean, string][] = [
    [FinishReason.STOP, false, "end_turn"],
    [FinishReason.STOP, true, "tool_use"],
    [FinishReason.MAX_TOKENS, false, "max_tokens"],
    [FinishReason.STOP_SEQUENCE, false, "stop_sequence"],
    [FinishReason.TOOL_USE, true, "tool_use"],
    [FinishReason.SAFETY, false, "refusal"],
    [FinishReason.PROHIBITED_CONTENT, false, "refusal"],
    [FinishReason.PAUSE_TURN, false, "pause_turn"],
    [FinishReason.CONTEXT_WINDOW_EXCEEDED, false, "model_context_window_exceeded"],
    [FinishReason.UNSPECIFIED, false, "end_turn"],
  ];
  for (const [f, tool, want] of table) t.equal(stopReasonOf(f, tool), want, `${FinishReason[f]} tool=${tool}`);
});

t.test("fromCore: message with every block kind and usage", async (t) => {
  const resp = create(GenerateResponseSchema, {
    id: "msg_1",
    model: "claude-x",
    usage: create(UsageSchema, { inputTokens: 10n, outputTokens: 7n, cacheReadTokens: 2n, cacheWriteTokens: 3n }),
    candidates: [
      {
        index: 0,
        finishReason: FinishReason.STOP,
        parts: [
          create(PartSchema, { kind: { case: "thinking", value: { text: "hmm" } }, signature: { issuer: "local", value: "v" } }),
          create(PartSchema, { kind: { case: "redactedThinking", value: { data: "EmwK", issuer: "anthropic" } } }),
          create(PartSchema, { kind: { case: "text", value: { text: "Hello" } } }),
          create(PartSchema, { kind: { case: "toolCall", value: { id: "toolu_1", name: "f", arguments: { a: 1 } } } }),
          create(PartSchema, { kind: { case: "media", value: { mimeType: "image/png" } } }),
        ],
      },
    ],
  });
  const m = fromCoreMessage(resp, { id: "x", model: "y" });
  t.same(m, {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-x",
    content: [
      { type: "thinking", thinking: "hmm", signature: Buffer.from("omnigate:local:v").toString("base64") },
      { type: "redacted_thinking", data: "EmwK" },
      { type: "text", text: "Hello" },
      { type: "tool_use", id: "toolu_1", name: "f", input: { a: 1 } },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 7, cache_creation_input_tokens: 3, cache_read_input_tokens: 2 },
  });
});

t.test("fromCore: a blocked prompt is a refusal with empty content", async (t) => {
  const resp = create(GenerateResponseSchema, { id: "", model: "", promptFeedback: { blockReason: BlockReason.SAFETY }, usage: { inputTokens: 4n, outputTokens: 1n } });
  const m = fromCoreMessage(resp, { id: "msg_fallback", model: "claude-x" });
  t.equal(m.id, "msg_fallback");
  t.equal(m.model, "claude-x");
  t.same(m.content, []);
  t.equal(m.stop_reason, "refusal");
  t.equal(m.stop_details?.type, "refusal");
});

t.test("fromCore: stop sequence and code parts", async (t) => {
  const resp = create(GenerateResponseSchema, {
    candidates: [{ index: 0, finishReason: FinishReason.STOP_SEQUENCE, stopSequence: "END", parts: [create(PartSchema, { kind: { case: "text", value: { text: "a" } } })] }],
  });
  const m = fromCoreMessage(resp, { id: "i", model: "m" });
  t.equal(m.stop_reason, "stop_sequence");
  t.equal(m.stop_sequence, "END");
  t.same(fromCorePart(create(PartSchema, { kind: { case: "executableCode", value: { language: "PYTHON", code: "print(1)" } } })), { type: "text", text: "```python\nprint(1)\n```" });
  const empty = fromCoreMessage(create(GenerateResponseSchema, { candidates: [{ index: 0, parts: [create(PartSchema, { kind: { case: "text", value: { text: "" } } })] }] }), { id: "i", model: "m" });
  t.same(empty.content, [], "an empty text part is not a block");
  t.same(usageOf(undefined), { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
});

t.test("toolsets: a nameless vendor tool in, browser state as a stand-in, and a member's call back out with its toolset_name", async (t) => {
  const state = { type: "browser_state", tabs: [{ tab_id: "1", url: "https://a.test/", title: "A", active: true }] };
  const { input } = toCoreChatInput(
    parse({
      model: "claude-x",
      max_tokens: 10,
      tools: [{ type: "browser_toolset_20260801", configs: { navigate: { defer_loading: false } }, cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: "Open a.test" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "navigate", input: { url: "https://a.test/" }, toolset_name: "browser" }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "done" }, state] }] },
      ],
    }),
    ctx,
  );
  const tool = input.tools[0]!;
  t.equal(tool.kind.case, "vendor");
  t.same(
    tool.kind.case === "vendor" && { type: tool.kind.value.type, name: tool.kind.value.name, config: tool.kind.value.config },
    { type: "browser_toolset_20260801", name: "", config: { configs: { navigate: { defer_loading: false } } } },
    "a toolset has no name; its configs travel as the tool's config",
  );
  t.equal(tool.cacheControl?.type, "ephemeral");
  const call = input.turns[1]!.parts[0]!;
  t.same(call.vendorExtras.anthropic, { toolset_name: "browser" }, "a member's call keeps its toolset_name for Anthropic");
  const tr = input.turns[2]!.parts[0]!.kind;
  const inner = tr.case === "toolResult" ? tr.value.content[1]! : undefined;
  t.equal(inner?.kind.case === "text" && inner.kind.value.text, 'Browser state: {"tabs":[{"tab_id":"1","url":"https://a.test/","title":"A","active":true}]}', "others read the browser state as text");
  t.same(inner?.vendorExtras.anthropic, state, "Anthropic gets it as it came");

  const out = fromCorePart(
    create(PartSchema, {
      kind: { case: "toolCall", value: { id: "toolu_2", name: "left_click", arguments: { ref: "e1" } } },
      vendorExtras: { anthropic: { toolset_name: "browser", caller: { type: "direct" } } },
    }),
  );
  t.same(
    out,
    { type: "tool_use", id: "toolu_2", name: "left_click", input: { ref: "e1" }, toolset_name: "browser", caller: { type: "direct" } },
    "an Anthropic call's own fields go back to the client",
  );
  const spoof = fromCorePart(
    create(PartSchema, { kind: { case: "toolCall", value: { id: "toolu_3", name: "f", arguments: {} } }, vendorExtras: { anthropic: { id: "other", name: "g" }, gemini: { thoughtSignature: "x" } } }),
  );
  t.same(spoof, { type: "tool_use", id: "toolu_3", name: "f", input: {} }, "extras never replace the call's own fields, and another vendor's never show");
});

t.test("toCore: a content document is a text part carrying the whole block for Anthropic", async (t) => {
  const img = { type: "image", source: { type: "url", url: "https://x.test/a.png" } };
  const blocks = {
    type: "document",
    source: { type: "content", content: [{ type: "text", text: "Clause 1." }, img, { type: "text", text: "Clause 2." }] },
    title: "Terms",
    context: "2026 edition",
    citations: { enabled: true },
  };
  const plain = { type: "document", source: { type: "content", content: "Just text." } };
  const { input, clientField } = toCoreChatInput(
    parse({
      model: "claude-x",
      max_tokens: 10,
      messages: [
        { role: "user", content: [blocks, plain] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "fetch", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ ...plain, title: "Fetched" }] }] },
      ],
    }),
    ctx,
  );
  const [a, b] = input.turns[0]!.parts;
  t.equal(a!.kind.case, "text");
  t.equal(
    a!.kind.case === "text" && a!.kind.value.text,
    "Document: Terms\nContext: 2026 edition\n\nClause 1.\n\nClause 2.",
    "others read its text blocks under its title and context; the image has no place in a text",
  );
  t.same(a!.vendorExtras.anthropic, blocks, "Anthropic gets the block as it came, image and citations included");
  t.equal(b!.kind.case === "text" && b!.kind.value.text, "Just text.", "a string content is the text itself");
  t.same(b!.vendorExtras.anthropic, plain);
  const tr = input.turns[2]!.parts[0]!.kind;
  const inner = tr.case === "toolResult" ? tr.value.content[0]! : undefined;
  t.equal(inner?.kind.case === "text" && inner.kind.value.text, "Document: Fetched\n\nJust text.", "inside a tool result too");
  t.same(inner?.vendorExtras.anthropic, { ...plain, title: "Fetched" });
  t.equal(clientField("turns[0].parts[1]"), "messages.0.content.1");
});

t.test("toCore: a search result or tool reference is a text part carrying the whole block for Anthropic", async (t) => {
  const result = {
    type: "search_result",
    source: "https://x.test/a",
    title: "A",
    content: [
      { type: "text", text: "one" },
      { type: "text", text: "two" },
    ],
    citations: { enabled: true },
  };
  const { input, clientField } = toCoreChatInput(
    parse({
      model: "claude-x",
      max_tokens: 10,
      messages: [
        { role: "user", content: [result] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "tool_search", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "tool_reference", tool_name: "get_weather" }, result] }] },
      ],
    }),
    ctx,
  );
  const p = input.turns[0]!.parts[0]!;
  t.equal(p.kind.case, "text");
  t.equal(p.kind.case === "text" && p.kind.value.text, "Search result: A\nSource: https://x.test/a\n\none\n\ntwo");
  t.same(p.vendorExtras.anthropic, result, "the block as it came, for Anthropic");
  const tr = input.turns[2]!.parts[0]!.kind;
  t.equal(tr.case, "toolResult");
  const content = tr.case === "toolResult" ? tr.value.content : [];
  t.same(
    content.map((c) => (c.kind.case === "text" ? c.kind.value.text : "")),
    ["Tool reference: get_weather", "Search result: A\nSource: https://x.test/a\n\none\n\ntwo"],
  );
  t.same(content[0]!.vendorExtras.anthropic, { type: "tool_reference", tool_name: "get_weather" });
  t.equal(clientField("turns[0].parts[0]"), "messages.0.content.0", "errors still name the client's block");
});

t.test("toCore: values the gateway does not know ride in vendor_extras; the neutral fields keep the known ones", async (t) => {
  const base = { model: "claude-x", max_tokens: 2000, messages: [{ role: "user", content: "q" }] };
  const known = toCoreChatInput(
    parse({
      ...base,
      thinking: { type: "adaptive", display: "summarized" },
      output_config: { effort: "high" },
      tools: [{ name: "f", input_schema: { type: "object" } }],
      tool_choice: { type: "auto" },
    }),
    ctx,
  ).input;
  t.same(known.vendorExtras, {}, "nothing newer: no extras");
  t.equal(known.config?.thinking?.display, "summarized");
  t.equal(known.config?.thinking?.effort, "high");

  const newer = toCoreChatInput(
    parse({
      ...base,
      thinking: { type: "enabled", budget_tokens: 1024, display: "updates" },
      output_config: { effort: "ultra", format: { type: "json_schema", schema: { type: "object" }, strict: true } },
      tools: [{ name: "f", input_schema: { type: "object" } }],
      tool_choice: { type: "tool", name: "f", future_flag: true },
    }),
    ctx,
  ).input;
  t.same(newer.vendorExtras.anthropic, {
    thinking: { type: "enabled", budget_tokens: 1024, display: "updates" },
    tool_choice: { type: "tool", name: "f", future_flag: true },
    output_config: { effort: "ultra", format: { strict: true } },
  });
  t.equal(newer.config?.thinking?.display, "", "a newer display: none in the neutral model");
  t.equal(newer.config?.thinking?.includeThoughts, true);
  t.equal(newer.config?.thinking?.effort, "", "a newer effort: none");
  t.equal(newer.config?.thinking?.budgetTokens, 1024);
  t.same(newer.config?.responseSchema, { type: "object" }, "the schema still maps");
  t.same(newer.toolChoice?.allowedNames, ["f"], "the known choice still maps");

  const opaque = toCoreChatInput(parse({ ...base, thinking: { type: "future_mode" }, tool_choice: { type: "future" }, output_config: { format: { type: "regex", pattern: "a" } } }), ctx).input;
  t.notOk(opaque.config?.thinking, "a newer thinking type: no neutral thinking");
  t.notOk(opaque.toolChoice, "a newer tool_choice: no neutral choice");
  t.notOk(opaque.config?.responseMimeType, "a newer format: no JSON mode");
  t.same(opaque.vendorExtras.anthropic, { thinking: { type: "future_mode" }, tool_choice: { type: "future" }, output_config: { format: { type: "regex", pattern: "a" } } });
});

t.test("toCore: a system message is a system turn at its place; a message with its own fields is a turn of its own", async (t) => {
  const { input, clientField } = toCoreChatInput(
    parse({
      model: "claude-x",
      max_tokens: 100,
      messages: [
        { role: "user", content: "a" },
        { role: "system", content: "s1" },
        { role: "system", content: "s2" },
        { role: "user", content: "b", future_field: 1 },
        {
          role: "user",
          content: [
            { type: "text", text: "c" },
            { type: "future_block_2027", x: 1 },
          ],
        },
      ],
    }),
    ctx,
  );
  t.same(
    input.turns.map((x) => [x.role, x.parts.length]),
    [
      [Role.USER, 1],
      [Role.SYSTEM, 2],
      [Role.USER, 1],
      [Role.USER, 2],
    ],
  );
  t.same(input.turns[2]!.vendorExtras.anthropic, { future_field: 1 });
  t.same(input.turns[3]!.parts[1]!.vendorExtras.anthropic, { type: "future_block_2027", x: 1 }, "a newer block: whole, no kind");
  t.equal(input.turns[3]!.parts[1]!.kind.case, undefined);
  t.equal(clientField("turns[3].parts[1]"), "messages.4.content.1", "errors still name the client's field");
});
