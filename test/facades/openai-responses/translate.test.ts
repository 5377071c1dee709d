// Request translation, Responses -> neutral: every input item type, parallel
// calls and their outputs, sealed reasoning (ours, foreign, altered),
// compaction, namespaces and hosted tools, tool_choice and text.format forms,
// what rides in vendor_extras.openai, what is left out, the client's field
// paths for core errors, and the ResponseMeta.
import t, { type Test } from "tap";
import { ConnectError } from "@connectrpc/connect";
import { create } from "../../../src/core/proto/create.js";
import { PartSchema, Role, ToolChoiceMode, type ChatInput, type Part, type Turn } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { errorDetail } from "../../../src/core/errors.js";
import { sealer, sealParts } from "../../../src/facades/openai-responses/seal.js";
import { HANDOFF_PROMPT, responseMeta, SUMMARY_PREFIX, toCoreChatInput, type CoreRequest } from "../../../src/facades/openai-responses/translate.js";
import * as wire from "../../../src/facades/openai-responses/wire.js";

const seal = sealer("test-secret");
const ctx = { requestId: "req_1", sealer: seal };
const parse = (body: unknown) => wire.responsesRequest.parse(body);
const core = (body: Record<string, unknown>): CoreRequest => toCoreChatInput(parse({ model: "gpt-x", ...body }), ctx);
const inputOf = (body: Record<string, unknown>): ChatInput => core(body).input;
const textOf = (p: Part | undefined) => (p?.kind.case === "text" ? p.kind.value.text : undefined);
const kinds = (turn: Turn | undefined) => turn?.parts.map((p) => p.kind.case ?? "none");
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** The 400 a translation throws: its message, reason and field. */
function refusal(t: Test, body: Record<string, unknown>): { message: string; reason: string; field: string } {
  try {
    core(body);
  } catch (err) {
    t.ok(err instanceof ConnectError, "a ConnectError");
    const e = err as ConnectError;
    const d = errorDetail(e);
    return { message: e.rawMessage, reason: d?.reason ?? "", field: d?.field ?? "" };
  }
  t.fail("expected a refusal");
  return { message: "", reason: "", field: "" };
}

t.test("a string input is one user turn; settings map to the neutral config", async (t) => {
  const input = inputOf({
    input: "hi",
    max_output_tokens: 100,
    temperature: 0.5,
    top_p: 0.9,
    safety_identifier: "s-1",
    user: "u-1",
    prompt_cache_key: "thread-1",
    prompt_cache_retention: "24h",
    service_tier: "flex",
    store: false,
    truncation: "auto",
    metadata: { k: "v" },
    include: ["reasoning.encrypted_content"],
    client_metadata: { a: 1 },
    future_field: 1,
  });
  t.equal(input.turns.length, 1);
  t.equal(input.turns[0]!.role, Role.USER);
  t.equal(textOf(input.turns[0]!.parts[0]), "hi");
  const c = input.config!;
  t.equal(c.maxOutputTokens, 100);
  t.equal(c.temperature, 0.5);
  t.equal(c.topP, 0.9);
  t.equal(input.metadata?.userId, "s-1", "safety_identifier wins over user");
  t.equal(input.metadata?.sourceFormat, "openai-responses");
  t.equal(input.metadata?.requestId, "req_1");
  t.same(input.vendorExtras.openai, { prompt_cache_key: "thread-1", prompt_cache_retention: "24h", service_tier: "flex" }, "Chat Completions-shaped: only what Chat Completions has");
  t.same(
    input.vendorExtras["openai-responses"],
    { truncation: "auto", metadata: { k: "v" }, client_metadata: { a: 1 }, future_field: 1 },
    "what the translation does not read, as sent, for a Responses upstream",
  );
  t.equal(inputOf({ input: "hi", user: "u-2" }).metadata?.userId, "u-2");
  t.same(inputOf({ input: "hi", stream: true, tools: null, text: null, reasoning: null }).vendorExtras, {}, "nulls are absent values");
});

t.test("text.format and verbosity", async (t) => {
  const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false };
  const js = inputOf({ input: "x", text: { format: { type: "json_schema", name: "codex_output_schema", schema, strict: true }, verbosity: "low" } });
  t.equal(js.config?.responseMimeType, "application/json");
  t.same(js.config?.responseSchema, schema);
  t.same(js.vendorExtras.openai, { response_format: { type: "json_schema", json_schema: { name: "codex_output_schema", strict: true } }, verbosity: "low" }, "Chat's nested shape");
  const jo = inputOf({ input: "x", text: { format: { type: "json_object" } } });
  t.equal(jo.config?.responseMimeType, "application/json");
  t.notOk(jo.config?.responseSchema);
  t.equal(inputOf({ input: "x", text: { format: { type: "text" } } }).config?.responseMimeType, "");
  t.equal(inputOf({ input: "x", text: { format: { type: "future_format" } } }).config?.responseMimeType, "", "a newer format is left out");
  t.same(inputOf({ input: "x", text: {} }).vendorExtras, {}, "LangChain's text:{}");
});

t.test("reasoning: effort, summary, and the thoughts encrypted reasoning needs", async (t) => {
  const th = (body: Record<string, unknown>) => inputOf({ input: "x", ...body }).config?.thinking;
  t.match(th({ reasoning: { effort: "high" } }), { enabled: true, effort: "high", includeThoughts: false });
  t.match(th({ reasoning: { effort: "medium", summary: "auto" } }), { enabled: true, effort: "medium", includeThoughts: true });
  t.match(th({ reasoning: { effort: "low" }, include: ["reasoning.encrypted_content"] }), { enabled: true, includeThoughts: true }, "sealed reasoning needs the thoughts");
  t.match(th({ reasoning: { summary: "detailed" } }), { includeThoughts: true });
  t.equal(th({ reasoning: { summary: "detailed" } })?.enabled, undefined, "no effort: the model's default");
  t.match(th({ reasoning: { effort: "none" } }), { enabled: false, includeThoughts: false });
  t.same(inputOf({ input: "x", reasoning: { effort: "none" } }).vendorExtras.openai, { reasoning_effort: "none" });
  const newer = inputOf({ input: "x", reasoning: { effort: "ultra" } });
  t.notOk(newer.config?.thinking, "a newer effort says nothing to other vendors");
  t.same(newer.vendorExtras.openai, { reasoning_effort: "ultra" }, "and goes to OpenAI as sent");
  t.notOk(th({}), "no reasoning, no thinking setting");
});

t.test("logprobs come back only when included", async (t) => {
  const asked = inputOf({ input: "x", include: ["message.output_text.logprobs"], top_logprobs: 3 }).config!;
  t.equal(asked.responseLogprobs, true);
  t.equal(asked.logprobs, 3);
  t.notOk(inputOf({ input: "x", top_logprobs: 3 }).config?.responseLogprobs);
});

t.test("instructions and system/developer messages; messages with and without type", async (t) => {
  const input = inputOf({
    instructions: "be brief",
    input: [
      { type: "message", role: "developer", content: "codex rules", id: "msg_1", internal_chat_message_metadata_passthrough: {} },
      { role: "system", content: [{ type: "input_text", text: "more rules" }] },
      { type: "additional_tools", role: "developer", tools: [] },
      {
        role: "user",
        content: [
          { type: "input_text", text: "hello" },
          { type: "input_audio", input_audio: {} },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "output_text", text: "hi", annotations: [] },
          { type: "refusal", refusal: "no" },
        ],
        phase: "final_answer",
      },
      { type: "message", role: "developer", content: "mid" },
      { role: "user", content: "again" },
    ],
  });
  t.same(
    input.system.map((p) => textOf(p)),
    ["be brief", "codex rules", "more rules"],
    "instructions, then the leading system and developer messages",
  );
  t.same(
    input.turns.map((x) => x.role),
    [Role.USER, Role.ASSISTANT, Role.SYSTEM, Role.USER],
  );
  t.same(input.turns[0]!.parts.map(textOf), ["hello"], "a part of an unknown type is left out");
  t.same(input.turns[1]!.parts.map(textOf), ["hi", "no"]);
  t.same(input.turns[1]!.parts[1]!.vendorExtras.openai, { type: "refusal", refusal: "no" }, "a refusal reads as text, and as Chat's refusal part to OpenAI");
  t.same(input.turns[2]!.parts.map(textOf), ["mid"], "a later developer message is a system turn in place");
  t.same(input.turns[0]!.vendorExtras, {}, "item ids and client fields are not forwarded");
  const nullContent = inputOf({
    input: [
      { role: "user", content: "q" },
      { type: "message", role: "assistant", content: null },
      { role: "user", content: "" },
    ],
  });
  t.equal(nullContent.turns.length, 1, "a message with no content is no turn");
});

t.test("images and files", async (t) => {
  const input = inputOf({
    input: [
      {
        role: "user",
        content: [
          { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "high" },
          { type: "input_image", image_url: "https://example.com/a.png", detail: null },
          { type: "input_image", file_id: "file_1" },
          { type: "input_file", file_id: "file_2", filename: "a.pdf" },
          { type: "input_file", file_data: `data:application/pdf;base64,${PNG}`, filename: "b.pdf" },
          { type: "input_file", file_data: PNG, filename: "notes.txt" },
          { type: "input_file", file_url: "https://example.com/c.pdf" },
        ],
      },
    ],
  });
  const media = input.turns[0]!.parts.map((p) => (p.kind.case === "media" ? p.kind.value : undefined));
  t.match(media[0], { mimeType: "image/png", source: { case: "data" } });
  t.same(input.turns[0]!.parts[0]!.vendorExtras.openai, { image_url: { detail: "high" } }, "detail, where Chat has it");
  t.match(media[1], { mimeType: "", source: { case: "uri", value: "https://example.com/a.png" } });
  t.same(input.turns[0]!.parts[1]!.vendorExtras, {});
  t.match(media[2], { source: { case: "fileId", value: "file_1" } });
  t.match(media[3], { source: { case: "fileId", value: "file_2" }, name: "a.pdf" });
  t.match(media[4], { mimeType: "application/pdf", source: { case: "data" }, name: "b.pdf" });
  t.match(media[5], { mimeType: "text/plain", source: { case: "data" }, name: "notes.txt" }, "bare base64: the type from the file name");
  t.match(media[6], { mimeType: "application/pdf", source: { case: "uri", value: "https://example.com/c.pdf" } });
  t.match(refusal(t, { input: [{ role: "user", content: [{ type: "input_image", image_url: "ftp://x" }] }] }), { field: "input[0].content[0].image_url" });
  t.match(refusal(t, { input: [{ role: "user", content: [{ type: "input_image", image_url: "data:image/png,notbase64" }] }] }), { field: "input[0].content[0].image_url" });
  t.match(refusal(t, { input: [{ role: "user", content: [{ type: "input_file", file_data: "!!!" }] }] }), { field: "input[0].content[0].file_data" });
  t.match(refusal(t, { input: [{ role: "user", content: [{ type: "input_file", file_url: "file:///etc/passwd" }] }] }), { field: "input[0].content[0].file_url" });
});

const call = (id: string, name = "exec_command", args = '{"cmd":"ls"}') => ({ type: "function_call", id: `fc_${id}`, status: "completed", call_id: id, name, arguments: args });
const output = (id: string, out: unknown = "ok") => ({ type: "function_call_output", id: `fco_${id}`, call_id: id, output: out });
const FN = { type: "function", name: "exec_command", parameters: { type: "object", properties: { cmd: { type: "string" } } }, strict: false };

t.test("a call and its output: one assistant turn, one user turn of results", async (t) => {
  const input = inputOf({ tools: [FN], input: [{ role: "user", content: "list" }, call("call_1"), output("call_1", "a\nb"), { role: "user", content: "thanks" }] });
  t.same(
    input.turns.map((x) => x.role),
    [Role.USER, Role.ASSISTANT, Role.USER, Role.USER],
  );
  const tc = input.turns[1]!.parts[0]!.kind;
  t.match(tc, { case: "toolCall", value: { id: "call_1", name: "exec_command", arguments: { cmd: "ls" } } });
  t.equal(tc.case === "toolCall" && tc.value.input, undefined, "a function call has no free-text input");
  const tr = input.turns[2]!.parts[0]!.kind;
  t.match(tr, { case: "toolResult", value: { callId: "call_1", name: "exec_command" } });
  t.same(tr.case === "toolResult" && tr.value.content.map(textOf), ["a\nb"]);
  const parts = inputOf({
    tools: [FN],
    input: [
      call("c"),
      output("c", [
        { type: "input_text", text: "see" },
        { type: "input_image", image_url: "https://x/y.png" },
      ]),
    ],
  }).turns[1]!.parts[0]!.kind;
  t.same(parts.case === "toolResult" && parts.value.content.map((p) => p.kind.case), ["text", "media"], "an output of parts");
  const raw = inputOf({ tools: [FN], input: [call("c", "exec_command", "not json"), output("c")] }).turns[0]!.parts[0]!;
  t.same(raw.vendorExtras.openai, { function: { arguments: "not json" } }, "arguments that are not JSON: as sent, for OpenAI");
});

t.test("parallel calls: one assistant turn with every call, one user turn of results in call order", async (t) => {
  const input = inputOf({
    tools: [FN],
    parallel_tool_calls: true,
    input: [
      { role: "user", content: "go" },
      { type: "reasoning", id: "rs_1", summary: [], content: null, encrypted_content: null },
      call("a"),
      call("b"),
      call("c"),
      output("c", "C"),
      output("a", "A"),
      output("b", "B"),
    ],
  });
  t.equal(input.turns.length, 3);
  t.same(
    input.turns[1]!.parts.map((p) => (p.kind.case === "toolCall" ? p.kind.value.id : "?")),
    ["a", "b", "c"],
  );
  t.same(
    input.turns[2]!.parts.map((p) => (p.kind.case === "toolResult" ? p.kind.value.callId : "?")),
    ["a", "b", "c"],
    "results sorted into the calls' order",
  );
  const c = core({ tools: [FN], input: [call("a"), call("b"), output("b"), output("a")] });
  t.equal(c.clientField("turns[1].parts[0]"), "input[3]", "the field paths follow the results");
  t.equal(c.clientField("turns[1].parts[1]"), "input[2]");
  const interleaved = inputOf({ tools: [FN], input: [call("a"), output("a"), call("b"), output("b")] });
  t.same(
    interleaved.turns.map((x) => x.role),
    [Role.ASSISTANT, Role.USER, Role.ASSISTANT, Role.USER],
    "calls answered one at a time stay separate steps",
  );
});

t.test("outputs without calls and calls without outputs are OpenAI's 400", async (t) => {
  t.same(refusal(t, { input: [{ role: "user", content: "x" }, output("call_9")] }), {
    message: "No tool call found for function call output with call_id call_9.",
    reason: "invalid_value",
    field: "input",
  });
  t.match(refusal(t, { input: [{ type: "custom_tool_call_output", call_id: "ct_1", output: "x" }] }), { message: "No tool call found for custom tool call output with call_id ct_1." });
  t.match(refusal(t, { tools: [FN], input: [{ role: "user", content: "x" }, call("call_1")] }), { message: "No tool output found for function call call_1.", field: "input" });
});

t.test("custom tool calls carry free-text input", async (t) => {
  const tools = [{ type: "custom", name: "apply_patch", description: "patch", format: { type: "grammar", syntax: "lark", definition: "start: x" } }];
  const input = inputOf({
    tools,
    input: [
      { role: "user", content: "fix it" },
      { type: "custom_tool_call", id: "ctc_1", status: "completed", call_id: "ct_1", name: "apply_patch", input: "*** Begin Patch" },
      { type: "custom_tool_call_output", call_id: "ct_1", output: "Done" },
    ],
  });
  t.match(input.tools[0]!.kind, { case: "custom", value: { name: "apply_patch", description: "patch", format: { type: "grammar", syntax: "lark", definition: "start: x" } } });
  t.match(input.turns[1]!.parts[0]!.kind, { case: "toolCall", value: { id: "ct_1", name: "apply_patch", input: "*** Begin Patch" } });
  t.match(input.turns[2]!.parts[0]!.kind, { case: "toolResult", value: { callId: "ct_1", name: "apply_patch" } });
});

const thought = create(PartSchema, { kind: { case: "thinking", value: { text: "let me think" } }, signature: { issuer: "anthropic", value: "sig-1" } });

t.test("reasoning: our blob opens into its parts; foreign or none is left out; ours altered is a 400", async (t) => {
  const blob = sealParts(seal, [thought]);
  const input = inputOf({
    tools: [FN],
    include: ["reasoning.encrypted_content"],
    input: [
      { role: "user", content: "go" },
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "thinking" }], encrypted_content: blob },
      call("a"),
      output("a"),
      { type: "reasoning", id: "rs_2", summary: [{ type: "summary_text", text: "OpenAI's" }], encrypted_content: "gAAAAABoxyz" },
      { type: "reasoning", id: "rs_3", summary: [{ type: "summary_text", text: "a summary alone" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] },
    ],
  });
  t.same(kinds(input.turns[1]), ["thinking", "toolCall"], "the thinking where the reasoning stood, before the call");
  t.match(input.turns[1]!.parts[0], { kind: { case: "thinking", value: { text: "let me think" } }, signature: { issuer: "anthropic", value: "sig-1" } });
  t.same(kinds(input.turns[3]), ["text"], "OpenAI's blob and a summary without a blob are left out");
  const other = sealParts(sealer("another gateway"), [thought]);
  t.same(
    refusal(t, {
      input: [
        { role: "user", content: "x" },
        { type: "reasoning", id: "rs_9", summary: [], encrypted_content: other },
      ],
    }),
    {
      message: "The encrypted content for item rs_9 could not be verified.",
      reason: "invalid_encrypted_content",
      field: "input[1].encrypted_content",
    },
  );
  const altered = blob.slice(0, -4) + (blob.endsWith("AAAA") ? "BBBB" : "AAAA");
  t.match(refusal(t, { input: [{ type: "reasoning", summary: [], encrypted_content: altered }] }), { reason: "invalid_encrypted_content", message: "The encrypted content could not be verified." });
});

t.test("compaction: the summary back as a user turn; a trigger asks for one", async (t) => {
  const summary = sealParts(seal, [create(PartSchema, { kind: { case: "text", value: { text: "we fixed the bug" } } })]);
  const after = inputOf({
    input: [
      { role: "developer", content: "rules" },
      { role: "user", content: "task" },
      { type: "compaction", id: "cmp_1", encrypted_content: summary },
      { type: "compaction", id: "cmp_2", encrypted_content: "gAAAA-openai" },
      { role: "user", content: "next" },
    ],
  });
  t.same(after.system.map(textOf), ["rules"]);
  t.equal(after.turns.length, 3);
  t.same(after.turns[1]!.parts.map(textOf), [SUMMARY_PREFIX, "we fixed the bug"]);
  t.match(refusal(t, { input: [{ type: "compaction", id: "cmp_3", encrypted_content: summary + "x" }] }), { reason: "invalid_encrypted_content", field: "input[0].encrypted_content" });

  const c = core({ tools: [FN], tool_choice: "auto", input: [{ role: "user", content: "task" }, call("a"), output("a"), { type: "compaction_trigger" }] });
  t.equal(c.compact, true);
  t.same(c.input.turns.at(-1)!.parts.map(textOf), [HANDOFF_PROMPT]);
  t.equal(c.input.turns.at(-1)!.role, Role.USER);
  t.equal(c.input.toolChoice?.mode, ToolChoiceMode.NONE, "no tool call in a summary");
  t.equal(c.input.tools.length, 1, "the tools stay: the history uses them");
  const early = core({ input: [{ type: "compaction_trigger" }, { role: "user", content: "x" }] });
  t.equal(early.compact, false, "a trigger anywhere but last asks for nothing");
  t.equal(early.input.turns.length, 1);
});

t.test("tools: functions, custom, namespaces flattened, additional_tools, hosted ones", async (t) => {
  const c = core({
    input: [
      { type: "additional_tools", role: "developer", tools: [{ type: "namespace", name: "functions", tools: [{ type: "custom", name: "exec", format: { type: "text" } }] }] },
      { role: "user", content: "x" },
      { type: "function_call", call_id: "c1", name: "spawn_agent", namespace: "multi_agent_v1", arguments: "{}" },
      output("c1"),
      { type: "function_call", call_id: "c2", name: "wait", arguments: "{}" },
      output("c2"),
    ],
    tools: [
      FN,
      { type: "function", name: "strict_fn", parameters: { type: "object" }, strict: true, defer_loading: true },
      { type: "namespace", name: "multi_agent_v1", description: "agents", tools: [{ type: "function", name: "spawn_agent" }, { type: "function", name: "wait" }, { type: "future_kind" }] },
      { type: "tool_search", execution: "client" },
      { type: "web_search", external_web_access: true, search_content_types: ["text", "image"] },
      { type: "web_search_preview" },
      { type: "brand_new_tool" },
      FN,
    ],
  });
  const names = c.input.tools.map((x) => (x.kind.case === "function" || x.kind.case === "custom" ? x.kind.value.name : x.kind.case));
  t.same(
    names,
    ["exec_command", "strict_fn", "multi_agent_v1__spawn_agent", "multi_agent_v1__wait", "webSearch", "functions__exec"],
    "flattened; web search (declared twice) once as the neutral one; tool_search and newer kinds left out; duplicates once",
  );
  t.same(c.input.tools[0]!.vendorExtras.openai, { function: { strict: false } }, "strict, in Chat's place");
  t.same(c.input.tools[1]!.vendorExtras.openai, { function: { strict: true } }, "fields Chat lacks are not forwarded");
  t.equal(c.input.tools[5]!.kind.case, "custom");
  t.same(c.toolNames.get("multi_agent_v1__spawn_agent"), { type: "function", name: "spawn_agent", namespace: "multi_agent_v1" });
  t.same(c.toolNames.get("functions__exec"), { type: "custom", name: "exec", namespace: "functions" });
  t.same(c.toolNames.get("exec_command"), { type: "function", name: "exec_command" });
  t.match(c.input.turns[1]!.parts[0]!.kind, { case: "toolCall", value: { name: "multi_agent_v1__spawn_agent" } }, "a call with its namespace");
  t.match(c.input.turns[3]!.parts[0]!.kind, { case: "toolCall", value: { name: "multi_agent_v1__wait" } }, "a call without it, of the one member of that name");
  t.equal(c.clientField("tools[2].function.parameters"), "tools[2].tools[0].parameters");
  t.equal(c.clientField("tools[4]"), "tools[4]", "the web search, where the client declared it");
  t.equal(c.clientField("tools[5].custom.format.definition"), "input[0].tools[0].tools[0].format.definition");
  // OpenAI's hosted tools: as sent, for an OpenAI Responses channel (the others refuse them).
  for (const type of ["file_search", "code_interpreter", "image_generation", "computer_use_preview", "mcp", "local_shell", "shell", "apply_patch"]) {
    const hosted = core({ input: "x", tools: [FN, { type, server_label: "s", container: { type: "auto" } }] });
    t.match(hosted.input.tools[1]!.kind, { case: "vendor", value: { type, vendor: "openai", config: { server_label: "s", container: { type: "auto" } } } }, type);
    t.equal(hosted.clientField("tools[1]"), "tools[1]");
  }
  const added = core({
    input: [
      { type: "additional_tools", tools: [{ type: "mcp", server_label: "x" }] },
      { role: "user", content: "x" },
    ],
  });
  t.equal(added.clientField("tools[0]"), "input[0].tools[0]", "an additional hosted tool is named where it was declared");
});

t.test("tool_choice in every form, and parallel_tool_calls", async (t) => {
  const tools = [FN, { type: "custom", name: "apply_patch" }, { type: "namespace", name: "ns", tools: [{ type: "function", name: "f" }] }];
  const tc = (choice: unknown, extra: Record<string, unknown> = {}) => {
    const i = inputOf({ input: "x", tools, tool_choice: choice, ...extra });
    return { mode: i.toolChoice?.mode, names: i.toolChoice?.allowedNames, parallel: i.toolChoice?.disableParallel, sent: i.vendorExtras.openai?.tool_choice };
  };
  t.match(tc("none"), { mode: ToolChoiceMode.NONE, names: [], sent: undefined });
  t.match(tc("auto"), { mode: ToolChoiceMode.AUTO });
  t.match(tc("required"), { mode: ToolChoiceMode.ANY, names: [] });
  t.match(tc({ type: "function", name: "exec_command" }), { mode: ToolChoiceMode.ANY, names: ["exec_command"], sent: undefined }, "flat, as Responses has it");
  t.match(tc({ type: "function", name: "f", namespace: "ns" }), { names: ["ns__f"] });
  t.match(tc({ type: "function", name: "f" }), { names: ["ns__f"] }, "the one member of that name");
  t.match(tc({ type: "custom", name: "apply_patch" }), { mode: ToolChoiceMode.ANY, names: ["apply_patch"], sent: { type: "custom", custom: { name: "apply_patch" } } });
  t.match(tc({ type: "allowed_tools", mode: "required", tools: [{ type: "function", name: "exec_command" }, { type: "custom", name: "apply_patch" }, { type: "web_search" }] }), {
    mode: ToolChoiceMode.ANY,
    names: ["exec_command", "apply_patch"],
    sent: {
      type: "allowed_tools",
      allowed_tools: {
        mode: "required",
        tools: [
          { type: "function", function: { name: "exec_command" } },
          { type: "custom", custom: { name: "apply_patch" } },
        ],
      },
    },
  });
  t.match(tc({ type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "exec_command" }] }), { mode: ToolChoiceMode.AUTO, names: [] });
  t.same(tc({ type: "web_search_preview" }), { mode: undefined, names: undefined, parallel: undefined, sent: undefined }, "a hosted tool's choice says nothing");
  t.same(tc("sometimes").mode, undefined, "a newer mode says nothing");
  t.match(tc("auto", { parallel_tool_calls: false }), { mode: ToolChoiceMode.AUTO, parallel: true });
  t.match(tc(undefined, { parallel_tool_calls: false }), { mode: ToolChoiceMode.UNSPECIFIED, parallel: true });
  t.same(tc(undefined, { parallel_tool_calls: true }).mode, undefined);
});

t.test("unknown items and fields are left out; references to stored items are not found", async (t) => {
  const input = inputOf({
    input: [
      { role: "user", content: "x" },
      { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search" } },
      { type: "local_shell_call", id: "ls_1" },
      { type: "brand_new_item", payload: 1 },
      { role: "assistant", content: [{ type: "output_text", text: "y" }] },
    ],
    client_metadata: { x: 1 },
  });
  t.same(
    input.turns.map((x) => x.role),
    [Role.USER, Role.ASSISTANT],
  );
  t.same(refusal(t, { input: [{ type: "item_reference", id: "msg_1" }] }), { message: "Item with id 'msg_1' not found.", reason: "invalid_value", field: "input[0].id" });
  t.match(refusal(t, { input: [] }), { message: "Missing required parameter: 'input'.", field: "input" });
  t.match(refusal(t, {}), { field: "input" });
});

t.test("core error paths name the client's fields", async (t) => {
  const c = core({
    instructions: "sys",
    input: [
      { role: "developer", content: "dev" },
      {
        role: "user",
        content: [
          { type: "input_text", text: "a" },
          { type: "input_image", file_id: "file_1" },
        ],
      },
      call("c"),
      output("c"),
    ],
    tools: [FN],
    safety_identifier: "s",
  });
  const f = c.clientField;
  t.equal(f("turns[0].parts[1].media"), "input[1].content[1]");
  t.equal(f("turns[0].parts[1].source"), "input[1].content[1].file_id");
  t.equal(f("turns[2].parts[0].tool_result.content[0].media"), "input[3].output[0]");
  t.equal(f("turns[1]"), "input[2]");
  t.equal(f("system[0]"), "instructions");
  t.equal(f("system[1]"), "input[0].content");
  t.equal(f("config.max_output_tokens"), "max_output_tokens");
  t.equal(f("config.thinking"), "reasoning.effort");
  t.equal(f("config.response_schema"), "text.format.schema");
  t.equal(f("metadata.user_id"), "safety_identifier");
  t.equal(f("tool_choice"), "tool_choice");
  t.equal(f("config.top_k"), "top_k");
  t.equal(f("turns[9].parts[0]"), "turns[9].parts[0]", "a path it cannot place stays as it is");
});

t.test("the ResponseMeta: echoed fields as sent, encrypted reasoning, tool names, compaction", async (t) => {
  const body = parse({
    model: "gpt-x",
    input: [{ role: "user", content: "x" }, { type: "compaction_trigger" }],
    instructions: "sys",
    tools: [{ type: "namespace", name: "ns", tools: [{ type: "function", name: "f" }] }],
    tool_choice: "auto",
    text: { verbosity: "low" },
    reasoning: { effort: "high", summary: "auto" },
    store: false,
    metadata: { a: "b" },
    include: ["reasoning.encrypted_content"],
    stream: true,
    client_metadata: { x: 1 },
    max_tool_calls: 3,
  });
  const c = toCoreChatInput(body, ctx);
  const meta = responseMeta(body, c, { id: "resp_1", createdAt: 1700000000, sealer: seal });
  t.same(meta.echo, {
    instructions: "sys",
    tools: [{ type: "namespace", name: "ns", tools: [{ type: "function", name: "f" }] }],
    tool_choice: "auto",
    text: { verbosity: "low" },
    reasoning: { effort: "high", summary: "auto" },
    store: false,
    metadata: { a: "b" },
    max_tool_calls: 3,
  });
  t.match(meta, { id: "resp_1", createdAt: 1700000000, model: "gpt-x", includeEncrypted: true, compact: true, sealer: seal });
  t.same([...meta.toolNames.keys()], ["ns__f"]);
  const plain = responseMeta(parse({ model: "m", input: "x", store: false }), core({ input: "x" }), { id: "resp_2", createdAt: 1, sealer: seal });
  t.equal(plain.includeEncrypted, false, "not stored, not asked: no sealed reasoning");
  const stored = responseMeta(parse({ model: "m", input: "x" }), core({ input: "x" }), { id: "resp_3", createdAt: 1, sealer: seal });
  t.equal(stored.includeEncrypted, true, "stored (the default): sealed reasoning for the follow-up");
  t.equal(plain.compact, undefined);
});

const WEB_SEARCH_TOOLS: [name: string, tool: Record<string, unknown>, want: Record<string, unknown>][] = [
  ["Codex's", { type: "web_search", external_web_access: true, search_content_types: ["text", "image"] }, {}],
  [
    "every setting: filters.allowed_domains, user_location, search_context_size",
    {
      type: "web_search_2025_08_26",
      filters: { allowed_domains: ["example.com"] },
      user_location: { type: "approximate", city: "Paris", region: "IDF", country: "FR", timezone: "Europe/Paris" },
      search_context_size: "high",
    },
    { allowedDomains: ["example.com"], userLocation: { city: "Paris", region: "IDF", country: "FR", timezone: "Europe/Paris" }, contextSize: "high" },
  ],
  ["the preview, dated", { type: "web_search_preview_2025_03_11", search_context_size: "low" }, { contextSize: "low" }],
  ["settings in shapes OpenAI does not document are not read", { type: "web_search_preview", filters: { allowed_domains: "example.com" }, user_location: "Paris", search_context_size: 3 }, {}],
];

t.test("web search: any version is the neutral web search, once", async (t) => {
  for (const [name, tool, want] of WEB_SEARCH_TOOLS) {
    const c = core({ input: "x", tools: [FN, tool] });
    t.same(
      c.input.tools.map((x) => x.kind.case),
      ["function", "webSearch"],
      name,
    );
    const w = c.input.tools[1]!.kind;
    if (w.case !== "webSearch") continue;
    const l = w.value.userLocation;
    const got = {
      allowedDomains: w.value.allowedDomains,
      contextSize: w.value.contextSize,
      ...(l ? { userLocation: { city: l.city, region: l.region, country: l.country, timezone: l.timezone } } : {}),
    };
    t.same(got, { allowedDomains: [], contextSize: "", ...want }, `${name}: settings`);
  }
  const twice = core({ input: "x", tools: [{ type: "web_search" }, { type: "web_search_preview", search_context_size: "low" }] });
  t.equal(twice.input.tools.length, 1, "declared twice: once, the first");
  t.equal(twice.clientField("tools[0]"), "tools[0]");
});

t.test("web search: tool choices that name it require it, when it is declared", async (t) => {
  const tools = [FN, { type: "web_search" }];
  for (const type of ["web_search", "web_search_preview", "web_search_preview_2025_03_11", "web_search_2025_08_26"]) {
    const c = core({ input: "x", tools, tool_choice: { type } });
    t.same([c.input.toolChoice?.mode, c.input.toolChoice?.allowedNames], [ToolChoiceMode.ANY, ["web_search"]], type);
    t.same(c.input.vendorExtras, {}, `${type}: nothing as sent (Chat Completions has no search to choose)`);
  }
  t.equal(core({ input: "x", tools: [FN], tool_choice: { type: "web_search_preview" } }).input.toolChoice, undefined, "undeclared: says nothing, as before");
  const among = core({ input: "x", tools, tool_choice: { type: "allowed_tools", mode: "required", tools: [{ type: "function", name: "exec_command" }, { type: "web_search" }] } });
  t.same(among.input.toolChoice?.allowedNames, ["exec_command", "web_search"]);
  t.same(
    among.input.vendorExtras.openai?.tool_choice,
    { type: "allowed_tools", allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "exec_command" } }] } },
    "the search is not among the Chat tools",
  );
});

t.test("a web_search_call item sent back is left out, never refused", async (t) => {
  const input = inputOf({
    input: [
      { role: "user", content: "weather in Paris?" },
      { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "weather Paris", sources: [{ type: "url", url: "https://w.example/" }] } },
      {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "Sunny.", annotations: [{ type: "url_citation", url: "https://w.example/", start_index: 0, end_index: 6, title: "W" }] }],
      },
      { role: "user", content: "and tomorrow?" },
    ],
    tools: [{ type: "web_search" }],
  });
  t.same(input.turns.map(kinds), [["text"], ["text"], ["text"]]);
  t.equal(textOf(input.turns[1]!.parts[0]), "Sunny.");
});

t.test("a hosted tool's items sent back: whole, in the assistant's turn, for an OpenAI Responses channel", async (t) => {
  const call = { id: "ci_1", type: "code_interpreter_call", status: "completed", code: "print(4)" };
  const i = inputOf({ input: [{ role: "user", content: "2+2" }, call, { type: "mcp_list_tools", id: "mcpl_1", tools: [] }, { role: "user", content: "again" }, { type: "future_item", x: 1 }] });
  t.same(
    i.turns.map((x) => x.role),
    [Role.USER, Role.ASSISTANT, Role.USER],
  );
  t.same(
    i.turns[1]!.parts.map((p) => [p.kind.case, p.vendorExtras.openai?.type]),
    [
      [undefined, "code_interpreter_call"],
      [undefined, "mcp_list_tools"],
    ],
  );
  t.same(i.turns[1]!.parts[0]!.vendorExtras.openai, call);
  t.equal(i.turns[2]!.parts.length, 1, "an item type the gateway does not know is left out");
});

t.test("unread members of text and reasoning, unread include values and a stored prompt ride as sent", async (t) => {
  const input = inputOf({
    input: "hi",
    text: { format: { type: "text" }, verbosity: "low", future: 1 },
    reasoning: { effort: "high", summary: "auto", context: "all_turns" },
    include: ["reasoning.encrypted_content", "message.output_text.logprobs", "file_search_call.results"],
    prompt: { id: "pmpt_1", variables: { city: "Oslo" } },
  });
  t.same(input.vendorExtras["openai-responses"], {
    text: { future: 1 },
    reasoning: { context: "all_turns" },
    prompt: { id: "pmpt_1", variables: { city: "Oslo" } },
    include: ["file_search_call.results"],
  });
  t.notOk("openai-responses" in inputOf({ input: "hi", text: { verbosity: "low" }, reasoning: { effort: "low" }, include: ["reasoning.encrypted_content"] }).vendorExtras, "nothing unread: no entry");
});
