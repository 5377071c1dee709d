// POST /v1/chat/completions against the gateway's local engine, through the
// real clients (pinned in test/clients/package.json), unchanged: openai 7.59
// and 6.49 (raw create, raw streams, the stream() helper, parse() with zod,
// tools, errors), @ai-sdk/openai in chat mode, @langchain/openai ChatOpenAI
// and @openai/agents on Chat Completions. What each of them needs from the
// wire is in /work/shared/notes/openai-formats.md (A.3-A.6, D, E.3, E.4).
import t from "tap";
import type OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionTool } from "openai/resources/chat/completions";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";
import { installClients, startGateway, type Exchange, type Gateway } from "./harness.js";
import { fakeCallId, GRACE, heard, read, schemaAsked, startFakeUpstreams, toolParameters, UPSTREAM_MODEL, VENDORS, type Vendor } from "./fakes.js";

// The packages exist once the suite has installed them: imported after that.
await installClients();
const openai7 = await import("openai");
const openai6 = await import("openai6");
const VERSIONS = { 7: (await import("openai/version")).VERSION, 6: (await import("openai6/version")).VERSION };
const zod7 = await import("openai/helpers/zod");
const zod6 = await import("openai6/helpers/zod");
const { z } = await import("zod");
const { createOpenAI } = await import("@ai-sdk/openai");
const { generateObject, generateText, stepCountIs, streamText, tool: aiTool } = await import("ai");
const { ChatOpenAI } = await import("@langchain/openai");
const { HumanMessage } = await import("@langchain/core/messages");
type AIMessageChunk = import("@langchain/core/messages").AIMessageChunk;
const { tool: lcTool } = await import("@langchain/core/tools");
const agents = await import("@openai/agents");

const MODEL = "gpt-4o-mini";

let gw: Gateway;
/** A gateway whose local engine serves MODEL only: other names are unknown models. */
let narrow: TestServer;
t.before(async () => {
  gw = await startGateway();
  narrow = await startServer({ config: { local: { chatModels: [MODEL] } } as never });
});
t.teardown(async () => {
  await gw?.close();
  await narrow?.close();
});

const baseURL = () => `${gw.url}/v1`;

/** The last exchange the proxy saw. */
const lastExchange = (): Exchange => gw.exchanges.at(-1)!;

/** The error a promise rejects with (undefined when it resolves). */
async function failure(p: Promise<unknown>): Promise<any> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return err;
  }
}

/** The JSON objects of an SSE answer's `data:` lines (not `[DONE]`, nor what is not JSON). */
function sseObjects(answer: string): any[] {
  return answer.split("\n").flatMap((l) => {
    if (!l.startsWith("data:")) return [];
    try {
      return [JSON.parse(l.slice(5))];
    } catch {
      return [];
    }
  });
}

const WEATHER: ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
      required: ["city"],
      additionalProperties: false,
    },
  },
};
const TIME: ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_time",
    description: "Current time in a time zone",
    parameters: { type: "object", properties: { timezone: { type: "string" } }, required: ["timezone"], additionalProperties: false },
  },
};

/** A 1x1 PNG. */
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const Person = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()) });
const PERSON_PROMPT = "Describe the person Grace Hopper, age 85";

// ---------------------------------------------------------------------------------------------------
// openai 7.59 and 6.49

type Sdk = typeof import("openai");
type ZodHelpers = typeof import("openai/helpers/zod");
const SDKS: Array<{ label: string; version: string; sdk: Sdk; zod: ZodHelpers }> = [
  { label: "openai 7.59", version: VERSIONS[7], sdk: openai7, zod: zod7 },
  // 6.49's types are 7's minus the newer fields; the code paths are what is tested.
  { label: "openai 6.49", version: VERSIONS[6], sdk: openai6 as unknown as Sdk, zod: zod6 as unknown as ZodHelpers },
];

for (const { label, version, sdk, zod } of SDKS) {
  t.test(label, async (t) => {
    const client: OpenAI = new sdk.default({ apiKey: ADMIN_KEY, baseURL: baseURL(), maxRetries: 0 });
    t.equal(`openai ${version.split(".").slice(0, 2).join(".")}`, label, `the package loaded is openai ${version}`);

    t.test("create: text", async (t) => {
      const res = await client.chat.completions.create({
        model: MODEL,
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "Hello there" },
        ],
      });
      t.equal(res.object, "chat.completion");
      t.ok(typeof res.id === "string" && res.id.length > 0, "an id");
      t.ok(Math.abs(res.created - Date.now() / 1000) < 600, `created is a Unix time in seconds (${res.created})`);
      t.equal(res.model, MODEL, "the model name echoed");
      t.equal(res.choices.length, 1);
      const c = res.choices[0]!;
      t.equal(c.index, 0);
      t.equal(c.message.role, "assistant");
      t.equal(c.message.content, "You said: Hello there", "the local engine's answer");
      t.equal(c.finish_reason, "stop");
      const u = res.usage!;
      t.ok(u.prompt_tokens > 0 && u.completion_tokens > 0, "usage counts both sides");
      t.equal(u.total_tokens, u.prompt_tokens + u.completion_tokens, "total = prompt + completion");
      t.match(lastExchange(), { method: "POST", url: "/v1/chat/completions", status: 200 }, "POST /v1/chat/completions");
    });

    t.test("create: developer role, content parts, history", async (t) => {
      const parts = await client.chat.completions.create({
        model: MODEL,
        messages: [
          { role: "developer", content: [{ type: "text", text: "Answer briefly." }] },
          {
            role: "user",
            content: [
              { type: "text", text: "Hello" },
              { type: "text", text: "world" },
            ],
          },
        ],
      });
      t.equal(parts.choices[0]!.message.content, "You said: Hello world", "a developer message and text parts");
      const history = await client.chat.completions.create({
        model: MODEL,
        messages: [
          { role: "user", content: "first" },
          { role: "assistant", content: "You said: first" },
          { role: "user", content: "second" },
        ],
      });
      t.equal(history.choices[0]!.message.content, "You said: second", "the last user turn is answered");
      const image = await client.chat.completions.create({
        model: MODEL,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is in this picture?" },
              { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_1X1}`, detail: "low" } },
            ],
          },
        ],
      });
      t.equal(image.choices[0]!.message.content, "You said: What is in this picture?", "an image_url part (data URL) is accepted");
      t.ok(image.usage!.prompt_tokens > history.usage!.prompt_tokens, "and counted in the prompt tokens");
    });

    t.test("create: logprobs", async (t) => {
      const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hello there" }], logprobs: true, top_logprobs: 2 });
      const lp = res.choices[0]!.logprobs?.content ?? [];
      t.ok(lp.length > 1, `one entry per token (${lp.length})`);
      t.equal(lp.map((x) => x.token).join(""), res.choices[0]!.message.content, "the tokens make the text");
      t.ok(
        lp.every((x) => x.logprob <= 0 && x.top_logprobs.length === 2 && x.top_logprobs.every((y) => y.logprob <= 0)),
        "log probabilities <= 0, two alternatives each",
      );
      const none = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hello there" }] });
      t.notOk(none.choices[0]!.logprobs, "none unless asked");
    });

    t.test("create: max_completion_tokens, max_tokens, stop, n", async (t) => {
      const long = "please repeat this fairly long sentence back to me word for word, all of it";
      for (const limit of [{ max_completion_tokens: 3 }, { max_tokens: 3 }]) {
        const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: long }], ...limit });
        const key = Object.keys(limit)[0];
        t.equal(res.choices[0]!.finish_reason, "length", `${key}: finish_reason length`);
        t.ok(res.usage!.completion_tokens <= 3, `${key}: at most 3 completion tokens (${res.usage!.completion_tokens})`);
        t.ok((res.choices[0]!.message.content ?? "").length < `You said: ${long}`.length, `${key}: the text is cut`);
      }
      const stopped = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hello there" }], stop: ["said"] });
      t.equal(stopped.choices[0]!.finish_reason, "stop", "stop: finish_reason stop");
      t.notOk(stopped.choices[0]!.message.content?.includes("said"), `stop: the text ends before the stop sequence (${JSON.stringify(stopped.choices[0]!.message.content)})`);
      const two = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hello there" }], n: 2 });
      t.same(
        two.choices.map((c) => c.index),
        [0, 1],
        "n: 2 gives choices 0 and 1",
      );
      t.ok(
        two.choices.every((c) => c.message.content === "You said: Hello there"),
        "n: each choice answers",
      );
    });

    t.test("raw stream with stream_options.include_usage", async (t) => {
      const stream = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "stream these words back" }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks: ChatCompletionChunk[] = [];
      for await (const c of stream) chunks.push(c);
      t.ok(chunks.length >= 4, `several chunks (${chunks.length})`);
      t.ok(
        chunks.every((c) => c.object === "chat.completion.chunk" && c.id === chunks[0]!.id && c.model === MODEL),
        "every chunk: object chat.completion.chunk, one id, the model echoed",
      );
      t.ok(chunks[0]!.id, "chunks carry an id");
      t.equal(chunks[0]!.choices[0]?.delta.role, "assistant", "role on the first delta");
      const texts = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? ""));
      t.equal(texts.join(""), "You said: stream these words back", "the deltas make the answer");
      t.ok(texts.filter(Boolean).length > 1, "in more than one delta");
      t.same(
        chunks.flatMap((c) => c.choices.flatMap((ch) => (ch.finish_reason ? [ch.finish_reason] : []))),
        ["stop"],
        "one finish_reason chunk: stop",
      );
      const last = chunks.at(-1)!;
      t.same(last.choices, [], "the usage chunk comes last, with empty choices");
      t.ok(last.usage && last.usage.prompt_tokens > 0 && last.usage.completion_tokens > 0, "and the usage");
      t.equal(last.usage?.total_tokens, (last.usage?.prompt_tokens ?? 0) + (last.usage?.completion_tokens ?? 0));
      t.ok(
        chunks.slice(0, -1).every((c) => c.usage == null),
        "no usage on the other chunks",
      );
      t.match(lastExchange().answer, /data: \[DONE\]\s*$/, "the stream ends with data: [DONE]");

      const plain = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "stream these words back" }], stream: true });
      const plainChunks: ChatCompletionChunk[] = [];
      for await (const c of plain) plainChunks.push(c);
      t.ok(
        plainChunks.every((c) => c.choices.length > 0 && c.usage == null),
        "without include_usage: no usage chunk (clients index choices[0])",
      );
      t.equal(plainChunks.map((c) => c.choices[0]?.delta.content ?? "").join(""), "You said: stream these words back");
    });

    t.test("the stream() helper: finalChatCompletion", async (t) => {
      const stream = client.chat.completions.stream({ model: MODEL, messages: [{ role: "user", content: "stream these words back" }], stream_options: { include_usage: true } });
      let deltas = "";
      stream.on("content", (d) => (deltas += d));
      const final = await stream.finalChatCompletion();
      const c = final.choices[0]!;
      t.equal(final.model, MODEL);
      t.equal(c.message.role, "assistant");
      t.equal(c.message.content, "You said: stream these words back");
      t.equal(c.finish_reason, "stop");
      t.equal(deltas, "You said: stream these words back", "content events");
      t.ok(final.usage && final.usage.total_tokens > 0, "usage kept (the usage chunk has the stream's id)");
      t.equal(await stream.finalContent(), "You said: stream these words back");
    });

    t.test("tools: a call, the result back, forced and refused choices", async (t) => {
      const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Use get_weather for Tokyo" }], tools: [WEATHER] });
      const c = res.choices[0]!;
      t.equal(c.finish_reason, "tool_calls");
      t.notOk(c.message.content, "no text beside the call");
      const call = c.message.tool_calls?.[0];
      t.equal(c.message.tool_calls?.length, 1, "one call");
      t.ok(call && typeof call.id === "string" && call.id.length > 0, "with an id");
      t.equal(call?.type, "function");
      const fn = call?.type === "function" ? call.function : undefined;
      t.equal(fn?.name, "get_weather");
      t.same(JSON.parse(fn?.arguments ?? "null"), { city: "Tokyo" }, "arguments: a JSON string with the city from the prompt");

      const result = JSON.stringify({ temperature: 18, sky: "clear" });
      const back = await client.chat.completions.create({
        model: MODEL,
        tools: [WEATHER],
        messages: [{ role: "user", content: "Use get_weather for Tokyo" }, c.message, { role: "tool", tool_call_id: call!.id, content: result }],
      });
      t.equal(back.choices[0]!.finish_reason, "stop", "the result goes back: no new call");
      t.equal(back.choices[0]!.message.content, `The tool get_weather returned: ${result}`, "the tool message is tied to its call");

      const forced = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "What is it like outside in Oslo?" }],
        tools: [WEATHER, TIME],
        tool_choice: { type: "function", function: { name: "get_weather" } },
      });
      const fc = forced.choices[0]!.message.tool_calls?.[0];
      t.equal(fc?.type === "function" ? fc.function.name : undefined, "get_weather", "tool_choice {type: function} forces that tool");
      t.same(JSON.parse(fc?.type === "function" ? fc.function.arguments : "null"), { city: "Oslo" });
      const required = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hi" }], tools: [TIME], tool_choice: "required" });
      t.equal(required.choices[0]!.finish_reason, "tool_calls", "tool_choice required calls a tool");
      const none = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Use get_weather for Tokyo" }], tools: [WEATHER], tool_choice: "none" });
      t.equal(none.choices[0]!.message.tool_calls?.length ?? 0, 0, "tool_choice none: no call");
      t.equal(none.choices[0]!.message.content, "You said: Use get_weather for Tokyo");

      const two = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Use get_weather for Tokyo and get_time as well" }], tools: [WEATHER, TIME] });
      const calls = two.choices[0]!.message.tool_calls ?? [];
      t.same(
        calls.map((x) => (x.type === "function" ? x.function.name : x.type)),
        ["get_weather", "get_time"],
        "two calls, in the order asked",
      );
      t.equal(new Set(calls.map((x) => x.id)).size, 2, "with distinct ids");
      const one = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: "Use get_weather for Tokyo and get_time as well" }],
        tools: [WEATHER, TIME],
        parallel_tool_calls: false,
      });
      t.equal(one.choices[0]!.message.tool_calls?.length, 1, "parallel_tool_calls false: one call");
    });

    t.test("streamed tool calls: the wire and the helper", async (t) => {
      const prompt = "Use get_weather for Tokyo and get_time as well";
      const raw = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: prompt }], tools: [WEATHER, TIME], stream: true });
      const firsts = new Map<number, ChatCompletionChunk.Choice.Delta.ToolCall>();
      const args = new Map<number, string>();
      let finish: string | null = null;
      for await (const chunk of raw) {
        for (const ch of chunk.choices) {
          finish = ch.finish_reason ?? finish;
          for (const tc of ch.delta.tool_calls ?? []) {
            if (!firsts.has(tc.index)) firsts.set(tc.index, tc);
            args.set(tc.index, (args.get(tc.index) ?? "") + (tc.function?.arguments ?? ""));
          }
        }
      }
      t.equal(firsts.size, 2, "two calls at distinct indexes");
      for (const [i, tc] of firsts) {
        t.ok(tc.id && tc.type === "function" && tc.function?.name, `call ${i}: id, type and name on its first delta (${JSON.stringify(tc)})`);
        t.doesNotThrow(() => JSON.parse(args.get(i)!), `call ${i}: the argument fragments make JSON`);
      }
      t.equal(finish, "tool_calls");

      const stream = client.chat.completions.stream({ model: MODEL, messages: [{ role: "user", content: prompt }], tools: [WEATHER, TIME] });
      const done: string[] = [];
      stream.on("tool_calls.function.arguments.done", (e) => done.push(e.name));
      const final = await stream.finalChatCompletion();
      const c = final.choices[0]!;
      t.equal(c.finish_reason, "tool_calls");
      const calls = c.message.tool_calls ?? [];
      t.same(
        calls.map((x) => (x.type === "function" ? x.function.name : x.type)),
        ["get_weather", "get_time"],
        "the helper assembles both calls",
      );
      const wireIds = sseObjects(lastExchange().answer).flatMap((o) => (o.choices ?? []).flatMap((ch: any) => (ch.delta?.tool_calls ?? []).flatMap((tc: any) => (tc.id ? [tc.id] : []))));
      t.same(
        calls.map((x) => x.id),
        wireIds,
        "with the ids sent (none invented by the helper)",
      );
      t.same(JSON.parse(calls[0]?.type === "function" ? calls[0].function.arguments : "null"), { city: "Tokyo" });
      t.same(done, ["get_weather", "get_time"], "arguments.done events");

      const parsed = await client.chat.completions.parse({
        model: MODEL,
        messages: [{ role: "user", content: "Use get_weather for Tokyo" }],
        tools: [zod.zodFunction({ name: "get_weather", parameters: z.object({ city: z.string() }) })],
      });
      const parsedCall = parsed.choices[0]!.message.tool_calls?.[0];
      t.same(parsedCall?.type === "function" ? parsedCall.function.parsed_arguments : undefined, { city: "Tokyo" }, "parse() with zodFunction: parsed_arguments");
    });

    t.test("parse() with zodResponseFormat, and JSON mode", async (t) => {
      const res = await client.chat.completions.parse({ model: MODEL, messages: [{ role: "user", content: PERSON_PROMPT }], response_format: zod.zodResponseFormat(Person, "person") });
      const msg = res.choices[0]!.message;
      t.ok(Person.safeParse(msg.parsed).success, `parsed validates (${msg.content})`);
      t.equal(msg.parsed?.name, "Grace Hopper", "values from the prompt");
      t.equal(msg.parsed?.age, 85);
      t.same(JSON.parse(msg.content ?? "null"), msg.parsed, "content is the JSON");
      t.notOk(msg.refusal, "no refusal");
      const body = JSON.parse(lastExchange().body);
      t.equal(body.response_format?.type, "json_schema", "the SDK sent a json_schema response_format");

      const stream = client.chat.completions.stream({ model: MODEL, messages: [{ role: "user", content: PERSON_PROMPT }], response_format: zod.zodResponseFormat(Person, "person") });
      const streamed = (await stream.finalChatCompletion()).choices[0]!.message;
      t.ok(Person.safeParse(streamed.parsed).success, "streamed: the helper parses the JSON too");
      t.equal(streamed.parsed?.name, "Grace Hopper");

      const json = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Reply in JSON: hello" }], response_format: { type: "json_object" } });
      const value = JSON.parse(json.choices[0]!.message.content ?? "null");
      t.ok(value && typeof value === "object" && !Array.isArray(value), `json_object: a JSON object (${json.choices[0]!.message.content})`);
    });

    t.test("errors", async (t) => {
      const badKey = new sdk.default({ apiKey: "sk-not-a-key-0000000000", baseURL: baseURL(), maxRetries: 0 });
      const auth = await failure(badKey.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hi" }] }));
      t.ok(auth instanceof sdk.AuthenticationError, `a bad key: AuthenticationError (${auth?.constructor?.name}: ${auth?.message})`);
      t.match(auth, { status: 401, code: "invalid_api_key" }, "status 401, code invalid_api_key");

      const narrowClient = new sdk.default({ apiKey: ADMIN_KEY, baseURL: `${narrow.baseUrl}/v1`, maxRetries: 0 });
      t.equal(
        (await narrowClient.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hi" }] })).choices[0]!.message.content,
        "You said: Hi",
        "the narrow gateway serves its model",
      );
      const missing = await failure(narrowClient.chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "Hi" }] }));
      t.ok(missing instanceof sdk.NotFoundError, `an unknown model: NotFoundError (${missing?.constructor?.name}: ${missing?.message})`);
      t.match(missing, { status: 404, code: "model_not_found", type: "invalid_request_error" }, "status 404, code model_not_found");
      const missingStream = await failure(
        (async () => {
          for await (const _ of await narrowClient.chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "Hi" }], stream: true }));
        })(),
      );
      t.match(missingStream, { status: 404, code: "model_not_found" }, "a stream of an unknown model fails before it starts, with a status");

      const bad = await failure(client.chat.completions.create({ model: MODEL, messages: [] }));
      t.ok(bad instanceof sdk.BadRequestError, `no messages: BadRequestError (${bad?.constructor?.name}: ${bad?.message})`);
      t.match(bad, { status: 400, type: "invalid_request_error", param: /^messages/ }, "status 400, param messages");

      const limited = await failure(client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hello #fault:rate_limit" }] }));
      t.ok(limited instanceof sdk.RateLimitError, `a rate limit: RateLimitError (${limited?.constructor?.name})`);
      t.match(limited, { status: 429 }, "status 429");

      const midstream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Hello there #fault:midstream" }], stream: true });
      let got = "";
      const broken = await failure(
        (async () => {
          for await (const c of midstream) got += c.choices[0]?.delta.content ?? "";
        })(),
      );
      t.ok(broken instanceof sdk.APIError, `an error after the 200 throws an APIError mid-stream (${broken?.constructor?.name}: ${broken?.message})`);
      t.ok(got.length > 0, "after the first delta");
      t.match(broken, { type: "server_error", code: "overloaded" }, "the error's type and code reach the client");
      t.notMatch(String(broken?.message), /^\{/, "and its message is a message, not a JSON blob");
      const errorEvent = sseObjects(lastExchange().answer).find((o) => o.error);
      t.ok(errorEvent?.error?.message && errorEvent.error.type, `sent as data: {"error": {message, type, ...}} (${JSON.stringify(errorEvent)})`);
    });
  });
}

// ---------------------------------------------------------------------------------------------------
// @ai-sdk/openai, chat mode

const aiWeather = aiTool({
  description: "Current weather for a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, temperature: 18 }),
});

t.test("@ai-sdk/openai 4.0.118, openai.chat()", async (t) => {
  const model = createOpenAI({ baseURL: baseURL(), apiKey: ADMIN_KEY }).chat(MODEL);

  const text = await generateText({ model, prompt: "Hello there", maxRetries: 0 });
  t.equal(text.text, "You said: Hello there", "generateText");
  t.equal(text.finishReason, "stop");
  t.equal(text.response.modelId, MODEL, "the model name echoed");
  t.ok(text.usage.inputTokens! > 0 && text.usage.outputTokens! > 0, "usage");
  t.equal(lastExchange().url, "/v1/chat/completions", "chat mode uses Chat Completions");

  const stream = streamText({ model, prompt: "stream these words back", maxRetries: 0 });
  let streamed = "";
  for await (const piece of stream.textStream) streamed += piece;
  t.equal(streamed, "You said: stream these words back", "streamText");
  t.equal(await stream.finishReason, "stop", "the stream finishes");
  const usage = await stream.usage;
  t.ok(usage.inputTokens! > 0 && usage.outputTokens! > 0, `streamed usage (${JSON.stringify(usage)})`);
  t.equal(JSON.parse(lastExchange().body).stream_options?.include_usage, true, "it asked for the usage chunk");

  let streamError: any;
  const failing = streamText({ model, prompt: "Hello there #fault:midstream", maxRetries: 0, onError: ({ error }) => void (streamError = error) });
  let before = "";
  for await (const piece of failing.textStream) before += piece;
  t.ok(before.length > 0, "streamText: text before an error after the 200");
  t.match(streamError, { message: /overloaded/, type: "server_error" }, `streamText: the error frame reaches onError as OpenAI's error (${streamError?.name}: ${streamError?.message})`);

  const tools = await generateText({ model, prompt: "Use the weather tool for Tokyo", tools: { weather: aiWeather }, stopWhen: stepCountIs(3), maxRetries: 0 });
  const call = tools.steps[0]!.toolCalls[0];
  t.equal(call?.toolName, "weather", "a tool call");
  t.ok(call?.toolCallId, "with an id");
  t.same(call?.input, { city: "Tokyo" }, "arguments from the prompt");
  t.same(tools.steps[0]!.toolResults[0]?.output, { city: "Tokyo", temperature: 18 }, "the tool ran");
  t.equal(tools.steps.length, 2, "the result goes back and the model answers");
  t.equal(tools.text, 'The tool weather returned: {"city":"Tokyo","temperature":18}', "the answer reads the result");

  const streamedTools = streamText({ model, prompt: "Use the weather tool for Tokyo", tools: { weather: aiWeather }, stopWhen: stepCountIs(3), maxRetries: 0 });
  const calls: unknown[] = [];
  for await (const part of streamedTools.fullStream) if (part.type === "tool-call") calls.push(part.input);
  t.same(calls, [{ city: "Tokyo" }], "streamText: the streamed call is assembled");
  t.equal(await streamedTools.text, 'The tool weather returned: {"city":"Tokyo","temperature":18}', "streamText: the answer after the tool");

  const object = await generateObject({ model, schema: Person, prompt: PERSON_PROMPT, maxRetries: 0 });
  t.ok(Person.safeParse(object.object).success, "generateObject validates");
  t.equal(object.object.name, "Grace Hopper");
  t.equal(object.object.age, 85);
  t.equal(JSON.parse(lastExchange().body).response_format?.type, "json_schema", "as a json_schema response_format");
});

// ---------------------------------------------------------------------------------------------------
// @langchain/openai

t.test("@langchain/openai 1.6.0 ChatOpenAI", async (t) => {
  const Person = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()) });
  const llm = new ChatOpenAI({ model: MODEL, apiKey: ADMIN_KEY, configuration: { baseURL: baseURL() }, maxRetries: 0 });

  const msg = await llm.invoke("Hello there");
  t.equal(msg.content, "You said: Hello there", "invoke");
  t.equal(msg.response_metadata.model_name, MODEL, "the model name echoed");
  t.ok(msg.usage_metadata && msg.usage_metadata.input_tokens > 0 && msg.usage_metadata.output_tokens > 0, "usage");
  t.equal(lastExchange().url, "/v1/chat/completions");

  let acc: AIMessageChunk | undefined;
  let pieces = 0;
  for await (const chunk of await llm.stream("stream these words back")) {
    acc = acc ? acc.concat(chunk) : chunk;
    pieces++;
  }
  t.ok(pieces > 2, `stream: several chunks (${pieces})`);
  t.equal(acc?.content, "You said: stream these words back", "stream: the chunks concatenated");
  t.ok(acc?.id, "stream: a message id (role on the first chunk)");
  t.ok(acc?.usage_metadata && acc.usage_metadata.total_tokens > 0, `stream: usage (${JSON.stringify(acc?.usage_metadata)})`);

  const weather = lcTool(async ({ city }: { city: string }) => JSON.stringify({ city, temperature: 18 }), {
    name: "get_weather",
    description: "Current weather for a city",
    schema: z.object({ city: z.string() }),
  });
  const withTools = llm.bindTools([weather]);
  const question = new HumanMessage("Use get_weather for Tokyo");
  const ai = await withTools.invoke([question]);
  const call = ai.tool_calls?.[0];
  t.equal(ai.tool_calls?.length, 1, "bindTools: one tool call");
  t.ok(call?.id, "with an id");
  t.equal(call?.name, "get_weather");
  t.same(call?.args, { city: "Tokyo" }, "args parsed");
  const toolMessage = await weather.invoke({ ...call!, type: "tool_call" });
  const answer = await withTools.invoke([question, ai, toolMessage]);
  t.equal(answer.content, 'The tool get_weather returned: {"city":"Tokyo","temperature":18}', "the ToolMessage goes back");

  let toolAcc: AIMessageChunk | undefined;
  for await (const chunk of await withTools.stream([question])) toolAcc = toolAcc ? toolAcc.concat(chunk) : chunk;
  const streamedCall = toolAcc?.tool_calls?.[0];
  t.equal(toolAcc?.tool_calls?.length, 1, "streamed: the call survives (its first delta has an id)");
  t.ok(streamedCall?.id, "streamed: with an id");
  t.same(streamedCall?.args, { city: "Tokyo" }, "streamed: args parsed");

  const structured = await llm.withStructuredOutput(Person, { name: "person" }).invoke(PERSON_PROMPT);
  t.ok(Person.safeParse(structured).success, "withStructuredOutput (json_schema) validates");
  t.equal(structured.name, "Grace Hopper");
  t.equal(JSON.parse(lastExchange().body).response_format?.type, "json_schema");
  const viaTool = await llm.withStructuredOutput(Person, { name: "person", method: "functionCalling" }).invoke(PERSON_PROMPT);
  t.ok(Person.safeParse(viaTool).success, "withStructuredOutput (function calling, a forced tool_choice) validates");
  t.equal(viaTool.age, 85);
  t.same(JSON.parse(lastExchange().body).tool_choice, { type: "function", function: { name: "person" } }, "sent as a forced tool_choice");
});

// ---------------------------------------------------------------------------------------------------
// @openai/agents on Chat Completions

t.test("@openai/agents 0.20.0 on Chat Completions", async (t) => {
  agents.setTracingDisabled(true);
  const client = new openai7.default({ apiKey: ADMIN_KEY, baseURL: baseURL(), maxRetries: 0 });
  const model = new agents.OpenAIChatCompletionsModel(client, MODEL);

  const echo = new agents.Agent({ name: "echo", instructions: "You are terse.", model });
  const plain = await agents.run(echo, "Hello there");
  t.equal(plain.finalOutput, "You said: Hello there", "an Agent run: final text");
  const sent = JSON.parse(lastExchange().body);
  t.equal(lastExchange().url, "/v1/chat/completions", "over Chat Completions");
  t.match(sent.messages?.[0], { role: "system", content: "You are terse." }, "the instructions as a system message");

  const weather = agents.tool({
    name: "get_weather",
    description: "Current weather for a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => `Sunny in ${city}, 18 C`,
  });
  const helper = new agents.Agent({ name: "weather", instructions: "Use your tools.", model, tools: [weather] });
  const res = await agents.run(helper, "Use get_weather for Tokyo");
  t.equal(res.finalOutput, "The tool get_weather returned: Sunny in Tokyo, 18 C", "a function tool the engine calls, then the answer");
  const callItem = res.newItems.find((i) => i.type === "tool_call_item");
  const raw = callItem?.rawItem as { type?: string; callId?: string; name?: string; arguments?: string } | undefined;
  t.equal(raw?.name, "get_weather");
  t.ok(raw?.callId, `the call has a non-empty id (${raw?.callId})`);
  t.same(JSON.parse(raw?.arguments ?? "null"), { city: "Tokyo" }, "arguments");
  t.ok(
    res.newItems.some((i) => i.type === "tool_call_output_item"),
    "the tool's output is an item",
  );

  const streamed = await agents.run(helper, "Use get_weather for Tokyo", { stream: true });
  const kinds = new Set<string>();
  for await (const e of streamed) if (e.type === "run_item_stream_event") kinds.add(e.name);
  await streamed.completed;
  t.equal(streamed.finalOutput, "The tool get_weather returned: Sunny in Tokyo, 18 C", "streamed run: the same answer");
  t.ok(kinds.has("tool_called") && kinds.has("tool_output"), `streamed run: tool events (${[...kinds]})`);

  // The provider route: a model name, resolved by an OpenAIProvider on Chat Completions.
  const runner = new agents.Runner({ modelProvider: new agents.OpenAIProvider({ openAIClient: client, useResponses: false }) });
  const byName = await runner.run(new agents.Agent({ name: "named", instructions: "Be brief.", model: MODEL }), "Hello there");
  t.equal(byName.finalOutput, "You said: Hello there", "OpenAIProvider({useResponses: false})");
  t.equal(lastExchange().url, "/v1/chat/completions");

  const typed = await agents.run(new agents.Agent({ name: "typed", instructions: "Describe people.", model, outputType: Person }), PERSON_PROMPT);
  t.ok(Person.safeParse(typed.finalOutput).success, "outputType: the final output validates");
  t.equal(typed.finalOutput?.name, "Grace Hopper");
});

// ---------------------------------------------------------------------------------------------------
// The AI SDK, LangChain and the Agents SDK on Chat Completions against fake upstreams of each kind,
// one gateway for the three (a client model name per vendor, mapped onto the vendor's model)

t.test("AI SDK, LangChain and Agents on Chat Completions with fake upstreams", async (t) => {
  const modelOf = (v: Vendor) => `chat-via-${v}`;
  const ups = await startFakeUpstreams(Object.fromEntries(VENDORS.map((v) => [v, [modelOf(v)]])));
  t.teardown(() => ups.close());
  const upBaseURL = `${ups.url}/v1`;
  agents.setTracingDisabled(true);

  for (const vendor of VENDORS) {
    const model = modelOf(vendor);
    const during = <T>(run: () => Promise<T>) => ups.during(vendor, run);
    const callIdOk = (id: string | undefined) => fakeCallId(vendor, id);

    t.test(`${vendor}: @ai-sdk/openai openai.chat()`, async (t) => {
      const m = createOpenAI({ baseURL: upBaseURL, apiKey: ADMIN_KEY }).chat(model);

      const [text, [asked]] = await during(() => generateText({ model: m, system: "You are terse.", prompt: "Hello there", maxRetries: 0 }));
      t.equal(text.text, heard(vendor, "Hello there"), "generateText: the upstream's answer");
      t.equal(text.finishReason, "stop", "finishReason stop");
      t.ok(text.usage.inputTokens! > 0 && text.usage.outputTokens! > 0, "usage");
      t.match(asked, { model: UPSTREAM_MODEL[vendor], stream: false, system: "You are terse.", lastUser: "Hello there" }, "upstream: the mapped model, the system prompt, the prompt");

      const [streamed, [streamAsk]] = await during(async () => {
        const s = streamText({ model: m, prompt: "stream these words back", maxRetries: 0 });
        let out = "";
        for await (const piece of s.textStream) out += piece;
        return { out, finish: await s.finishReason, usage: await s.usage };
      });
      t.equal(streamed.out, heard(vendor, "stream these words back"), "streamText");
      t.equal(streamed.finish, "stop", "streamText: finishReason stop");
      t.ok(streamed.usage.inputTokens! > 0 && streamed.usage.outputTokens! > 0, `streamed usage (${JSON.stringify(streamed.usage)})`);
      t.equal(streamAsk?.stream, true, "upstream: streamed");

      const [tools, toolAsks] = await during(() => generateText({ model: m, prompt: "Use the weather tool for Tokyo", tools: { weather: aiWeather }, stopWhen: stepCountIs(3), maxRetries: 0 }));
      const call = tools.steps[0]?.toolCalls[0];
      t.equal(call?.toolName, "weather", "a tool call");
      t.ok(callIdOk(call?.toolCallId), `with an id (${call?.toolCallId})`);
      t.same(call?.input, { city: "Tokyo" }, "the upstream's arguments");
      t.equal(toolAsks.length, 2, "two upstream requests");
      t.same(toolAsks[0]?.tools, ["weather"], "the tool reached the upstream");
      t.match(toolParameters(toolAsks[0]!, "weather"), { properties: { city: { type: /string/i } } }, "with its parameters");
      t.match(toolAsks[1]?.calls, [{ id: call?.toolCallId, name: "weather", args: { city: "Tokyo" } }], "the call went back");
      t.match(toolAsks[1]?.results, [{ id: call?.toolCallId, name: "weather" }], "and its result, linked to it by id");
      t.equal(tools.text, read(vendor, "weather", '{"city":"Tokyo","temperature":18}'), "the upstream's answer reads the result");

      const [streamedTools, streamedToolAsks] = await during(async () => {
        const s = streamText({ model: m, prompt: "Use the weather tool for Tokyo", tools: { weather: aiWeather }, stopWhen: stepCountIs(3), maxRetries: 0 });
        const calls: unknown[] = [];
        for await (const part of s.fullStream) if (part.type === "tool-call") calls.push(part.input);
        return { calls, text: await s.text };
      });
      t.same(streamedTools.calls, [{ city: "Tokyo" }], "streamText: the streamed call is assembled");
      t.equal(streamedTools.text, read(vendor, "weather", '{"city":"Tokyo","temperature":18}'), "streamText: the answer after the tool");
      t.ok(
        streamedToolAsks.every((a) => a.stream),
        "upstream: both streamed",
      );

      const [object, [objectAsk]] = await during(() => generateObject({ model: m, schema: Person, prompt: PERSON_PROMPT, maxRetries: 0 }));
      t.same(object.object, GRACE, "generateObject: the upstream's JSON, validated");
      t.ok(
        objectAsk?.json && schemaAsked(objectAsk),
        `upstream: asked for JSON with the schema (${JSON.stringify(objectAsk?.body.output_config ?? objectAsk?.body.generationConfig ?? objectAsk?.body.response_format)})`,
      );
    });

    t.test(`${vendor}: @langchain/openai ChatOpenAI`, async (t) => {
      const Person = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()) });
      const llm = new ChatOpenAI({ model, apiKey: ADMIN_KEY, configuration: { baseURL: upBaseURL }, maxRetries: 0 });

      const [msg, [asked]] = await during(() => llm.invoke("Hello there"));
      t.equal(msg.content, heard(vendor, "Hello there"), "invoke");
      t.ok(msg.usage_metadata && msg.usage_metadata.input_tokens > 0 && msg.usage_metadata.output_tokens > 0, "usage");
      t.match(asked, { model: UPSTREAM_MODEL[vendor], lastUser: "Hello there" }, "upstream: the mapped model and the prompt");

      let acc: AIMessageChunk | undefined;
      let pieces = 0;
      for await (const chunk of await llm.stream("stream these words back")) {
        acc = acc ? acc.concat(chunk) : chunk;
        pieces++;
      }
      t.ok(pieces > 2, `stream: several chunks (${pieces})`);
      t.equal(acc?.content, heard(vendor, "stream these words back"), "stream: the chunks concatenated");
      t.ok(acc?.usage_metadata && acc.usage_metadata.total_tokens > 0, `stream: usage (${JSON.stringify(acc?.usage_metadata)})`);

      const weather = lcTool(async ({ city }: { city: string }) => JSON.stringify({ city, temperature: 18 }), {
        name: "get_weather",
        description: "Current weather for a city",
        schema: z.object({ city: z.string() }),
      });
      const withTools = llm.bindTools([weather]);
      const question = new HumanMessage("Use get_weather for Tokyo");
      const [ai, [callAsk]] = await during(() => withTools.invoke([question]));
      const call = ai.tool_calls?.[0];
      t.equal(ai.tool_calls?.length, 1, "bindTools: one tool call");
      t.ok(callIdOk(call?.id), `with an id (${call?.id})`);
      t.same([call?.name, call?.args], ["get_weather", { city: "Tokyo" }], "name and args");
      t.same(callAsk?.tools, ["get_weather"], "upstream: the bound tool");
      const toolMessage = await weather.invoke({ ...call!, type: "tool_call" });
      const [answer, [backAsk]] = await during(() => withTools.invoke([question, ai, toolMessage]));
      t.match(backAsk?.results, [{ id: call?.id, name: "get_weather", output: '{"city":"Tokyo","temperature":18}' }], "upstream: the ToolMessage as a result linked to the call by id");
      t.equal(answer.content, read(vendor, "get_weather", '{"city":"Tokyo","temperature":18}'), "the answer after the tool");

      let toolAcc: AIMessageChunk | undefined;
      for await (const chunk of await withTools.stream([question])) toolAcc = toolAcc ? toolAcc.concat(chunk) : chunk;
      t.equal(toolAcc?.tool_calls?.length, 1, "streamed: the call survives (its first delta has an id)");
      t.ok(callIdOk(toolAcc?.tool_calls?.[0]?.id), "streamed: with an id");
      t.same(toolAcc?.tool_calls?.[0]?.args, { city: "Tokyo" }, "streamed: args parsed");

      const [structured, [structuredAsk]] = await during(() => llm.withStructuredOutput(Person, { name: "person" }).invoke(PERSON_PROMPT));
      t.same(structured, GRACE, "withStructuredOutput (json_schema)");
      t.ok(schemaAsked(structuredAsk), "upstream: asked for JSON with the schema");
      const [viaTool, [forcedAsk]] = await during(() => llm.withStructuredOutput(Person, { name: "person", method: "functionCalling" }).invoke(PERSON_PROMPT));
      t.same(viaTool, GRACE, "withStructuredOutput (function calling)");
      t.equal(forcedAsk?.forced, "person", "upstream: the person tool forced");
    });

    t.test(`${vendor}: @openai/agents on Chat Completions, a function tool`, async (t) => {
      const client = new openai7.default({ apiKey: ADMIN_KEY, baseURL: upBaseURL, maxRetries: 0 });
      const weather = agents.tool({
        name: "get_weather",
        description: "Current weather for a city",
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => `Sunny in ${city}, 18 C`,
      });
      const helper = new agents.Agent({ name: "weather", instructions: "Use your tools.", model: new agents.OpenAIChatCompletionsModel(client, model), tools: [weather] });
      const [res, asks] = await during(() => agents.run(helper, "Use get_weather for Tokyo"));
      t.equal(res.finalOutput, read(vendor, "get_weather", "Sunny in Tokyo, 18 C"), "the upstream calls the tool, the agent runs it, the upstream answers");
      const raw = res.newItems.find((i) => i.type === "tool_call_item")?.rawItem as { callId?: string; name?: string; arguments?: string } | undefined;
      t.ok(callIdOk(raw?.callId), `the call's id (${raw?.callId})`);
      t.same(JSON.parse(raw?.arguments ?? "null"), { city: "Tokyo" }, "its arguments");
      t.equal(asks.length, 2, "two upstream requests");
      t.match(asks[0], { system: "Use your tools.", tools: ["get_weather"] }, "upstream: the instructions and the tool");
      t.match(asks[1]?.results, [{ id: raw?.callId, name: "get_weather", output: "Sunny in Tokyo, 18 C" }], "upstream: the tool's output, linked to the call by id");

      const streamed = await agents.run(helper, "Use get_weather for Tokyo", { stream: true });
      const kinds = new Set<string>();
      for await (const e of streamed) if (e.type === "run_item_stream_event") kinds.add(e.name);
      await streamed.completed;
      t.equal(streamed.finalOutput, read(vendor, "get_weather", "Sunny in Tokyo, 18 C"), "streamed run: the same answer");
      t.ok(kinds.has("tool_called") && kinds.has("tool_output"), `streamed run: tool events (${[...kinds]})`);
    });
  }
});
