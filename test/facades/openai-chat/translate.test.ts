// Request translation, Chat Completions -> neutral: a table of the fields and
// message shapes, what rides in vendor_extras.openai, the client's field
// paths for core errors, and a seeded property over generated conversations.
import t from "tap";
import type { ConnectError } from "@connectrpc/connect";
import { Role, ToolChoiceMode, type ChatInput, type Part } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { errorDetail } from "../../../src/core/errors.js";
import { parseDataUrl } from "../../../src/facades/openai-chat/contents.js";
import { toCoreChatInput } from "../../../src/facades/openai-chat/translate.js";
import * as wire from "../../../src/facades/openai-chat/wire.js";
import { rng } from "../../helpers/rng.js";

const ctx = { requestId: "req_1" };
const parse = (body: unknown) => wire.chatRequest.parse(body);
const core = (body: Record<string, unknown>) => toCoreChatInput(parse({ model: "gpt-x", ...body }), ctx);
const inputOf = (body: Record<string, unknown>): ChatInput => core(body).input;
const textOf = (p: Part | undefined) => (p?.kind.case === "text" ? p.kind.value.text : undefined);
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

t.test("settings map to the neutral config; the rest rides in vendor_extras.openai", async (t) => {
  const input = inputOf({
    messages: [{ role: "user", content: "hi" }],
    max_tokens: 10,
    max_completion_tokens: 20,
    temperature: 0.5,
    top_p: 0.9,
    stop: "END",
    seed: 7,
    presence_penalty: 0.1,
    frequency_penalty: -0.2,
    n: 2,
    logprobs: true,
    top_logprobs: 3,
    user: "u-1",
    service_tier: "flex",
    store: true,
    metadata: { k: "v" },
    prediction: { type: "content", content: "x" },
    modalities: ["text"],
    logit_bias: { "50256": -100 },
    future_field: { a: 1 },
  });
  const c = input.config!;
  t.equal(c.maxOutputTokens, 20, "max_completion_tokens wins over max_tokens");
  t.equal(c.temperature, 0.5);
  t.equal(c.topP, 0.9);
  t.same(c.stopSequences, ["END"], "a stop string is a list of one");
  t.equal(c.seed, 7n);
  t.equal(c.presencePenalty, 0.1);
  t.equal(c.frequencyPenalty, -0.2);
  t.equal(c.candidateCount, 2);
  t.equal(c.responseLogprobs, true);
  t.equal(c.logprobs, 3);
  t.equal(input.metadata?.userId, "u-1");
  t.equal(input.metadata?.sourceFormat, "openai-chat");
  t.equal(input.metadata?.requestId, "req_1");
  t.same(input.vendorExtras.openai, {
    service_tier: "flex",
    store: true,
    metadata: { k: "v" },
    prediction: { type: "content", content: "x" },
    modalities: ["text"],
    logit_bias: { "50256": -100 },
    future_field: { a: 1 },
  });
  const plain = inputOf({ messages: [{ role: "user", content: "hi" }], max_tokens: 10, stop: ["a", "b"], top_logprobs: 2 });
  t.equal(plain.config?.maxOutputTokens, 10);
  t.same(plain.config?.stopSequences, ["a", "b"]);
  t.notOk(plain.config?.responseLogprobs);
  t.same(plain.vendorExtras.openai, { top_logprobs: 2 }, "top_logprobs without logprobs goes to OpenAI to answer");
  t.same(inputOf({ messages: [{ role: "user", content: "hi" }], stream: false, tools: null, stop: null }).vendorExtras, {}, "nulls are absent values");
});

t.test("system and developer messages: the instruction, their own fields, and mid-conversation ones", async (t) => {
  const input = inputOf({
    messages: [
      { role: "system", content: "be brief" },
      {
        role: "developer",
        content: [
          { type: "text", text: "use tools" },
          { type: "text", text: "be kind" },
        ],
        name: "dev",
      },
      { role: "user", content: "hi" },
      { role: "system", content: "now in French" },
      { role: "developer", content: "and terse" },
    ],
  });
  t.same(input.system.map(textOf), ["be brief", "use tools", "be kind"]);
  t.same(input.system[0]!.vendorExtras, {}, "a plain system message carries nothing");
  t.same(input.system[1]!.vendorExtras.openai, { message: { role: "developer", name: "dev" } }, "a developer message's first part carries its role and name");
  t.same(input.system[2]!.vendorExtras, {});
  t.same(
    input.turns.map((x) => x.role),
    [Role.USER, Role.SYSTEM, Role.SYSTEM],
    "after the first turn a system message is a system turn at its place",
  );
  t.same(input.turns[1]!.vendorExtras, {});
  t.same(input.turns[2]!.vendorExtras.openai, { role: "developer" });
  t.equal(textOf(input.turns[2]!.parts[0]), "and terse");
});

t.test("content parts: text, images by data and URL, audio, files, newer parts", async (t) => {
  const input = inputOf({
    messages: [
      {
        role: "user",
        name: "alice",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "high" } },
          { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
          { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } },
          { type: "file", file: { file_data: `data:application/pdf;base64,JVBERi0=`, filename: "a.pdf" } },
          { type: "file", file: { file_id: "file_abc" } },
          { type: "file", file: { file_data: "aGVsbG8=", filename: "notes.txt" } },
          { type: "future_part", future: { x: 1 } },
        ],
      },
    ],
  });
  const t0 = input.turns[0]!;
  t.same(t0.vendorExtras.openai, { name: "alice" }, "a message's own fields ride with its turn");
  const p = t0.parts;
  t.equal(textOf(p[0]), "look");
  const media = (i: number) => (p[i]!.kind.case === "media" ? p[i]!.kind.value : undefined);
  t.equal(media(1)?.mimeType, "image/png");
  t.same(Buffer.from(media(1)!.source.value as Uint8Array).toString("base64"), PNG);
  t.same(p[1]!.vendorExtras.openai, { image_url: { detail: "high" } }, "detail kept for OpenAI where it was");
  t.same(media(2)?.source, { case: "uri", value: "https://example.com/cat.jpg" });
  t.equal(media(2)?.mimeType, "", "an image by URL has no type until someone reads it");
  t.equal(media(3)?.mimeType, "audio/wav");
  t.equal(media(4)?.mimeType, "audio/mpeg");
  t.equal(media(5)?.mimeType, "application/pdf");
  t.equal(media(5)?.name, "a.pdf");
  t.same(media(6)?.source, { case: "fileId", value: "file_abc" }, "a file id for the core to read in");
  t.equal(media(7)?.mimeType, "text/plain", "raw base64 typed by the file name");
  t.equal(Buffer.from(media(7)!.source.value as Uint8Array).toString(), "hello");
  t.equal(p[8]!.kind.case, undefined, "a newer part has no kind");
  t.same(p[8]!.vendorExtras.openai, { type: "future_part", future: { x: 1 } }, "and goes whole to OpenAI");

  const bad = t.throws(() => inputOf({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,@@@" } }] }] })) as ConnectError;
  t.equal(errorDetail(bad)?.field, "messages[0].content[0].image_url.url");
  const ftp = t.throws(() => inputOf({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "ftp://x/y.png" } }] }] })) as ConnectError;
  t.equal(errorDetail(ftp)?.field, "messages[0].content[0].image_url.url");
});

t.test("data URLs", async (t) => {
  t.same(parseDataUrl("data:image/PNG;base64,AAEC"), { mimeType: "image/png", data: new Uint8Array([0, 1, 2]) });
  t.same(parseDataUrl("data:application/pdf;name=a.pdf;base64,AA=="), { mimeType: "application/pdf", data: new Uint8Array([0]) });
  t.equal(parseDataUrl("data:text/plain,hello"), undefined, "not base64");
  t.equal(parseDataUrl("https://x"), undefined);
  t.equal(parseDataUrl("data:image/png;base64,not base64!"), undefined);
});

t.test("assistant messages: text, calls, refusals, a custom tool's call, fields of their own", async (t) => {
  const input = inputOf({
    messages: [
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: "Checking.",
        audio: { id: "audio_1" },
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_2", type: "function", function: { name: "get_weather", arguments: "not json" } },
          { id: "call_3", type: "custom", custom: { name: "sql", input: "SELECT 1" }, future_call: 1 },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
      { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "rainy" }], future: 1 },
      { role: "tool", tool_call_id: "call_3", content: "1" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Sorry" },
          { type: "refusal", refusal: "I can't." },
        ],
      },
      { role: "assistant", content: null, refusal: "No." },
      { role: "user", content: "ok" },
    ],
  });
  t.same(
    input.turns.map((x) => x.role),
    [Role.USER, Role.ASSISTANT, Role.USER, Role.ASSISTANT, Role.ASSISTANT, Role.USER],
    "tool messages in a row are one user turn",
  );
  const a = input.turns[1]!;
  t.same(a.vendorExtras.openai, { audio: { id: "audio_1" } });
  t.equal(textOf(a.parts[0]), "Checking.");
  const call = a.parts[1]!.kind;
  t.same(call.case === "toolCall" ? { id: call.value.id, name: call.value.name, arguments: call.value.arguments } : undefined, { id: "call_1", name: "get_weather", arguments: { city: "Paris" } });
  t.same(a.parts[1]!.vendorExtras, {});
  t.same(a.parts[2]!.vendorExtras.openai, { function: { arguments: "not json" } }, "arguments that are no JSON object keep their text for OpenAI");
  const custom = a.parts[3]!.kind;
  t.same(
    custom.case === "toolCall" ? { id: custom.value.id, name: custom.value.name, input: custom.value.input, arguments: custom.value.arguments } : undefined,
    { id: "call_3", name: "sql", input: "SELECT 1", arguments: undefined },
    "a custom tool's call: its input, no arguments",
  );
  t.same(a.parts[3]!.vendorExtras.openai, { future_call: 1 }, "its own fields ride for OpenAI");
  const results = input.turns[2]!.parts.map((p) => (p.kind.case === "toolResult" ? p.kind.value : undefined));
  t.same(
    results.map((r) => [r?.callId, r?.name, textOf(r?.content[0])]),
    [
      ["call_1", "get_weather", "sunny"],
      ["call_2", "get_weather", "rainy"],
      ["call_3", "sql", "1"],
    ],
    "results keep the call id; the name comes from the call",
  );
  t.same(input.turns[2]!.parts[1]!.vendorExtras.openai, { future: 1 }, "a tool message's own fields ride with its result");
  const r = input.turns[3]!.parts;
  t.same(r.map(textOf), ["Sorry", "I can't."]);
  t.same(r[1]!.vendorExtras.openai, { type: "refusal", refusal: "I can't." }, "a refusal part stands in for itself");
  t.same(input.turns[4]!.parts[0]!.vendorExtras.openai, { type: "refusal", refusal: "No." }, "so does the refusal field");
});

t.test("the legacy functions API maps to tools", async (t) => {
  const { input, legacyFunctions, clientField } = core({
    messages: [
      { role: "user", content: "weather?" },
      { role: "assistant", content: null, function_call: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
      { role: "function", name: "get_weather", content: "cold" },
    ],
    functions: [{ name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } }],
    function_call: { name: "get_weather" },
  });
  t.ok(legacyFunctions);
  t.equal(input.tools[0]!.kind.case, "function");
  t.same(input.toolChoice && { mode: input.toolChoice.mode, names: input.toolChoice.allowedNames, one: input.toolChoice.disableParallel }, {
    mode: ToolChoiceMode.ANY,
    names: ["get_weather"],
    one: true,
  });
  const call = input.turns[1]!.parts[0]!.kind;
  const result = input.turns[2]!.parts[0]!.kind;
  t.equal(call.case === "toolCall" ? call.value.id : "", result.case === "toolResult" ? result.value.callId : "x", "the function message answers the call");
  t.equal(clientField("tools[0]"), "functions[0]");
  t.equal(clientField("tool_choice"), "function_call");
});

t.test("tools and tool_choice", async (t) => {
  const fn = { type: "function", function: { name: "get_weather", description: "d", parameters: { type: "object", properties: {} }, strict: true } };
  const custom = { type: "custom", custom: { name: "sql", description: "run SQL", format: { type: "grammar", grammar: { syntax: "lark", definition: "start: /.+/" } } } };
  const future = { type: "future_tool", future_tool: { name: "f", x: 1 } };
  const input = inputOf({ messages: [{ role: "user", content: "hi" }], tools: [fn, custom, future], parallel_tool_calls: false });
  const [a, b, c] = input.tools;
  t.same(a!.kind.case === "function" ? [a!.kind.value.name, a!.kind.value.description] : [], ["get_weather", "d"]);
  t.same(a!.vendorExtras.openai, { function: { strict: true } }, "strict rides for OpenAI");
  t.same(
    b!.kind.case === "custom" ? b!.kind.value : undefined,
    {
      $typeName: "omnigate.chat.v1.CustomTool",
      name: "sql",
      description: "run SQL",
      format: { type: "grammar", syntax: "lark", definition: "start: /.+/" },
    },
    "a custom tool: neutral, its grammar flat",
  );
  t.same(b!.vendorExtras, {});
  t.same(c!.kind.case === "vendor" ? [c!.kind.value.type, c!.kind.value.name, c!.kind.value.vendor] : [], ["future_tool", "f", "openai"]);
  t.same(input.toolChoice && [input.toolChoice.mode, input.toolChoice.disableParallel], [ToolChoiceMode.UNSPECIFIED, true], "parallel_tool_calls false alone");

  const choice = (tool_choice: unknown) => {
    const i = inputOf({ messages: [{ role: "user", content: "hi" }], tools: [fn], tool_choice });
    return { mode: i.toolChoice?.mode, names: i.toolChoice?.allowedNames, sent: i.vendorExtras.openai?.tool_choice };
  };
  t.same(choice("none"), { mode: ToolChoiceMode.NONE, names: [], sent: undefined });
  t.same(choice("auto"), { mode: ToolChoiceMode.AUTO, names: [], sent: undefined });
  t.same(choice("required"), { mode: ToolChoiceMode.ANY, names: [], sent: undefined });
  t.same(choice({ type: "function", function: { name: "get_weather" } }), { mode: ToolChoiceMode.ANY, names: ["get_weather"], sent: undefined });
  t.same(choice({ type: "custom", custom: { name: "sql" } }), { mode: ToolChoiceMode.ANY, names: ["sql"], sent: { type: "custom", custom: { name: "sql" } } });

  const customs: Array<[string, unknown, unknown, unknown]> = [
    ["free text", { type: "custom", custom: { name: "note" } }, undefined, {}],
    ["text format", { type: "custom", custom: { name: "note", format: { type: "text" } } }, { type: "text" }, {}],
    [
      "regex",
      { type: "custom", custom: { name: "code", format: { type: "grammar", grammar: { syntax: "regex", definition: "\\d+" } } } },
      { type: "grammar", syntax: "regex", definition: "\\d+" },
      {},
    ],
    ["a newer format, as sent", { type: "custom", custom: { name: "x", format: { type: "schema_v2", rules: [1] } } }, { type: "schema_v2", rules: [1] }, {}],
    [
      "fields of its own",
      { type: "custom", defer_loading: true, custom: { name: "x", strict: true, format: { type: "grammar", cache: "y", grammar: { syntax: "lark", definition: "start: /a/" } } } },
      { type: "grammar", syntax: "lark", definition: "start: /a/" },
      { openai: { defer_loading: true, custom: { strict: true, format: { cache: "y" } } } },
    ],
  ];
  for (const [name, tool, format, extras] of customs) {
    const ct = inputOf({ messages: [{ role: "user", content: "hi" }], tools: [tool] }).tools[0]!;
    t.same(ct.kind.case === "custom" ? [ct.kind.value.format, ct.vendorExtras] : undefined, [format, extras], `custom tool: ${name}`);
  }
  const allowed = {
    type: "allowed_tools",
    allowed_tools: {
      mode: "required",
      tools: [
        { type: "function", function: { name: "get_weather" } },
        { type: "custom", custom: { name: "sql" } },
      ],
    },
  };
  t.same(choice(allowed), { mode: ToolChoiceMode.ANY, names: ["get_weather", "sql"], sent: allowed });
  const auto = { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "get_weather" } }] } };
  t.same(choice(auto), { mode: ToolChoiceMode.AUTO, names: [], sent: auto }, "auto among some: auto elsewhere, as sent to OpenAI");
  t.same(choice("future_mode"), { mode: undefined, names: undefined, sent: "future_mode" });
  t.same(choice({ type: "future" }), { mode: undefined, names: undefined, sent: { type: "future" } });
  t.equal(inputOf({ messages: [{ role: "user", content: "hi" }], tools: [fn], parallel_tool_calls: true }).vendorExtras.openai?.parallel_tool_calls, true);
});

t.test("response_format, reasoning_effort and stream_options", async (t) => {
  const fmt = (response_format: unknown) => {
    const i = inputOf({ messages: [{ role: "user", content: "hi" }], response_format });
    return { mime: i.config?.responseMimeType, schema: i.config?.responseSchema, sent: i.vendorExtras.openai?.response_format };
  };
  t.same(fmt({ type: "text" }), { mime: "", schema: undefined, sent: undefined });
  t.same(fmt({ type: "json_object" }), { mime: "application/json", schema: undefined, sent: undefined });
  const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false };
  t.same(fmt({ type: "json_schema", json_schema: { name: "thing", strict: true, schema } }), { mime: "application/json", schema, sent: { json_schema: { name: "thing", strict: true } } });
  t.same(fmt({ type: "future_format", x: 1 }), { mime: "", schema: undefined, sent: { type: "future_format", x: 1 } });

  const effort = (reasoning_effort: string) => {
    const i = inputOf({ messages: [{ role: "user", content: "hi" }], reasoning_effort });
    const th = i.config?.thinking;
    return { enabled: th?.enabled, effort: th?.effort, thoughts: th?.includeThoughts, sent: i.vendorExtras.openai?.reasoning_effort };
  };
  t.same(effort("high"), { enabled: true, effort: "high", thoughts: true, sent: undefined });
  t.same(effort("minimal"), { enabled: true, effort: "minimal", thoughts: true, sent: undefined });
  t.same(effort("none"), { enabled: false, effort: "", thoughts: false, sent: "none" }, "none turns thinking off, and OpenAI gets it as sent");
  t.same(effort("ultra"), { enabled: undefined, effort: undefined, thoughts: undefined, sent: "ultra" }, "a newer effort: OpenAI's alone");

  const so = (stream: boolean) => inputOf({ messages: [{ role: "user", content: "hi" }], stream, stream_options: { include_usage: true, include_obfuscation: false } }).vendorExtras.openai;
  t.same(so(true), { stream_options: { include_obfuscation: false } });
  t.same(so(false), undefined);
});

t.test("core error fields name the client's fields", async (t) => {
  const { clientField } = core({
    messages: [
      { role: "system", content: "s" },
      {
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "image_url", image_url: { url: "https://x/y.png" } },
        ],
      },
      { role: "assistant", content: "b", tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "r" },
    ],
    tools: [{ type: "function", function: { name: "f" } }],
    max_completion_tokens: 5,
  });
  t.equal(clientField("turns[0].parts[1].media"), "messages[1].content[1]");
  t.equal(clientField("turns[1].parts[0]"), "messages[2].content");
  t.equal(clientField("turns[1].parts[1]"), "messages[2].tool_calls[0]");
  t.equal(clientField("turns[2].parts[0].tool_result.content[0].media"), "messages[3].content[0]");
  t.equal(clientField("turns[1]"), "messages[2]");
  t.equal(clientField("turns[0].parts[1].source"), "messages[1].content[1].file.file_id");
  t.equal(clientField("system[0]"), "messages[0].content");
  t.equal(clientField("tools[0]"), "tools[0]");
  t.equal(clientField("config.max_output_tokens"), "max_completion_tokens");
  t.equal(clientField("config.seed"), "seed");
  t.equal(clientField("logit_bias"), "logit_bias");
});

// ---------------------------------------------------------------- property

type R = () => number;
const pick = <T>(r: R, xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
const word = (r: R) => pick(r, ["alpha", "beta", "paris", "ünïcødé ✓", "line\nbreak", ""]);

function conversation(r: R): { messages: Record<string, unknown>[]; texts: string[] } {
  const messages: Record<string, unknown>[] = [];
  const texts: string[] = [];
  const n = 1 + Math.floor(r() * 6);
  for (let i = 0; i < n; i++) {
    const role = pick(r, ["user", "user", "assistant", "system"]);
    const words = Array.from({ length: 1 + Math.floor(r() * 3) }, () => word(r));
    const asString = r() < 0.5;
    const content = asString ? words.join(" ") : words.map((text) => ({ type: "text", text }));
    // A string is one part (none when empty); a list is a part per entry.
    if (role === "user") texts.push(...(asString ? (words.join(" ") ? [words.join(" ")] : []) : words));
    messages.push({ role, content, ...(r() < 0.2 ? { name: "n" } : {}) });
  }
  if (!messages.some((m) => m.role === "user")) {
    messages.push({ role: "user", content: "end" });
    texts.push("end");
  }
  return { messages, texts };
}

t.test("property: every user text arrives in order; every unknown field lands in the extras, and nothing else does", async (t) => {
  const r = rng(39);
  for (let i = 0; i < 300; i++) {
    const { messages, texts } = conversation(r);
    const unknown: Record<string, unknown> = {};
    for (const k of ["service_tier", "future_a", "prediction", "verbosity"]) if (r() < 0.4) unknown[k] = pick(r, [1, "x", { y: [1, 2] }, null, true]);
    const { input } = toCoreChatInput(parse({ model: "m", messages, ...unknown, ...(r() < 0.5 ? { temperature: r() } : {}) }), ctx);
    const userTexts = input.turns.filter((x) => x.role === Role.USER).flatMap((x) => x.parts.map(textOf));
    t.same(userTexts, texts, `case ${i}: user texts`);
    const sent = input.vendorExtras.openai ?? {};
    t.same(sent, unknown, `case ${i}: extras`);
    const named = messages.filter((m) => "name" in m).length;
    const carried = input.system.filter((p) => p.vendorExtras.openai).length + input.turns.filter((x) => x.vendorExtras.openai).length;
    t.equal(carried, named, `case ${i}: every message's own field rides with it`);
  }
});

t.test("web_search_options: the neutral web search, and as sent for OpenAI", async (t) => {
  const options = { search_context_size: "low", user_location: { type: "approximate", approximate: { city: "Paris", country: "FR", region: "IDF", timezone: "Europe/Paris" } } };
  const c = core({
    messages: [{ role: "user", content: "news?" }],
    tools: [{ type: "function", function: { name: "f" } }],
    functions: [{ name: "g" }],
    web_search_options: options,
  });
  t.same(
    c.input.tools.map((x) => x.kind.case),
    ["function", "function", "webSearch"],
    "after the tools and functions",
  );
  const w = c.input.tools[2]!.kind;
  if (w.case === "webSearch") {
    const l = w.value.userLocation;
    t.same([w.value.contextSize, l?.city, l?.region, l?.country, l?.timezone], ["low", "Paris", "IDF", "FR", "Europe/Paris"]);
  }
  t.same(c.input.vendorExtras.openai?.web_search_options, options, "the field itself, for an OpenAI channel");
  t.equal(c.clientField("tools[2]"), "web_search_options");
  t.equal(c.clientField("tools[1]"), "functions[0]");
  const empty = inputOf({ messages: [{ role: "user", content: "news?" }], web_search_options: {} });
  t.same(
    empty.tools.map((x) => x.kind.case),
    ["webSearch"],
    "empty options: a search with the defaults",
  );
  t.same(inputOf({ messages: [{ role: "user", content: "hi" }] }).tools, [], "none sent: no search");
});
