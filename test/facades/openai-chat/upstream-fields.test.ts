// An OpenAI client against fake upstreams of each kind. To an OpenAI(-compatible)
// channel the gateway is a faithful pass-through: the request reaches it as the
// client sent it, fields the gateway does not know, custom tools, newer parts
// and all, and what OpenAI answers beyond the neutral model (annotations,
// audio, logprobs, refusals, the fingerprint and tier) comes back. Anthropic
// and Gemini channels get the nearest equivalent in their own terms (custom
// tools emulated as functions), or a 400 naming the field the client sent.
import t from "tap";
import OpenAI from "openai";
import type { ChannelConfig } from "../../../src/config.js";
import { ADMIN_KEY, ONE_ATTEMPT, startServer, testChannel } from "../../helpers/app.js";
import { fixture, sseChunks, startFakeUpstream, type FakeUpstream, type Handler } from "../../fixtures/fake-upstream.js";

const chan = (name: string, provider: ChannelConfig["provider"], baseUrl: string, model: string) => testChannel(name, provider, baseUrl, [model]);
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const data = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;

interface Upstreams {
  openai: FakeUpstream;
  anthropic: FakeUpstream;
  gemini: FakeUpstream;
  client: OpenAI;
  baseUrl: string;
}

/** A gateway with an OpenAI-compatible (gpt-x), an Anthropic (claude-x) and a Gemini (gemini-x) channel, each a fake upstream. */
async function upstreams(t: { teardown(fn: () => unknown): void }, answers: { openai?: Handler; anthropic?: Handler; gemini?: Handler } = {}): Promise<Upstreams> {
  const openai = await startFakeUpstream(answers.openai ?? (() => ({ json: fixture("openai/chat-text.json") })));
  const anthropic = await startFakeUpstream(answers.anthropic ?? (() => ({ json: fixture("anthropic/message-text.json") })));
  const gemini = await startFakeUpstream(answers.gemini ?? (() => ({ json: fixture("gemini/text.json") })));
  const server = await startServer({
    config: {
      upstream: ONE_ATTEMPT,
      channels: [chan("o", "openai", `${openai.url}/v1`, "gpt-x"), chan("a", "anthropic", anthropic.url, "claude-x"), chan("g", "gemini", gemini.url, "gemini-x")],
    },
  });
  t.teardown(async () => {
    await server.close();
    await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
  });
  return { openai, anthropic, gemini, client: new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 }), baseUrl: server.baseUrl };
}

async function failure(p: Promise<unknown>): Promise<any> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

const WEATHER = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Current weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
    strict: true,
  },
};
const SQL = { type: "custom" as const, custom: { name: "sql", description: "Run SQL", format: { type: "grammar", grammar: { syntax: "lark", definition: "start: /SELECT .+/" } } } };

/** A request as a current client sends it, with what the gateway knows and what it does not, in the form it has after a round trip. */
const RICH = {
  model: "gpt-x",
  messages: [
    { role: "developer", content: "Answer briefly.", name: "ops" },
    {
      role: "user",
      content: [
        { type: "text", text: "What is in this picture, and the weather in Paris?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "high" } },
        { type: "input_audio", input_audio: { data: "UklGRiQAAABXQVZF", format: "wav" } },
        { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0xLjQK", filename: "a.pdf" } },
        { type: "future_part", future_part: { x: 1 } },
      ],
      name: "alice",
    },
    {
      role: "assistant",
      content: "Checking.",
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        { id: "call_2", type: "custom", custom: { name: "sql", input: "SELECT 1" } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "sunny" },
    { role: "tool", tool_call_id: "call_2", content: "1" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Well," },
        { type: "refusal", refusal: "I can't say more." },
      ],
    },
    { role: "system", content: "Be kind." },
    { role: "user", content: "Thanks" },
  ],
  tools: [WEATHER, SQL],
  tool_choice: "auto",
  parallel_tool_calls: true,
  response_format: {
    type: "json_schema",
    json_schema: { name: "answer", description: "The answer", schema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] }, strict: true },
  },
  max_tokens: 500,
  temperature: 0.3,
  top_p: 0.9,
  stop: ["END"],
  seed: 42,
  presence_penalty: 0.5,
  frequency_penalty: 0.25,
  n: 2,
  logprobs: true,
  top_logprobs: 2,
  reasoning_effort: "low",
  user: "user-7",
  // Fields the gateway does not name: to OpenAI as sent.
  prediction: { type: "content", content: "Paris is sunny." },
  modalities: ["text", "audio"],
  audio: { voice: "alloy", format: "wav" },
  metadata: { ticket: "T-1" },
  service_tier: "flex",
  store: true,
  verbosity: "low",
  web_search_options: { search_context_size: "low" },
  safety_identifier: "sid-1",
  prompt_cache_key: "pk-1",
  logit_bias: { "1234": -100 },
  future_field: { nested: [1, 2, 3] },
};

t.test("OpenAI upstream: the request reaches it as the client sent it, and the answer comes back whole", async (t) => {
  const annotation = { type: "url_citation", url_citation: { start_index: 0, end_index: 5, url: "https://example.com/paris", title: "Paris" } };
  const answer = {
    id: "chatcmpl-UP1",
    object: "chat.completion",
    created: 1741570283,
    model: "gpt-x-2026",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: '{"a":"Sunny"}',
          refusal: null,
          annotations: [annotation],
          audio: { id: "audio_1", data: "UklG", expires_at: 1741573883, transcript: "Sunny" },
          tool_calls: [{ id: "call_9", type: "custom", custom: { name: "sql", input: "SELECT 2" } }],
        },
        logprobs: { content: [{ token: "é", logprob: -0.1, bytes: [195, 169], top_logprobs: [{ token: "é", logprob: -0.1, bytes: [195, 169] }] }], refusal: null },
        finish_reason: "tool_calls",
      },
      { index: 1, message: { role: "assistant", content: null, refusal: "I can't help with that.", annotations: [] }, logprobs: null, finish_reason: "stop" },
    ],
    usage: {
      prompt_tokens: 1117,
      completion_tokens: 46,
      total_tokens: 1163,
      prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 12, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
    service_tier: "flex",
    system_fingerprint: "fp_up123",
  };
  const { openai, client } = await upstreams(t, { openai: () => ({ json: answer }) });
  const res = await client.chat.completions.create(RICH as never);
  const sent = openai.requests[0]!;
  t.equal(sent.path, "/v1/chat/completions");
  t.same(sent.body, RICH, "every field, message, part, tool and tool call as sent");

  t.equal(res.id, "chatcmpl-UP1", "the upstream's completion id");
  t.equal(res.model, "gpt-x", "the model the client named");
  t.equal(res.system_fingerprint, "fp_up123");
  t.equal(res.service_tier, "flex");
  const [a, b] = res.choices;
  t.same(a!.message, {
    role: "assistant",
    content: '{"a":"Sunny"}',
    refusal: null,
    annotations: [annotation],
    audio: answer.choices[0]!.message.audio,
    tool_calls: [{ id: "call_9", type: "custom", custom: { name: "sql", input: "SELECT 2" } }],
  });
  t.same(a!.logprobs, answer.choices[0]!.logprobs);
  t.equal(a!.finish_reason, "tool_calls");
  t.same(b!.message, { role: "assistant", content: null, refusal: "I can't help with that.", annotations: [] }, "a refusal in its own field");
  t.equal(b!.finish_reason, "stop");
  t.same(res.usage, answer.usage, "usage with cached and reasoning tokens");
});

t.test("OpenAI upstream, streamed: stream_options kept, annotations, refusals and a custom tool's call relayed", async (t) => {
  const annotation = { type: "url_citation", url_citation: { start_index: 0, end_index: 2, url: "https://x", title: "x" } };
  const head = { id: "chatcmpl-S1", object: "chat.completion.chunk", created: 1, model: "gpt-x-2026", system_fingerprint: "fp_s" };
  const chunk = (choices: unknown[], usage: unknown = null) => data({ ...head, choices, usage });
  const chunks = [
    chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: { content: "Hi " }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: { content: "there" }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: { annotations: [annotation] }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_c", type: "custom", custom: { name: "sql", input: "SELECT" } }] }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: { tool_calls: [{ index: 0, custom: { input: " 1" } }] }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: { tool_calls: [{ index: 1, id: "call_f", type: "function", function: { name: "get_weather", arguments: "" } }] }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '{"city":"Oslo"}' } }] }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" }]),
    chunk([], { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 }),
    "data: [DONE]\n\n",
  ];
  const refusal = [
    chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: { refusal: "I can't " }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: { refusal: "help." }, logprobs: null, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }]),
    "data: [DONE]\n\n",
  ];
  let which = chunks;
  const { openai, client } = await upstreams(t, { openai: () => ({ chunks: which }) });
  // Raw: the stream() helper of openai 6 takes only function calls.
  const stream = await client.chat.completions.create({
    model: "gpt-x",
    messages: [{ role: "user", content: "hi" }],
    tools: [WEATHER, SQL as never],
    stream: true,
    stream_options: { include_usage: true, include_obfuscation: false } as never,
  });
  const got: any[] = [];
  for await (const c of stream) got.push(c);
  t.same(openai.requests[0]!.body.stream_options, { include_usage: true, include_obfuscation: false }, "the client's stream options over the gateway's");
  t.same(openai.requests[0]!.body.tools, [WEATHER, SQL]);
  const deltas = got.flatMap((c) => c.choices.map((ch: any) => ch.delta));
  t.equal(deltas.map((d) => d.content ?? "").join(""), "Hi there");
  t.same(
    deltas.filter((d) => d.annotations),
    [{ annotations: [annotation] }],
  );
  t.same(
    deltas.flatMap((d) => d.tool_calls ?? []),
    [
      { index: 0, id: "call_c", type: "custom", custom: { name: "sql", input: "" } },
      { index: 0, custom: { input: "SELECT" } },
      { index: 0, custom: { input: " 1" } },
      { index: 1, id: "call_f", type: "function", function: { name: "get_weather", arguments: "" } },
      { index: 1, function: { arguments: '{"city":"Oslo"}' } },
    ],
    "a custom tool's call and then the function call, as they streamed",
  );
  t.equal(got.at(-2).choices[0].finish_reason, "tool_calls");
  t.same(got.at(-1).choices, []);
  t.equal(got.at(-1).usage.total_tokens, 13);
  t.ok(
    got.every((c) => c.id === "chatcmpl-S1"),
    "the upstream's completion id on every chunk",
  );

  which = refusal;
  const refused = await client.chat.completions.stream({ model: "gpt-x", messages: [{ role: "user", content: "hi" }] }).finalChatCompletion();
  t.same(refused.choices[0]!.message.refusal, "I can't help.", "refusal deltas in their own field");
  t.equal(refused.choices[0]!.message.content, null);
  t.equal(refused.choices[0]!.finish_reason, "stop");
});

t.test("Anthropic upstream: text, tools, streams, JSON and reasoning in Anthropic's terms", async (t) => {
  let reply: () => ReturnType<Handler> = () => ({ json: fixture("anthropic/message-text.json") });
  const { anthropic, client } = await upstreams(t, { anthropic: () => reply() });
  const res = await client.chat.completions.create({
    model: "claude-x",
    messages: [
      { role: "developer", content: "Be brief." },
      { role: "user", content: "Hi" },
    ],
    max_completion_tokens: 300,
    user: "u-1",
    service_tier: "flex",
    prediction: { type: "content", content: "x" },
  });
  const body = anthropic.requests[0]!.body;
  t.equal(body.system, "Be brief.", "a developer message is the system prompt");
  t.same(body.messages, [{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
  t.equal(body.max_tokens, 300);
  t.same(body.metadata, { user_id: "u-1" });
  t.notOk("prediction" in body || "service_tier" in body, "OpenAI's own fields are left out");
  t.equal(res.choices[0]!.finish_reason, "stop");
  t.ok(res.choices[0]!.message.content, "the text");
  t.match(res.id, /^chatcmpl-/, "a completion id of our own");

  reply = () => ({ json: fixture("anthropic/message-thinking-tool.json") });
  const tools = await client.chat.completions.create({
    model: "claude-x",
    messages: [{ role: "user", content: "weather in Paris?" }],
    tools: [WEATHER],
    tool_choice: "required",
    reasoning_effort: "high",
  });
  const tb = anthropic.requests[1]!.body;
  t.same(tb.tools, [{ name: "get_weather", description: "Current weather", input_schema: WEATHER.function.parameters }], "strict is OpenAI's: left out");
  t.same(tb.tool_choice, { type: "any" });
  t.same(tb.thinking, { type: "enabled", budget_tokens: 4096 }, "reasoning_effort turns thinking on with a budget");
  t.same(tb.output_config, { effort: "high" });
  const msg = tools.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
  t.equal(msg.reasoning_content, "The user wants the weather in Paris. I should call get_weather.");
  t.same(msg.tool_calls, [{ id: "toolu_01A09q90qw90lq917835lq9", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' } }]);
  t.equal(tools.choices[0]!.finish_reason, "tool_calls");
  t.same(tools.usage!.prompt_tokens_details, { cached_tokens: 2048, audio_tokens: 0 });
  t.equal(tools.usage!.prompt_tokens, 472 + 2048 + 100, "prompt tokens count cache reads and writes");

  await client.chat.completions.create({
    model: "claude-x",
    messages: [{ role: "user", content: "hi" }],
    response_format: { type: "json_schema", json_schema: { name: "a", strict: true, schema: { type: "object", properties: { a: { type: "string" } } } } },
    reasoning_effort: "none",
  });
  const jb = anthropic.requests[2]!.body;
  t.same(jb.output_config, { format: { type: "json_schema", schema: { type: "object", properties: { a: { type: "string" } } } } });
  t.same(jb.thinking, { type: "disabled" }, "none: thinking off");

  reply = () => ({ chunks: sseChunks("anthropic/stream-tool-use.sse") });
  const final = await client.chat.completions
    .stream({ model: "claude-x", messages: [{ role: "user", content: "weather?" }], tools: [WEATHER], stream_options: { include_usage: true } })
    .finalChatCompletion();
  t.equal(final.choices[0]!.message.content, "I'll check the weather.");
  const call = final.choices[0]!.message.tool_calls![0]!;
  t.same(call.type === "function" ? [call.id, call.function.name, JSON.parse(call.function.arguments)] : [], ["toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", { location: "San Francisco, CA" }]);
  t.equal(final.choices[0]!.finish_reason, "tool_calls");
  t.ok(final.usage!.prompt_tokens >= 377);

  reply = () => ({
    json: {
      id: "msg_c",
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [{ type: "tool_use", id: "toolu_c", name: "sql", input: { input: "SELECT 1" } }],
      stop_reason: "tool_use",
      usage: { input_tokens: 5, output_tokens: 3 },
    },
  });
  const custom = await client.chat.completions.create({ model: "claude-x", messages: [{ role: "user", content: "count rows" }], tools: [WEATHER, SQL as never] });
  t.same(
    anthropic.requests[4]!.body.tools[1],
    {
      name: "sql",
      description: 'Run SQL\n\nPut the whole input in the "input" string; it must follow the Lark grammar given in that parameter\'s description.',
      input_schema: {
        type: "object",
        properties: { input: { type: "string", description: "The tool's whole input as free text, sent as it is (not JSON-encoded). It must follow this Lark grammar:\nstart: /SELECT .+/" } },
        required: ["input"],
      },
    },
    "a custom tool, emulated: a function with one string parameter",
  );
  t.same(custom.choices[0]!.message.tool_calls, [{ id: "toolu_c", type: "custom", custom: { name: "sql", input: "SELECT 1" } }], "its call comes back as a custom tool's call");
  t.equal(custom.choices[0]!.finish_reason, "tool_calls");
  const bias = await failure(client.chat.completions.create({ model: "claude-x", messages: [{ role: "user", content: "hi" }], logit_bias: { "1": 5 } }));
  t.match(bias, { status: 400, param: "logit_bias" }, "nor can logit_bias");
  const seed = await failure(client.chat.completions.create({ model: "claude-x", messages: [{ role: "user", content: "hi" }], seed: 1 }));
  t.match(seed, { status: 400, param: "seed" }, "a setting Anthropic lacks names the client's field");
  t.equal(anthropic.requests.length, 5, "refusals never reach the upstream");
});

t.test("Gemini upstream: text, tools, streams, JSON and reasoning in Gemini's terms", async (t) => {
  let reply: () => ReturnType<Handler> = () => ({ json: fixture("gemini/text.json") });
  const { gemini, client } = await upstreams(t, { gemini: () => reply() });
  const res = await client.chat.completions.create({
    model: "gemini-x",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello" },
      { role: "developer", content: "Now in French." },
      { role: "user", content: "Again" },
    ],
    max_tokens: 100,
    stop: "END",
    n: 2,
    seed: 3,
    store: true,
  });
  const body = gemini.requests[0]!.body;
  t.match(gemini.requests[0]!.path, /models\/gemini-x:generateContent$/);
  t.same(body.systemInstruction, { parts: [{ text: "Be brief." }] });
  t.same(
    body.contents.map((c: { role: string; parts: { text: string }[] }) => [c.role, c.parts[0]!.text]),
    [
      ["user", "Hi"],
      ["model", "Hello"],
      ["user", "<system_instruction>\nNow in French.\n</system_instruction>"],
      ["user", "Again"],
    ],
    "a later system message is a marked user turn at its place",
  );
  t.match(body.generationConfig, { maxOutputTokens: 100, stopSequences: ["END"], candidateCount: 2, seed: 3 });
  t.notOk("store" in body);
  t.ok(res.choices[0]!.message.content);

  reply = () => ({ json: fixture("gemini/thinking-function-call.json") });
  const tools = await client.chat.completions.create({
    model: "gemini-x",
    messages: [{ role: "user", content: "weather?" }],
    tools: [WEATHER],
    tool_choice: { type: "function", function: { name: "get_weather" } },
    reasoning_effort: "high",
    response_format: { type: "json_object" },
  });
  const tb = gemini.requests[1]!.body;
  t.equal(tb.tools[0].functionDeclarations[0].name, "get_weather");
  t.same(tb.toolConfig, { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } });
  t.same(tb.generationConfig.thinkingConfig, { includeThoughts: true, thinkingLevel: "HIGH" }, "reasoning_effort as a thinking level, thoughts asked for");
  t.equal(tb.generationConfig.responseMimeType, "application/json");
  const msg = tools.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
  t.match(msg.reasoning_content, /^\*\*Planning the lookup\*\*/);
  const call = msg.tool_calls![0]!;
  t.same(call.type === "function" ? [call.function.name, JSON.parse(call.function.arguments)] : [], ["get_weather", { city: "Paris" }]);
  t.equal(tools.choices[0]!.finish_reason, "tool_calls");
  t.equal(tools.usage!.completion_tokens_details!.reasoning_tokens, 45);

  await client.chat.completions.create({ model: "gemini-x", messages: [{ role: "user", content: "hi" }], reasoning_effort: "none" });
  t.same(gemini.requests[2]!.body.generationConfig.thinkingConfig, { thinkingBudget: 0 }, "none: no thinking");

  reply = () => ({ chunks: sseChunks("gemini/stream-thinking-tools.sse") });
  const final = await client.chat.completions.stream({ model: "gemini-x", messages: [{ role: "user", content: "weather?" }], tools: [WEATHER] }).finalChatCompletion();
  t.match(gemini.requests[3]!.path, /:streamGenerateContent$/);
  t.equal(final.choices[0]!.message.content, "Checking now.");
  t.ok(final.choices[0]!.message.tool_calls?.length, "the streamed call");
  t.equal(final.choices[0]!.finish_reason, "tool_calls");

  const url = await failure(client.chat.completions.create({ model: "gemini-x", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }] }));
  t.match(url, { status: 400, param: "messages[0].content[0]" }, "an image by URL Gemini cannot fetch names the part");
  reply = () => ({
    json: { candidates: [{ content: { role: "model", parts: [{ functionCall: { name: "sql", args: { input: "SELECT 2" } } }] }, finishReason: "STOP", index: 0 }], modelVersion: "gemini-x" },
  });
  const custom = await client.chat.completions.create({ model: "gemini-x", messages: [{ role: "user", content: "hi" }], tools: [SQL as never] });
  const decl = gemini.requests[4]!.body.tools[0].functionDeclarations[0];
  t.same([decl.name, Object.keys(decl.parameters.properties), decl.parameters.required], ["sql", ["input"], ["input"]], "a custom tool, emulated");
  const customCall = custom.choices[0]!.message.tool_calls![0]! as unknown as { type: string; custom: unknown };
  t.same([customCall.type, customCall.custom], ["custom", { name: "sql", input: "SELECT 2" }], "its call comes back as a custom tool's call");
  t.equal(gemini.requests.length, 5);
});
