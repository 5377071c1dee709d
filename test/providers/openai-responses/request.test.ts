// Neutral ChatInput -> Responses request: table tests of the items, tools,
// tool choices, settings, the vendor_extras overlay and what is refused.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { ChatInputSchema, HarmBlockThreshold, HarmCategory, Role, ToolChoiceMode, WebSearchStatus, type ChatInput } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { errorDetail } from "../../../src/core/errors.js";
import { flatChoice, toVendorCountRequest, toVendorRequest } from "../../../src/providers/openai-responses/request.js";

type Init = Parameters<typeof create<typeof ChatInputSchema>>[1];
const input = (i: Init): ChatInput => create(ChatInputSchema, { model: "client", ...i });
const body = (i: Init, stream = false) => toVendorRequest(input(i), "gpt-5-codex", { stream }).body;
const user = (text: string) => ({ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text } } }] });
const tool = (name: string) => ({ kind: { case: "function" as const, value: { name, parameters: { type: "object", properties: { city: { type: "string" } } } } } });
const refused = (i: Init) => {
  try {
    toVendorRequest(input(i), "m", { stream: false });
  } catch (e) {
    if (e instanceof ConnectError) return errorDetail(e)?.field;
    throw e;
  }
  return "not refused";
};

t.test("the minimal request: instructions, a user message, stateless", async (t) => {
  t.same(body({ system: [{ kind: { case: "text", value: { text: "Be brief." } } }, { kind: { case: "text", value: { text: "Use metric." } } }], turns: [user("hi")] }), {
    model: "gpt-5-codex",
    input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }],
    store: false,
    include: ["reasoning.encrypted_content"],
    instructions: "Be brief.\n\nUse metric.",
  });
  t.equal(body({ turns: [user("hi")] }, true).stream, true);
});

t.test("a tool loop: OpenAI's reasoning goes back with its encrypted content, others' is dropped", async (t) => {
  const b = body({
    turns: [
      {
        role: Role.USER,
        parts: [
          { kind: { case: "text", value: { text: "look" } } },
          { kind: { case: "media", value: { mimeType: "image/png", source: { case: "data", value: new Uint8Array([1, 2]) } } }, vendorExtras: { openai: { image_url: { detail: "high" } } } },
          { kind: { case: "media", value: { mimeType: "application/pdf", name: "a.pdf", source: { case: "data", value: new Uint8Array([3]) } } } },
          { kind: { case: "media", value: { mimeType: "", source: { case: "uri", value: "https://img.example/x.jpg" } } } },
        ],
      },
      {
        role: Role.ASSISTANT,
        parts: [
          { kind: { case: "thinking", value: { text: "Anthropic's" } }, signature: { issuer: "anthropic", value: "sig" } },
          { kind: { case: "thinking", value: { text: "unsigned" } } },
          { kind: { case: "thinking", value: { text: "Need weather." } }, signature: { issuer: "openai", value: "gAAAA-enc" } },
          { kind: { case: "text", value: { text: "Checking." } } },
          { kind: { case: "toolCall", value: { id: "call_1", name: "get_weather", arguments: { city: "Paris" } } } },
          { kind: { case: "toolCall", value: { id: "toolu_01ABC", name: "apply_patch", input: "*** Begin Patch" } } },
          { kind: { case: "toolCall", value: { id: "call_3", name: "f", arguments: { value: 1 } } }, vendorExtras: { openai: { function: { arguments: "1" } } } },
        ],
      },
      {
        role: Role.USER,
        parts: [
          { kind: { case: "toolResult", value: { callId: "call_1", name: "get_weather", content: [{ kind: { case: "text", value: { text: "18C" } } }] } } },
          { kind: { case: "toolResult", value: { callId: "toolu_01ABC", name: "apply_patch", content: [{ kind: { case: "text", value: { text: "done" } } }], isError: true } } },
          {
            kind: {
              case: "toolResult",
              value: { callId: "call_3", content: [{ kind: { case: "media", value: { mimeType: "image/jpeg", source: { case: "data", value: new Uint8Array([9]) } } } }], structured: { ok: true } },
            },
          },
          { kind: { case: "text", value: { text: "thanks" } } },
        ],
      },
    ],
  });
  t.same(b.input, [
    {
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: "look" },
        { type: "input_image", image_url: "data:image/png;base64,AQI=", detail: "high" },
        { type: "input_file", filename: "a.pdf", file_data: "data:application/pdf;base64,Aw==" },
        { type: "input_image", image_url: "https://img.example/x.jpg", detail: "auto" },
      ],
    },
    { type: "reasoning", summary: [{ type: "summary_text", text: "Need weather." }], encrypted_content: "gAAAA-enc" },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking.", annotations: [] }] },
    { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
    { type: "custom_tool_call", call_id: "toolu_01ABC", name: "apply_patch", input: "*** Begin Patch" },
    { type: "function_call", call_id: "call_3", name: "f", arguments: "1" },
    { type: "function_call_output", call_id: "call_1", output: "18C" },
    { type: "custom_tool_call_output", call_id: "toolu_01ABC", output: "Error: done" },
    {
      type: "function_call_output",
      call_id: "call_3",
      output: [
        { type: "input_text", text: '{"ok":true}' },
        { type: "input_image", image_url: "data:image/jpeg;base64,CQ==", detail: "auto" },
      ],
    },
    { type: "message", role: "user", content: [{ type: "input_text", text: "thanks" }] },
  ]);
});

t.test("whole items: hosted calls and OpenAI's web search go back as they came; Chat content parts and others' searches do not", async (t) => {
  const image = { id: "ig_1", type: "image_generation_call", status: "completed", result: "aGk=" };
  const search = { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "q" } };
  const b = body({
    turns: [
      user("draw"),
      {
        role: Role.ASSISTANT,
        parts: [
          { vendorExtras: { openai: image } },
          { kind: { case: "webSearchCall", value: { id: "ws_1", queries: ["q"], status: WebSearchStatus.COMPLETED } }, vendorExtras: { openai: search } },
          { kind: { case: "webSearchCall", value: { id: "srvtoolu_1", queries: ["q"] } }, vendorExtras: { anthropic: { blocks: [] } } },
          { vendorExtras: { openai: { type: "future_part", x: 1 } } },
          { vendorExtras: { anthropic: { type: "server_tool_use", id: "srvtoolu_2" } } },
          { kind: { case: "text", value: { text: "I can't." } }, vendorExtras: { openai: { type: "refusal", refusal: "I can't." } } },
        ],
      },
    ],
  });
  t.same(b.input.slice(1), [image, search, { type: "message", role: "assistant", content: [{ type: "refusal", refusal: "I can't." }] }]);
});

t.test("a system turn in place; a developer one keeps its role", async (t) => {
  const b = body({ turns: [user("a"), { role: Role.SYSTEM, parts: [{ kind: { case: "text", value: { text: "now terse" } } }], vendorExtras: { openai: { role: "developer" } } }] });
  t.same(b.input[1], { type: "message", role: "developer", content: [{ type: "input_text", text: "now terse" }] });
});

t.test("tools: flat function tools (strict false unless told), custom, web search, OpenAI's hosted ones", async (t) => {
  const b = body({
    turns: [user("x")],
    tools: [
      tool("get_weather"),
      { kind: { case: "function", value: { name: "strict_one", description: "d" } }, vendorExtras: { openai: { function: { strict: true } } } },
      { kind: { case: "custom", value: { name: "apply_patch", description: "patch", format: { type: "grammar", syntax: "lark", definition: "start: x" } } } },
      {
        kind: {
          case: "webSearch",
          value: { maxUses: 3, allowedDomains: ["a.example"], blockedDomains: ["b.example"], userLocation: { city: "Paris", country: "FR", region: "", timezone: "" }, contextSize: "low" },
        },
      },
      { kind: { case: "vendor", value: { type: "file_search", vendor: "openai", config: { vector_store_ids: ["vs_1"] } } } },
      { kind: { case: "vendor", value: { type: "code_interpreter", config: { container: { type: "auto" } } } } },
    ],
  });
  t.same(b.tools, [
    { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false },
    { type: "function", name: "strict_one", description: "d", parameters: { type: "object", properties: {} }, strict: true },
    { type: "custom", name: "apply_patch", description: "patch", format: { type: "grammar", syntax: "lark", definition: "start: x" } },
    { type: "web_search", filters: { allowed_domains: ["a.example"] }, user_location: { type: "approximate", city: "Paris", country: "FR" }, search_context_size: "low" },
    { vector_store_ids: ["vs_1"], type: "file_search" },
    { container: { type: "auto" }, type: "code_interpreter" },
  ]);
  t.same(b.include, ["reasoning.encrypted_content", "web_search_call.action.sources"], "a declared search asks for its sources");
  t.equal(refused({ turns: [user("x")], tools: [{ kind: { case: "vendor", value: { type: "computer_20250124", vendor: "anthropic" } } }] }), "tools[0]");
  t.equal(refused({ turns: [user("x")], tools: [tool("a"), { kind: { case: "codeExecution", value: {} } }] }), "tools[1].code_execution");
});

const choice = (mode: ToolChoiceMode, allowedNames: string[] = [], disableParallel = false) => {
  const b = body({
    turns: [user("x")],
    tools: [tool("a"), tool("b"), { kind: { case: "custom", value: { name: "c" } } }, { kind: { case: "webSearch", value: {} } }],
    toolChoice: { mode, allowedNames, disableParallel },
  });
  return [b.tool_choice, b.parallel_tool_calls];
};

t.test("tool choices", async (t) => {
  t.same(choice(ToolChoiceMode.NONE), ["none", undefined]);
  t.same(choice(ToolChoiceMode.AUTO, [], true), ["auto", false]);
  t.same(choice(ToolChoiceMode.ANY), ["required", undefined]);
  t.same(choice(ToolChoiceMode.ANY, ["a"]), [{ type: "function", name: "a" }, undefined]);
  t.same(choice(ToolChoiceMode.ANY, ["c"]), [{ type: "custom", name: "c" }, undefined]);
  t.same(choice(ToolChoiceMode.ANY, ["a", "c"]), [
    {
      type: "allowed_tools",
      mode: "required",
      tools: [
        { type: "function", name: "a" },
        { type: "custom", name: "c" },
      ],
    },
    undefined,
  ]);
  t.same(choice(ToolChoiceMode.ANY, ["web_search"]), [{ type: "allowed_tools", mode: "required", tools: [{ type: "web_search" }] }, undefined], "a forced search is a search here");
  t.equal(body({ turns: [user("x")], toolChoice: { mode: ToolChoiceMode.ANY } }).tool_choice, undefined, "no tools, no choice");
});

t.test("settings", async (t) => {
  const b = body({
    turns: [user("x")],
    config: { maxOutputTokens: 500, temperature: 0.2, topP: 0.9, responseLogprobs: true, logprobs: 3, thinking: { enabled: true, effort: "max", includeThoughts: true } },
    metadata: { userId: "u1", affinityKey: "sess-1" },
  });
  t.same(
    [b.max_output_tokens, b.temperature, b.top_p, b.top_logprobs, b.include, b.reasoning, b.user, b.prompt_cache_key],
    [500, 0.2, 0.9, 3, ["reasoning.encrypted_content", "message.output_text.logprobs"], { effort: "xhigh", summary: "auto" }, "u1", "sess-1"],
  );
  t.equal(body({ turns: [user("x")], config: { maxOutputTokens: 1 } }).max_output_tokens, 16, "raised to the least the API takes");
  t.equal(body({ turns: [user("x")], config: { thinking: { enabled: false, effort: "high", includeThoughts: true } } }).reasoning, undefined, "thinking off: nothing asked");
  t.equal(body({ turns: [user("x")], config: { thinking: { enabled: true, budgetTokens: 2048 } } }).reasoning, undefined, "a budget alone: the model's default effort");
  t.same(body({ turns: [user("x")], config: { thinking: { effort: "low" } } }).reasoning, { effort: "low" });
});

t.test("JSON output: json_object with its instruction line, a schema (wrapped when its root is no object)", async (t) => {
  const any = body({ turns: [user("x")], config: { responseMimeType: "application/json" }, metadata: { sourceFormat: "messages" } });
  t.same([any.text, any.instructions], [{ format: { type: "json_object" } }, "Respond with a valid JSON object."]);
  t.equal(body({ turns: [user("x")], config: { responseMimeType: "application/json" }, metadata: { sourceFormat: "openai-responses" } }).instructions, undefined);
  const schema = { type: "object", properties: { a: { type: "string" } } };
  t.same(body({ turns: [user("x")], config: { responseMimeType: "application/json", responseSchema: schema } }).text, { format: { type: "json_schema", name: "response", schema, strict: false } });
  const out = toVendorRequest(input({ turns: [user("x")], config: { responseMimeType: "application/json", responseSchema: { type: "array" } } }), "m", { stream: false });
  t.same([out.plan.json.kind === "schema" && out.plan.json.wrapped, (out.body.text?.format as { schema: { properties: object } }).schema.properties], [true, { value: { type: "array" } }]);
});

t.test("vendor_extras.openai (Chat's shape): Responses fields laid over in Responses' shape, the rest left out", async (t) => {
  const extras = {
    reasoning_effort: "none",
    verbosity: "low",
    response_format: { type: "json_schema", json_schema: { name: "weather", strict: true } },
    tool_choice: { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "a" } }] } },
    prompt_cache_key: "pck",
    service_tier: "flex",
    parallel_tool_calls: true,
    metadata: { k: "v" },
    stream_options: { include_obfuscation: false },
    modalities: ["text"],
    audio: { voice: "x" },
    prediction: { type: "content", content: "x" },
    web_search_options: {},
    store: true,
    previous_response_id: "resp_x",
    include: ["file_search_call.results"],
  };
  const i: Init = {
    turns: [user("x")],
    tools: [tool("a")],
    config: { responseMimeType: "application/json", responseSchema: { type: "object" } },
    vendorExtras: { openai: extras },
  };
  const b = body(i, true);
  t.same(b, {
    model: "gpt-5-codex",
    input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "x" }] }],
    store: false,
    include: ["reasoning.encrypted_content", "file_search_call.results"],
    tools: [{ type: "function", name: "a", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }],
    text: { format: { type: "json_schema", name: "weather", schema: { type: "object" }, strict: true }, verbosity: "low" },
    stream: true,
    parallel_tool_calls: true,
    prompt_cache_key: "pck",
    service_tier: "flex",
    metadata: { k: "v" },
    stream_options: { include_obfuscation: false },
    reasoning: { effort: "none" },
    tool_choice: { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "a" }] },
  });
  t.equal(body(i).stream_options, undefined, "stream options only on a stream");
  t.same(flatChoice({ type: "custom", custom: { name: "c" } }), { type: "custom", name: "c" });
  t.same(flatChoice("required"), "required");
  t.equal(refused({ turns: [user("x")], vendorExtras: { openai: { logit_bias: { 1: 2 } } } }), "logit_bias");
  t.equal(refused({ turns: [user("x")], vendorExtras: { anthropic: { mcp_servers: [] } } }), "mcp_servers");
});

t.test("what the Responses API cannot take is refused, naming the neutral field", async (t) => {
  t.equal(refused({ turns: [user("x")], config: { topK: 3 } }), "config.top_k");
  t.equal(refused({ turns: [user("x")], config: { stopSequences: ["END"] } }), "config.stop_sequences");
  t.equal(refused({ turns: [user("x")], config: { seed: 1n } }), "config.seed");
  t.equal(refused({ turns: [user("x")], config: { candidateCount: 2 } }), "config.candidate_count");
  t.equal(refused({ turns: [user("x")], safetySettings: [{ category: HarmCategory.HARASSMENT, threshold: HarmBlockThreshold.BLOCK_LOW_AND_ABOVE }] }), "safety_settings[0]");
  t.equal(
    refused({ turns: [{ role: Role.USER, parts: [{ kind: { case: "media", value: { mimeType: "audio/wav", source: { case: "data", value: new Uint8Array([1]) } } } }] }] }),
    "turns[0].parts[0].media",
  );
  t.equal(
    refused({ turns: [{ role: Role.ASSISTANT, parts: [{ kind: { case: "media", value: { mimeType: "image/png", source: { case: "data", value: new Uint8Array([1]) } } } }] }] }),
    "turns[0].parts[0].media",
  );
  t.equal(refused({ turns: [user("x")], config: { responseModalities: [2] } }), "config.response_modalities");
});

t.test("the input_tokens request: input, instructions, tools and format; no sampling or state fields", async (t) => {
  const c = toVendorCountRequest(
    input({ system: [{ kind: { case: "text", value: { text: "sys" } } }], turns: [user("x")], tools: [tool("a")], config: { maxOutputTokens: 9, temperature: 1 } }),
    "gpt-5",
  );
  t.same(Object.keys(c).sort(), ["input", "instructions", "model", "tools"]);
});

t.test("a Responses client's unread fields are laid over the body as sent; model, input, store and stream stay the gateway's", async (t) => {
  const sent = {
    truncation: "auto",
    metadata: { k: "v" },
    prompt: { id: "pmpt_1", version: "2", variables: { city: "Oslo" } },
    client_metadata: { a: 1 },
    future_field: 1,
    reasoning: { context: "all_turns" },
    include: ["file_search_call.results", "reasoning.encrypted_content"],
    model: "other",
    input: [],
    store: true,
    stream: true,
  };
  const b = body({ turns: [user("hi")], config: { thinking: { enabled: true, effort: "high" } }, vendorExtras: { "openai-responses": sent } });
  t.match(b, {
    model: "gpt-5-codex",
    input: [{ type: "message", role: "user" }],
    store: false,
    truncation: "auto",
    metadata: { k: "v" },
    prompt: { id: "pmpt_1", version: "2", variables: { city: "Oslo" } },
    client_metadata: { a: 1 },
    future_field: 1,
  });
  t.same(b.reasoning, { effort: "high", context: "all_turns" }, "merged with the translated reasoning");
  t.same(b.include, ["reasoning.encrypted_content", "file_search_call.results"], "include values added once");
  t.notOk("stream" in b, "a unary call stays unary");
});

t.test("a stored prompt reaches only a Responses upstream: the Chat Completions extras' own vendor is not refused", async (t) => {
  t.equal(refused({ turns: [user("hi")], vendorExtras: { "openai-responses": { prompt: { id: "pmpt_1" } }, openai: { service_tier: "flex" } } }), "not refused");
  t.equal(refused({ turns: [user("hi")], vendorExtras: { anthropic: { mcp_servers: [] } } }), "mcp_servers", "another wire's features still are");
});
