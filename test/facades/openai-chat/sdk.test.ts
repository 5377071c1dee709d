// POST /v1/chat/completions through the official openai SDK (the root
// package) against a real gateway on the local engine: create, the stream()
// helper, streamed tool calls, structured output, the usage chunk, files,
// reasoning, the legacy functions API, key scopes, and errors with the SDK's
// own classes.
import t from "tap";
import OpenAI, { toFile } from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { Ajv } from "ajv";
import type { ChatCompletionChunk, ChatCompletionTool } from "openai/resources/chat/completions";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";

const MODEL = "gpt-4o-mini";
let server: TestServer;
t.before(async () => {
  // The local engine serves MODEL only, so other names are unknown models.
  server = await startServer({ config: { local: { chatModels: [MODEL, "gpt-5"] } } as never });
});
t.teardown(() => server.close());

const client = (apiKey = ADMIN_KEY) => new OpenAI({ apiKey, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
async function failure(p: Promise<unknown>): Promise<any> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

const WEATHER: ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
    strict: true,
  },
};
const TIME: ChatCompletionTool = {
  type: "function",
  function: { name: "get_time", parameters: { type: "object", properties: { timezone: { type: "string" } }, required: ["timezone"] } },
};

t.test("create: a text answer in OpenAI's shape", async (t) => {
  const before = Math.floor(Date.now() / 1000);
  const res = await client().chat.completions.create({
    model: MODEL,
    messages: [
      { role: "system", content: "Be terse." },
      { role: "user", content: "hello gateway" },
    ],
  });
  t.match(res.id, /^chatcmpl-[0-9a-f]+$/);
  t.equal(res.object, "chat.completion");
  t.ok(res.created >= before - 1 && res.created <= before + 60, "created: Unix seconds");
  t.equal(res.model, MODEL);
  t.match(res.system_fingerprint, /^fp_/);
  t.same(res.choices, [{ index: 0, message: { role: "assistant", content: "You said: hello gateway", refusal: null, annotations: [] }, logprobs: null, finish_reason: "stop" }]);
  t.ok(res.usage!.prompt_tokens > 0 && res.usage!.completion_tokens > 0);
  t.equal(res.usage!.total_tokens, res.usage!.prompt_tokens + res.usage!.completion_tokens);
  t.same(res.usage!.completion_tokens_details, { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 });
  t.match(res._request_id, /^req_/, "the request-id header reaches the SDK");
});

t.test("the stream() helper: finalChatCompletion and content events", async (t) => {
  const stream = client().chat.completions.stream({ model: MODEL, messages: [{ role: "user", content: "stream these words back" }] });
  let deltas = "";
  stream.on("content", (d) => (deltas += d));
  const final = await stream.finalChatCompletion();
  t.equal(final.choices[0]!.message.content, "You said: stream these words back");
  t.equal(final.choices[0]!.finish_reason, "stop");
  t.equal(deltas, "You said: stream these words back");
  t.equal(final.model, MODEL);
  t.match(final.id, /^chatcmpl-/);
});

t.test("streamed tool calls: the wire and the helper; the result goes back", async (t) => {
  const prompt = "Use get_weather for Tokyo and get_time as well";
  const raw = await client().chat.completions.create({ model: MODEL, messages: [{ role: "user", content: prompt }], tools: [WEATHER, TIME], stream: true });
  const chunks: ChatCompletionChunk[] = [];
  for await (const c of raw) chunks.push(c);
  const firsts = chunks.flatMap((c) => c.choices.flatMap((ch) => (ch.delta.tool_calls ?? []).filter((tc) => tc.id)));
  t.same(
    firsts.map((tc) => [tc.index, tc.type, tc.function?.name, tc.function?.arguments]),
    [
      [0, "function", "get_weather", ""],
      [1, "function", "get_time", ""],
    ],
    "each call's first delta: index, id, type, name",
  );
  t.ok(
    chunks.every((c) => c.id === chunks[0]!.id && c.created === chunks[0]!.created && c.model === MODEL),
    "one id, created and model",
  );
  t.equal(chunks.at(-1)!.choices[0]!.finish_reason, "tool_calls");

  const stream = client().chat.completions.stream({ model: MODEL, messages: [{ role: "user", content: prompt }], tools: [WEATHER, TIME] });
  const done: string[] = [];
  stream.on("tool_calls.function.arguments.done", (e) => done.push(e.name));
  const final = await stream.finalChatCompletion();
  const msg = final.choices[0]!.message;
  t.same(done, ["get_weather", "get_time"]);
  t.equal(msg.content, null);
  const call = msg.tool_calls![0]!;
  t.same(call.type === "function" ? JSON.parse(call.function.arguments) : undefined, { city: "Tokyo" });

  const back = await client().chat.completions.create({
    model: MODEL,
    tools: [WEATHER, TIME],
    messages: [{ role: "user", content: prompt }, msg, ...msg.tool_calls!.map((c) => ({ role: "tool" as const, tool_call_id: c.id, content: `result of ${c.id}` }))],
  });
  t.equal(back.choices[0]!.finish_reason, "stop");
  t.match(back.choices[0]!.message.content, /^The tool get_weather returned: result of /, "the tool results are tied to their calls");
});

t.test("a custom tool (Codex's apply_patch): the call carries the fenced patch, streamed too; the result goes back", async (t) => {
  const patch = "*** Begin Patch\n*** Add File: hello.txt\n+Hello\n*** End Patch";
  const tools = [
    {
      type: "custom",
      custom: {
        name: "apply_patch",
        format: { type: "grammar", grammar: { syntax: "lark", definition: 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\nend_patch: "*** End Patch" LF?' } },
      },
    },
  ] as never;
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Add the file:\n```\n" + patch + "\n```" }];
  const res = await client().chat.completions.create({ model: MODEL, messages, tools });
  const call = res.choices[0]!.message.tool_calls![0]!;
  t.same(call.type === "custom" && call.custom, { name: "apply_patch", input: patch });
  t.equal(res.choices[0]!.finish_reason, "tool_calls");

  const stream = await client().chat.completions.create({ model: MODEL, messages, tools, stream: true });
  const deltas: any[] = [];
  for await (const c of stream) deltas.push(...(c.choices[0]?.delta.tool_calls ?? []));
  t.match(deltas[0], { index: 0, type: "custom", custom: { name: "apply_patch", input: "" } });
  t.equal(deltas.map((d) => d.custom?.input ?? "").join(""), patch, "input fragments add up to the patch");

  const answer = await client().chat.completions.create({
    model: MODEL,
    tools,
    messages: [...messages, { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: call.id, content: "Success. Updated: A hello.txt" }],
  });
  t.equal(answer.choices[0]!.message.content, "The tool apply_patch returned: Success. Updated: A hello.txt");
});

t.test("response_format json_schema: schema-valid JSON, streamed too", async (t) => {
  const schema = {
    type: "object",
    properties: { name: { type: "string" }, age: { type: "integer" }, tags: { type: "array", items: { type: "string" } } },
    required: ["name", "age", "tags"],
    additionalProperties: false,
  };
  const validate = new Ajv().compile(schema);
  const rf = { type: "json_schema" as const, json_schema: { name: "person", strict: true, schema } };
  const res = await client().chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Describe Grace Hopper, age 85" }], response_format: rf });
  const value = JSON.parse(res.choices[0]!.message.content!);
  t.ok(validate(value), `valid against the schema: ${res.choices[0]!.message.content}`);
  const streamed = await client()
    .chat.completions.stream({ model: MODEL, messages: [{ role: "user", content: "Describe Grace Hopper, age 85" }], response_format: rf })
    .finalChatCompletion();
  t.ok(validate(JSON.parse(streamed.choices[0]!.message.content!)), "streamed: valid too");
  const obj = await client().chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Reply in JSON" }], response_format: { type: "json_object" } });
  const v = JSON.parse(obj.choices[0]!.message.content!);
  t.ok(v && typeof v === "object" && !Array.isArray(v), "json_object: an object");
});

t.test("stream_options.include_usage: a last chunk with empty choices and the usage", async (t) => {
  const stream = await client().chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "count me" }], stream: true, stream_options: { include_usage: true } });
  const chunks: ChatCompletionChunk[] = [];
  for await (const c of stream) chunks.push(c);
  const last = chunks.at(-1)!;
  t.same(last.choices, []);
  t.ok(last.usage!.prompt_tokens > 0 && last.usage!.total_tokens === last.usage!.prompt_tokens + last.usage!.completion_tokens);
  t.ok(
    chunks.slice(0, -1).every((c) => c.usage === null),
    "usage: null elsewhere",
  );
  t.equal(chunks[0]!.choices[0]!.delta.role, "assistant");
  const final = await client()
    .chat.completions.stream({ model: MODEL, messages: [{ role: "user", content: "count me" }], stream_options: { include_usage: true } })
    .finalChatCompletion();
  t.equal(final.usage?.total_tokens, last.usage!.total_tokens, "the helper keeps the usage");
  const plain = await (await post({ model: MODEL, messages: [{ role: "user", content: "x" }], stream: true })).text();
  t.notMatch(plain, /"usage"/, "not asked: no usage anywhere");
  t.match(plain, /data: \[DONE\]\n\n$/);
});

t.test("reasoning_effort: the thinking comes back as reasoning_content", async (t) => {
  const res = await client().chat.completions.create({ model: "gpt-5", messages: [{ role: "user", content: "hi" }], reasoning_effort: "low" });
  t.match(res.choices[0]!.message, { content: "You said: hi", reasoning_content: /^Let me think/ });
  t.ok(res.usage!.completion_tokens_details!.reasoning_tokens! > 0, "reasoning tokens counted");
  const off = await client().chat.completions.create({ model: "gpt-5", messages: [{ role: "user", content: "hi" }], reasoning_effort: "none" });
  t.notOk("reasoning_content" in off.choices[0]!.message, "none: no thinking");
  const streamed = await client().chat.completions.create({ model: "gpt-5", messages: [{ role: "user", content: "hi" }], reasoning_effort: "medium", stream: true });
  let reasoning = "";
  let content = "";
  for await (const c of streamed) {
    reasoning += (c.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? "";
    content += c.choices[0]?.delta.content ?? "";
  }
  // (The stream() helper keeps only the last reasoning_content fragment: it assigns fields it does not know.)
  t.match(reasoning, /^Let me think.*\.$/s, "streamed: reasoning_content deltas, before the content");
  t.equal(content, "You said: hi");
});

t.test("images, and a file uploaded through the Files API named by id", async (t) => {
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
  const res = await client().chat.completions.create({
    model: MODEL,
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "what is this" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${png}`, detail: "low" } },
        ],
      },
    ],
  });
  t.equal(res.choices[0]!.message.content, "You said: what is this");
  const plain = await client().chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "what is this" }] });
  t.ok(res.usage!.prompt_tokens > plain.usage!.prompt_tokens, "the image counts as input");

  const anthropic = new Anthropic({ apiKey: ADMIN_KEY, baseURL: server.baseUrl, maxRetries: 0 });
  const file = await anthropic.beta.files.upload({ file: await toFile(Buffer.from("%PDF-1.4\n%%EOF\n"), "doc.pdf", { type: "application/pdf" }) });
  const withFile = await client().chat.completions.create({
    model: MODEL,
    messages: [
      {
        role: "user",
        content: [
          { type: "file", file: { file_id: file.id } },
          { type: "text", text: "summarise" },
        ],
      },
    ],
  });
  t.equal(withFile.choices[0]!.message.content, "You said: summarise");
  t.ok(withFile.usage!.prompt_tokens > plain.usage!.prompt_tokens, "the file was read in");
  const missing = await failure(
    client().chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: [{ type: "file", file: { file_id: "file_nope" } }] }],
    }),
  );
  t.ok(missing instanceof OpenAI.NotFoundError, `an unknown file: NotFoundError (${missing?.message})`);
  t.equal(missing?.param, "messages[0].content[0].file.file_id", "naming the file id");
});

t.test("the legacy functions API", async (t) => {
  const res = await client().chat.completions.create({
    model: MODEL,
    messages: [{ role: "user", content: "Use get_weather for Paris" }],
    functions: [{ name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }],
  });
  const c = res.choices[0]!;
  t.equal(c.finish_reason, "function_call");
  t.same(c.message.function_call && { name: c.message.function_call.name, args: JSON.parse(c.message.function_call.arguments) }, { name: "get_weather", args: { city: "Paris" } });
  t.notOk(c.message.tool_calls, "no tool_calls for a functions client");
});

t.test("errors in OpenAI's shape, with the SDK's classes", async (t) => {
  const auth = await failure(client("sk-og-wrong").chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hi" }] }));
  t.ok(auth instanceof OpenAI.AuthenticationError, "a wrong key: AuthenticationError");
  t.match(auth, { status: 401, code: "invalid_api_key", type: "invalid_request_error" });
  const none = await post({ model: MODEL, messages: [] }, { authorization: "" });
  t.equal(none.status, 401, "no key: 401 before the body is looked at");
  t.match(await none.json(), { error: { message: /You didn't provide an API key/, type: "invalid_request_error", param: null, code: "invalid_api_key" } });

  const unknown = await failure(client().chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "Hi" }] }));
  t.ok(unknown instanceof OpenAI.NotFoundError, "an unknown model: NotFoundError");
  t.match(unknown, { status: 404, code: "model_not_found", message: "404 The model `no-such-model` does not exist or you do not have access to it." });
  const unknownStream = await failure(client().chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "Hi" }], stream: true }));
  t.match(unknownStream, { status: 404, code: "model_not_found" }, "a stream fails before its 200");

  const bad = await failure(client().chat.completions.create({ model: MODEL, messages: [] }));
  t.ok(bad instanceof OpenAI.BadRequestError);
  t.match(bad, { status: 400, param: "messages", code: "empty_array", type: "invalid_request_error" });
  const role = await failure(client().chat.completions.create({ model: MODEL, messages: [{ role: "robot", content: "x" } as never] }));
  t.match(role, { status: 400, param: "messages[0].role", message: /Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'\./ });
  const temp = await failure(client().chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "x" }], temperature: "hot" as never }));
  t.match(temp, { status: 400, param: "temperature", code: "invalid_type" });

  const notJson = await post("{not json");
  t.equal(notJson.status, 400);
  t.match(await notJson.json(), { error: { message: /^We could not parse the JSON body of your request/, type: "invalid_request_error", param: null, code: null } });
  const textPlain = await post(JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "x" }] }), { "content-type": "text/plain" });
  t.equal(textPlain.status, 400, "a body that is not JSON by its type");
  t.match(await textPlain.json(), { error: { type: "invalid_request_error" } });
  const array = await post("[]");
  t.equal(array.status, 400);

  const limited = await failure(client().chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hello #fault:rate_limit" }] }));
  t.ok(limited instanceof OpenAI.RateLimitError);
  t.equal(limited.headers.get("retry-after"), "1");
  t.equal(limited.headers.get("retry-after-ms"), "1000");
  t.match(limited, { code: "rate_limit_exceeded" });
  const internal = await failure(client().chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hello #fault:internal" }] }));
  t.ok(internal instanceof OpenAI.InternalServerError);
  t.match(internal, { status: 500, type: "server_error", message: "500 The server had an error while processing your request. Sorry about that!" });

  const midstream = await client().chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hello there #fault:midstream" }], stream: true });
  let got = "";
  const broken = await failure(
    (async () => {
      for await (const c of midstream) got += c.choices[0]?.delta.content ?? "";
    })(),
  );
  t.ok(broken instanceof OpenAI.APIError, "an error after the 200: APIError from the stream");
  t.ok(got.length > 0, "after some text");
  t.match(broken?.error, { type: "server_error" });
});

t.test("keys scoped to formats; the path is this facade's whatever the caller's headers", async (t) => {
  const create = async (formats: string[]) => {
    const res = await fetch(`${server.baseUrl}/omnigate.admin.v1.AdminService/CreateKey`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ key: { name: "scoped", formats } }),
    });
    return ((await res.json()) as { secret: string }).secret;
  };
  const mine = await create(["openai-chat"]);
  const other = await create(["messages"]);
  const ok = await client(mine).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hi" }] });
  t.equal(ok.choices[0]!.message.content, "You said: Hi", "a key scoped to openai-chat");
  const denied = await failure(client(other).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hi" }] }));
  t.ok(denied instanceof OpenAI.PermissionDeniedError, "a key scoped to another format: PermissionDeniedError");
  t.match(denied, { status: 403, code: "format_not_allowed" });
  const withAnthropicHeader = await post({ model: MODEL, messages: [{ role: "user", content: "Hi" }] }, { "anthropic-version": "2023-06-01" });
  t.equal(withAnthropicHeader.status, 200, "the route wins over the shared /v1 fallback");
});
