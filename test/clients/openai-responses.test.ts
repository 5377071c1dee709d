// POST /v1/responses (the OpenAI Responses API) through the real clients,
// pinned in test/clients/package.json and unchanged: openai 7.59 and 6.49
// (raw create, raw event streams, the stream() helper, parse() with
// zodTextFormat, function tools, stored responses and previous_response_id,
// stateless replay with encrypted reasoning, errors), against the local engine
// and against scripted Anthropic, OpenAI-compatible and Gemini upstreams;
// @ai-sdk/openai in its default (Responses) mode, @langchain/openai with
// useResponsesApi and @openai/agents on its default Responses model. What each
// client needs from the wire: /work/shared/notes/openai-formats.md B.5-B.8, D, E.1, E.4.
import { createRequire } from "node:module";
import t from "tap";
import type OpenAI from "openai";
import type { FunctionTool, Response, ResponseInputItem, ResponseStreamEvent } from "openai/resources/responses/responses";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";
import { ANSWER, ANTHROPIC_SIG_1, GEMINI_SIG_1, GREETING, OPENAI_TOOL_ID, THOUGHT_1 } from "../fixtures/scripted.js";
import { routedTo, VENDORS, type Routed } from "../fixtures/routed.js";
import { installClients, startGateway, type Exchange, type Gateway } from "./harness.js";
import { fakeCallId, GRACE, heard, read, schemaAsked, startFakeUpstreams, toolParameters, UPSTREAM_MODEL, VENDORS as FAKE_VENDORS, type Vendor } from "./fakes.js";

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
// LangChain through require, as in openai-chat.test.ts (tap's loader resolves its ESM build's openai imports wrongly).
const require = createRequire(import.meta.url);
const { ChatOpenAI } = require("@langchain/openai") as typeof import("@langchain/openai");
const { HumanMessage } = require("@langchain/core/messages") as typeof import("@langchain/core/messages");
type AIMessageChunk = import("@langchain/core/messages").AIMessageChunk;
const { tool: lcTool } = require("@langchain/core/tools") as typeof import("@langchain/core/tools");
const zc = (require("zod") as typeof import("zod")).z;
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

/** The SSE frames of a raw answer: each frame's `event:` name (if any) and its parsed `data:`. */
function sseFrames(answer: string): Array<{ event?: string; data: any }> {
  return answer.split(/\r?\n\r?\n/).flatMap((frame) => {
    const lines = frame.split(/\r?\n/);
    const event = lines
      .find((l) => l.startsWith("event:"))
      ?.slice(6)
      .trim();
    const data = lines
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""))
      .join("\n");
    if (!data || data === "[DONE]") return [];
    try {
      return [{ ...(event ? { event } : {}), data: JSON.parse(data) }];
    } catch {
      return [];
    }
  });
}

const TERMINAL = /^response\.(completed|incomplete|failed)$/;

/**
 * What is wrong with a Responses event stream, measured against B.6 and E.4:
 * created, in_progress, then per item added -> (content parts / deltas) ->
 * done, one terminal event last, sequence numbers from 0 and strictly
 * increasing, added items in_progress with their empty arrays.
 */
function streamProblems(events: any[]): string[] {
  const p: string[] = [];
  const types = events.map((e) => String(e.type));
  if (types[0] !== "response.created") p.push(`first event ${types[0]}, not response.created`);
  if (types[1] !== "response.in_progress") p.push(`second event ${types[1]}, not response.in_progress`);
  const terminals = types.filter((x) => TERMINAL.test(x));
  if (terminals.length !== 1 || !TERMINAL.test(types.at(-1) ?? "")) p.push(`terminal events ${JSON.stringify(terminals)}, last event ${types.at(-1)}`);
  if (events[0]?.sequence_number !== 0) p.push(`first sequence_number ${events[0]?.sequence_number}, not 0`);
  events.forEach((e, i) => {
    if (typeof e.sequence_number !== "number") p.push(`event ${i} (${e.type}) has no sequence_number`);
    else if (i > 0 && !(e.sequence_number > events[i - 1].sequence_number)) p.push(`event ${i} (${e.type}): sequence_number ${e.sequence_number} after ${events[i - 1].sequence_number}`);
  });
  const items = new Map<number, { type: string; done: boolean; parts: Map<number, "open" | "done">; summaries: Map<number, "open" | "done"> }>();
  for (const [i, e] of events.entries()) {
    const where = `event ${i} (${e.type})`;
    if (e.type === "response.output_item.added") {
      if (items.has(e.output_index)) p.push(`${where}: output_index ${e.output_index} added twice`);
      items.set(e.output_index, { type: e.item?.type, done: false, parts: new Map(), summaries: new Map() });
      if (e.item?.status !== undefined && e.item.status !== "in_progress") p.push(`${where}: added item status ${e.item.status}`);
      if (e.item?.type === "message" && !(Array.isArray(e.item.content) && e.item.content.length === 0)) p.push(`${where}: added message without content: []`);
      if (e.item?.type === "reasoning" && !Array.isArray(e.item.summary)) p.push(`${where}: added reasoning without summary: []`);
      if (e.item?.type === "function_call" && typeof e.item.call_id !== "string") p.push(`${where}: added function_call without call_id`);
      continue;
    }
    if (e.output_index === undefined) continue;
    const s = items.get(e.output_index);
    if (!s) {
      p.push(`${where}: output_index ${e.output_index} before its output_item.added`);
      continue;
    }
    if (s.done) p.push(`${where}: after output_item.done of output_index ${e.output_index}`);
    if (e.type === "response.content_part.added") s.parts.set(e.content_index, "open");
    else if (/^response\.(output_text|refusal)\.(delta|done)$/.test(e.type) && s.parts.get(e.content_index) !== "open") p.push(`${where}: content_index ${e.content_index} not open`);
    else if (e.type === "response.content_part.done") {
      if (s.parts.get(e.content_index) !== "open") p.push(`${where}: content_index ${e.content_index} not open`);
      s.parts.set(e.content_index, "done");
    } else if (e.type === "response.reasoning_summary_part.added") s.summaries.set(e.summary_index, "open");
    else if (/^response\.reasoning_summary_text\.(delta|done)$/.test(e.type) && s.summaries.get(e.summary_index) !== "open") p.push(`${where}: summary_index ${e.summary_index} not open`);
    else if (e.type === "response.reasoning_summary_part.done") s.summaries.set(e.summary_index, "done");
    else if (e.type === "response.output_item.done") {
      if ([...s.parts.values(), ...s.summaries.values()].includes("open")) p.push(`${where}: a content or summary part is still open`);
      if (e.item?.status !== undefined && e.item.status !== "completed") p.push(`${where}: done item status ${e.item.status}`);
      s.done = true;
    }
  }
  for (const [index, s] of items) if (!s.done) p.push(`output_index ${index} (${s.type}) never got output_item.done`);
  return p;
}

/** What is wrong with the wire framing of a Responses stream: an `event:` line naming each data's type. */
function framingProblems(answer: string): string[] {
  const frames = sseFrames(answer);
  if (!frames.length) return ["no SSE frames"];
  return frames.flatMap((f, i) => (f.event === f.data?.type ? [] : [`frame ${i}: event: ${f.event} for data type ${f.data?.type}`]));
}

/** The text of a Response's message items. */
const textOf = (r: Response) =>
  r.output
    .flatMap((o) => (o.type === "message" ? o.content : []))
    .map((c) => (c.type === "output_text" ? c.text : ""))
    .join("");

const WEATHER: FunctionTool = {
  type: "function",
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  strict: true,
};
const TIME: FunctionTool = {
  type: "function",
  name: "get_time",
  description: "Current time in a time zone",
  parameters: { type: "object", properties: { timezone: { type: "string" } }, required: ["timezone"], additionalProperties: false },
  strict: true,
};

const Person = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()) });
const PERSON_PROMPT = "Describe the person Grace Hopper, age 85";
const PERSON_SCHEMA = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" }, tags: { type: "array", items: { type: "string" } } },
  required: ["name", "age", "tags"],
  additionalProperties: false,
};

/** Checks the usage of a Response (B.5; Codex needs every detail present, C.8). */
function usageOk(u: Response["usage"] | null): boolean {
  return (
    !!u &&
    u.input_tokens > 0 &&
    u.output_tokens > 0 &&
    u.total_tokens === u.input_tokens + u.output_tokens &&
    typeof u.input_tokens_details?.cached_tokens === "number" &&
    typeof u.output_tokens_details?.reasoning_tokens === "number"
  );
}

type Sdk = typeof import("openai");
type ZodHelpers = typeof import("openai/helpers/zod");
const SDKS: Array<{ label: string; version: string; sdk: Sdk; zod: ZodHelpers }> = [
  { label: "openai 7.59", version: VERSIONS[7], sdk: openai7, zod: zod7 },
  // 6.49's types are 7's minus the newer fields; the code paths are what is tested.
  { label: "openai 6.49", version: VERSIONS[6], sdk: openai6 as unknown as Sdk, zod: zod6 as unknown as ZodHelpers },
];

// ---------------------------------------------------------------------------------------------------
// openai 7.59 and 6.49 on the local engine

for (const { label, version, sdk, zod } of SDKS) {
  t.test(label, async (t) => {
    const client: OpenAI = new sdk.default({ apiKey: ADMIN_KEY, baseURL: baseURL(), maxRetries: 0 });
    t.equal(`openai ${version.split(".").slice(0, 2).join(".")}`, label, `the package loaded is openai ${version}`);

    t.test("create: text", async (t) => {
      const res = await client.responses.create({ model: MODEL, instructions: "You are terse.", input: "Hello there" });
      t.match(lastExchange(), { method: "POST", url: "/v1/responses", status: 200 }, "POST /v1/responses");
      t.equal(res.object, "response");
      t.match(res.id, /^resp_/, `a resp_ id (${res.id})`);
      t.equal(res.status, "completed");
      t.ok(Math.abs(res.created_at - Date.now() / 1000) < 600, `created_at is a Unix time in seconds (${res.created_at})`);
      t.equal(res.model, MODEL, "the model name echoed");
      t.equal(res.instructions, "You are terse.", "the instructions echoed");
      t.equal(res.output_text, "You said: Hello there", "output_text (the SDK's sum of the output_text parts)");
      t.equal(res.output.length, 1, "one output item");
      const msg = res.output[0];
      t.match(msg, { type: "message", role: "assistant", status: "completed" }, "a completed assistant message");
      t.match(msg?.type === "message" ? msg.id : "", /^msg_/, "with a msg_ id");
      t.match(msg?.type === "message" ? msg.content[0] : undefined, { type: "output_text", text: "You said: Hello there", annotations: [] }, "an output_text part with annotations: []");
      t.ok(usageOk(res.usage), `usage with its details (${JSON.stringify(res.usage)})`);
      t.equal(res.error, null, "error: null");
      t.equal(res.incomplete_details, null, "incomplete_details: null");
      t.equal(res.parallel_tool_calls, true, "parallel_tool_calls defaults to true");
      t.same(res.tools, [], "tools: []");
    });

    t.test("create: input items, developer role, history", async (t) => {
      const parts = await client.responses.create({
        model: MODEL,
        input: [
          { role: "developer", content: "Answer briefly." },
          {
            type: "message",
            role: "user",
            content: [
              { type: "input_text", text: "Hello" },
              { type: "input_text", text: "world" },
            ],
          },
        ],
      });
      t.equal(parts.output_text, "You said: Hello world", "a developer message and input_text parts");
      const history = await client.responses.create({
        model: MODEL,
        input: [
          { role: "user", content: "first" },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "You said: first", annotations: [] }] },
          { role: "user", content: "second" },
        ] as ResponseInputItem[],
      });
      t.equal(history.output_text, "You said: second", "the last user turn is answered");
      const limited = await client.responses.create({
        model: MODEL,
        input: "please repeat this fairly long sentence back to me word for word, all of it, and then repeat it once more, every single word of it, slowly and clearly",
        max_output_tokens: 16,
      });
      t.equal(limited.status, "incomplete", `max_output_tokens: status incomplete (${limited.status})`);
      t.same(limited.incomplete_details, { reason: "max_output_tokens" }, "incomplete_details.reason max_output_tokens");
      t.ok(limited.usage!.output_tokens <= 16, `at most 16 output tokens (${limited.usage?.output_tokens})`);
    });

    t.test("raw stream: the B.6 events, in order", async (t) => {
      const stream = await client.responses.create({ model: MODEL, input: "stream these words back", stream: true });
      const events: ResponseStreamEvent[] = [];
      for await (const e of stream) events.push(e);
      t.same(streamProblems(events), [], `B.6 order and sequence numbers (${events.map((e) => e.type).join(" ")})`);
      t.same(framingProblems(lastExchange().answer), [], "every frame has an event: line naming its type");
      const types = events.map((e) => e.type);
      for (const type of ["response.content_part.added", "response.output_text.done", "response.content_part.done", "response.output_item.done"])
        t.ok(types.includes(type as never), `${type} is sent`);
      const deltas = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : []));
      t.ok(deltas.length > 1, `the text comes in several deltas (${deltas.length})`);
      t.equal(deltas.join(""), "You said: stream these words back", "the deltas make the answer");
      const created = events[0];
      t.match(created?.type === "response.created" ? created.response : undefined, { status: "in_progress", output: [], object: "response" }, "created: in_progress, output: []");
      const last = events.at(-1);
      const final = last?.type === "response.completed" ? last.response : undefined;
      t.equal(final?.status, "completed", "completed: status completed");
      t.equal(final ? textOf(final) : undefined, "You said: stream these words back", "completed: the full output");
      t.ok(usageOk(final?.usage ?? null), `completed: the usage (${JSON.stringify(final?.usage)})`);
      t.equal(final?.id, created?.type === "response.created" ? created.response.id : "", "one id throughout");
      const doneItem = events.find((e) => e.type === "response.output_item.done");
      t.same(doneItem?.type === "response.output_item.done" ? doneItem.item : undefined, final?.output[0], "output_item.done holds the item of the completed output");
    });

    t.test("the stream() helper: finalResponse", async (t) => {
      const stream = client.responses.stream({ model: MODEL, input: "stream these words back" });
      let deltas = "";
      stream.on("response.output_text.delta", (e) => (deltas += e.delta));
      const final = await stream.finalResponse();
      t.equal(final.status, "completed");
      t.equal(final.output_text, "You said: stream these words back", "finalResponse().output_text");
      t.equal(deltas, "You said: stream these words back", "output_text.delta events");
      t.ok(usageOk(final.usage), "usage kept");
    });

    t.test("a function tool: call, output with the same call_id, answer", async (t) => {
      const question = { role: "user" as const, content: "Use get_weather for Tokyo" };
      const res = await client.responses.create({ model: MODEL, input: [question], tools: [WEATHER] });
      t.equal(res.status, "completed", "a tool call completes the response (no requires_action)");
      const calls = res.output.filter((o) => o.type === "function_call");
      t.equal(calls.length, 1, "one function_call item");
      const call = calls[0]!;
      t.match(call, { type: "function_call", name: "get_weather", status: "completed" });
      t.ok(call.call_id && call.id && call.call_id !== "", `a call_id (${call.call_id}) and an item id (${call.id})`);
      t.same(JSON.parse(call.arguments), { city: "Tokyo" }, "arguments: a JSON string with the city from the prompt");
      t.same(
        res.tools.map((x) => (x.type === "function" ? x.name : x.type)),
        ["get_weather"],
        "the tools echoed",
      );

      const result = JSON.stringify({ temperature: 18, sky: "clear" });
      const back = await client.responses.create({
        model: MODEL,
        tools: [WEATHER],
        input: [question, ...(res.output as ResponseInputItem[]), { type: "function_call_output", call_id: call.call_id, output: result }],
      });
      t.same(
        back.output.filter((o) => o.type === "function_call"),
        [],
        "the output goes back: no new call",
      );
      t.equal(back.output_text, `The tool get_weather returned: ${result}`, "the output is tied to its call by call_id");

      const forced = await client.responses.create({ model: MODEL, input: "What is it like outside in Oslo?", tools: [WEATHER, TIME], tool_choice: { type: "function", name: "get_weather" } });
      const fc = forced.output.find((o) => o.type === "function_call");
      t.equal(fc?.type === "function_call" ? fc.name : undefined, "get_weather", "tool_choice {type: function, name} (flat) forces that tool");
      t.same(JSON.parse(fc?.type === "function_call" ? fc.arguments : "null"), { city: "Oslo" });
      const none = await client.responses.create({ model: MODEL, input: "Use get_weather for Tokyo", tools: [WEATHER], tool_choice: "none" });
      t.same(
        none.output.map((o) => o.type),
        ["message"],
        "tool_choice none: no call",
      );
      const two = await client.responses.create({ model: MODEL, input: "Use get_weather for Tokyo and get_time as well", tools: [WEATHER, TIME] });
      const both = two.output.flatMap((o) => (o.type === "function_call" ? [o] : []));
      t.same(
        both.map((c) => c.name),
        ["get_weather", "get_time"],
        "two calls, in the order asked",
      );
      t.equal(new Set(both.map((c) => c.call_id)).size, 2, "with distinct call_ids");
    });

    t.test("a function tool, streamed: the wire and the helper", async (t) => {
      const input = "Use get_weather for Tokyo and get_time as well";
      const raw = await client.responses.create({ model: MODEL, input, tools: [WEATHER, TIME], stream: true });
      const events: ResponseStreamEvent[] = [];
      for await (const e of raw) events.push(e);
      t.same(streamProblems(events), [], `B.6 order (${events.map((e) => e.type).join(" ")})`);
      const added = events.flatMap((e) => (e.type === "response.output_item.added" && e.item.type === "function_call" ? [e] : []));
      t.equal(added.length, 2, "two function_call items added");
      for (const a of added) {
        const item = a.item.type === "function_call" ? a.item : undefined;
        t.ok(item?.call_id && item.name, `added with call_id and name (${JSON.stringify(item)})`);
        const args = events.flatMap((e) => (e.type === "response.function_call_arguments.delta" && e.output_index === a.output_index ? [e.delta] : [])).join("");
        const done = events.find((e) => e.type === "response.function_call_arguments.done" && e.output_index === a.output_index);
        t.equal(done?.type === "response.function_call_arguments.done" ? done.arguments : undefined, args, `output ${a.output_index}: arguments.done = the deltas`);
        t.doesNotThrow(() => JSON.parse(args), `output ${a.output_index}: the deltas make JSON`);
      }
      const helper = client.responses.stream({ model: MODEL, input, tools: [WEATHER, TIME] });
      const final = await helper.finalResponse();
      const calls = final.output.flatMap((o) => (o.type === "function_call" ? [o] : []));
      t.same(
        calls.map((c) => c.name),
        ["get_weather", "get_time"],
        "the helper assembles both calls",
      );
      t.same(JSON.parse(calls[0]?.arguments ?? "null"), { city: "Tokyo" });
    });

    t.test("text.format json_schema, parse() with zodTextFormat, json_object", async (t) => {
      const res = await client.responses.create({ model: MODEL, input: PERSON_PROMPT, text: { format: { type: "json_schema", name: "person", schema: PERSON_SCHEMA, strict: true } } });
      const value = JSON.parse(res.output_text);
      t.ok(Person.safeParse(value).success, `json_schema: the text is JSON that validates (${res.output_text})`);
      t.match(res.text?.format, { type: "json_schema", name: "person" }, "text.format echoed");

      const parsed = await client.responses.parse({ model: MODEL, input: PERSON_PROMPT, text: { format: zod.zodTextFormat(Person, "person") } });
      t.ok(Person.safeParse(parsed.output_parsed).success, `parse(): output_parsed validates (${parsed.output_text})`);
      t.equal(parsed.output_parsed?.name, "Grace Hopper", "values from the prompt");
      t.equal(parsed.output_parsed?.age, 85);
      t.match(JSON.parse(lastExchange().body).text?.format, { type: "json_schema", name: "person", strict: true }, "the SDK sent a flat json_schema text.format");

      const streamed = await client.responses.stream({ model: MODEL, input: PERSON_PROMPT, text: { format: zod.zodTextFormat(Person, "person") } }).finalResponse();
      t.ok(Person.safeParse(streamed.output_parsed).success, "stream(): the helper parses the JSON too");

      const json = await client.responses.create({ model: MODEL, input: "Reply in JSON: hello", text: { format: { type: "json_object" } } });
      const obj = JSON.parse(json.output_text || "null");
      t.ok(obj && typeof obj === "object" && !Array.isArray(obj), `json_object: a JSON object (${json.output_text})`);
    });

    t.test("stored responses: previous_response_id, retrieve, input_items, delete", async (t) => {
      const first = await client.responses.create({ model: MODEL, input: "first", store: true, metadata: { case: "stored" } });
      t.equal(first.output_text, "You said: first");
      const got = await client.responses.retrieve(first.id);
      t.equal(got.id, first.id, "retrieve: the same id");
      t.equal(got.output_text, "You said: first", "retrieve: the same output");
      t.same(got.metadata, { case: "stored" }, "retrieve: metadata kept");
      t.same(got.output, first.output, "retrieve: the output items as created");

      const items = await client.responses.inputItems.list(first.id);
      t.equal(items.data.length, 1, "input_items: one item");
      t.match(items.data[0], { type: "message", role: "user" }, "the user message");
      const firstItem = items.data[0];
      const itemText = firstItem?.type === "message" ? firstItem.content.map((c) => (c.type === "input_text" ? c.text : "")).join("") : "";
      t.equal(itemText, "first", "with its text");
      t.ok(
        items.data.every((i) => typeof i.id === "string" && i.id.length > 0),
        "items have ids",
      );

      const second = await client.responses.create({ model: MODEL, input: "second", previous_response_id: first.id });
      t.equal(second.output_text, "You said: second", "previous_response_id: the new turn is answered");
      t.equal(second.previous_response_id, first.id, "previous_response_id echoed");
      const secondItems = await client.responses.inputItems.list(second.id);
      t.ok(secondItems.data.length >= 1, `input_items of the follow-up (${secondItems.data.length})`);

      // A tool round trip carried by the stored state alone.
      const asked = await client.responses.create({ model: MODEL, input: "Use get_weather for Tokyo", tools: [WEATHER] });
      const call = asked.output.find((o) => o.type === "function_call");
      t.ok(call, "a stored function_call");
      const answered = await client.responses.create({
        model: MODEL,
        tools: [WEATHER],
        previous_response_id: asked.id,
        input: [{ type: "function_call_output", call_id: call?.type === "function_call" ? call.call_id : "", output: "sunny" }],
      });
      t.equal(answered.output_text, "The tool get_weather returned: sunny", "function_call_output alone after previous_response_id: the call is found in the stored state");

      const deleted = await failure(client.responses.delete(first.id));
      t.equal(deleted, undefined, `delete succeeds (${deleted?.message})`);
      const gone = await failure(client.responses.retrieve(first.id));
      t.ok(gone instanceof sdk.NotFoundError, `retrieve after delete: NotFoundError (${gone?.constructor?.name}: ${gone?.message})`);
      const again = await failure(client.responses.delete(first.id));
      t.ok(again instanceof sdk.NotFoundError, `delete twice: NotFoundError (${again?.constructor?.name})`);

      const unstored = await client.responses.create({ model: MODEL, input: "not kept", store: false });
      t.equal((unstored as { store?: boolean }).store, false, "store: false echoed");
      const missing = await failure(client.responses.retrieve(unstored.id));
      t.ok(missing instanceof sdk.NotFoundError, `store: false: retrieve is a NotFoundError (${missing?.constructor?.name}: ${missing?.message})`);
      const dangling = await failure(client.responses.create({ model: MODEL, input: "x", previous_response_id: unstored.id }));
      t.ok(dangling instanceof sdk.APIError && [400, 404].includes(dangling.status), `previous_response_id of an unstored response: 400/404 (${dangling?.status} ${dangling?.message})`);
    });

    t.test("stateless: store false, encrypted reasoning, the whole history sent back", async (t) => {
      const base = { model: MODEL, store: false, include: ["reasoning.encrypted_content" as const], reasoning: { effort: "medium" as const, summary: "auto" as const } };
      const question: ResponseInputItem = { role: "user", content: "Think, then answer" };
      const first = await client.responses.create({ ...base, input: [question] });
      t.same(
        first.output.map((o) => o.type),
        ["reasoning", "message"],
        "reasoning, then the message",
      );
      const reasoning = first.output[0];
      const enc = reasoning?.type === "reasoning" ? reasoning.encrypted_content : undefined;
      t.ok(typeof enc === "string" && enc.length > 0, `reasoning.encrypted_content is there when included (${String(enc).slice(0, 24)}…)`);
      t.match(reasoning?.type === "reasoning" ? reasoning.id : "", /^rs_/, "an rs_ id");
      t.equal(first.output_text, "You said: Think, then answer");
      t.ok(first.usage!.output_tokens_details.reasoning_tokens > 0, `reasoning tokens counted (${JSON.stringify(first.usage?.output_tokens_details)})`);

      const second = await client.responses.create({ ...base, input: [question, ...(first.output as ResponseInputItem[]), { role: "user", content: "and again" }] });
      t.equal(second.output_text, "You said: and again", "the reasoning item goes back verbatim and is accepted");

      const noInclude = await client.responses.create({ model: MODEL, store: false, reasoning: { effort: "medium" }, input: "Think, then answer" });
      const r = noInclude.output.find((o) => o.type === "reasoning");
      t.notOk(r?.type === "reasoning" && r.encrypted_content, "no encrypted_content unless included");

      // OpenAI's own blob (another deployment's) is dropped, not refused (B.8).
      const foreign = await client.responses.create({
        ...base,
        input: [
          question,
          { type: "reasoning", id: "rs_foreign", summary: [], encrypted_content: "gAAAAABforeign-blob" },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "You said: Think, then answer", annotations: [] }] } as unknown as ResponseInputItem,
          { role: "user", content: "and again" },
        ],
      });
      t.equal(foreign.output_text, "You said: and again", "a foreign encrypted_content is dropped, not a 400");
    });

    t.test("errors", async (t) => {
      const badKey = new sdk.default({ apiKey: "sk-not-a-key-0000000000", baseURL: baseURL(), maxRetries: 0 });
      const auth = await failure(badKey.responses.create({ model: MODEL, input: "Hi" }));
      t.ok(auth instanceof sdk.AuthenticationError, `a bad key: AuthenticationError (${auth?.constructor?.name}: ${auth?.message})`);
      t.match(auth, { status: 401, code: "invalid_api_key" });

      const narrowClient = new sdk.default({ apiKey: ADMIN_KEY, baseURL: `${narrow.baseUrl}/v1`, maxRetries: 0 });
      const missing = await failure(narrowClient.responses.create({ model: "no-such-model", input: "Hi" }));
      t.ok(missing instanceof sdk.NotFoundError, `an unknown model: NotFoundError (${missing?.constructor?.name}: ${missing?.message})`);
      t.match(missing, { status: 404, code: "model_not_found" });

      const bad = await failure(client.responses.create({ model: MODEL, input: [{ role: "tool", content: "x" } as never] }));
      t.ok(bad instanceof sdk.BadRequestError, `role tool: BadRequestError (${bad?.constructor?.name}: ${bad?.message})`);
      t.match(bad, { status: 400, type: "invalid_request_error" });

      const limited = await failure(client.responses.create({ model: MODEL, input: "Hello #fault:rate_limit" }));
      t.ok(limited instanceof sdk.RateLimitError, `a rate limit: RateLimitError (${limited?.constructor?.name})`);

      // An error after the 200 is a response.failed event (E.4), which Codex and the helpers understand.
      const stream = await client.responses.create({ model: MODEL, input: "Hello there #fault:midstream", stream: true });
      const events: ResponseStreamEvent[] = [];
      const thrown = await failure(
        (async () => {
          for await (const e of stream) events.push(e);
        })(),
      );
      const last = events.at(-1);
      t.equal(last?.type, "response.failed", `the stream ends with response.failed (${events.map((e) => e.type).join(" ")}; thrown: ${thrown?.message})`);
      const failed = last?.type === "response.failed" ? last.response : undefined;
      t.equal(failed?.status, "failed");
      t.ok(failed?.error?.code && failed.error.message, `response.error has code and message (${JSON.stringify(failed?.error)})`);
      t.notOk(
        events.some((e) => e.type === "response.completed"),
        "and no response.completed",
      );
    });
  });
}

// ---------------------------------------------------------------------------------------------------
// openai 7.59 against scripted upstreams of each kind

/** What the upstream got on the second turn proves the call and its signature made the round trip. */
function secondRequestProblems(up: Routed, body: any): string[] {
  const p: string[] = [];
  const seen = JSON.stringify(body);
  if (up.vendor === "anthropic") {
    const assistant = body.messages?.find((m: any) => m.role === "assistant");
    const thinking = assistant?.content?.find((b: any) => b.type === "thinking");
    if (thinking?.signature !== ANTHROPIC_SIG_1 || thinking?.thinking !== THOUGHT_1) p.push(`anthropic: thinking with its signature not sent back: ${JSON.stringify(assistant)}`);
    if (!body.messages?.some((m: any) => Array.isArray(m.content) && m.content.some((b: any) => b.type === "tool_result"))) p.push("anthropic: no tool_result");
  } else if (up.vendor === "openai") {
    if (!body.messages?.some((m: any) => m.role === "tool" && m.tool_call_id === OPENAI_TOOL_ID)) p.push(`openai: no tool message for ${OPENAI_TOOL_ID}: ${seen}`);
  } else {
    const call = body.contents?.flatMap((c: any) => c.parts ?? []).find((x: any) => x.functionCall);
    if (call?.thoughtSignature !== GEMINI_SIG_1) p.push(`gemini: thoughtSignature not back on the functionCall: ${JSON.stringify(call)}`);
    if (!body.contents?.some((c: any) => c.parts?.some((x: any) => x.functionResponse))) p.push("gemini: no functionResponse");
  }
  return p;
}

for (const vendor of VENDORS) {
  t.test(`openai 7.59 with an ${vendor} upstream`, async (t) => {
    const up = await routedTo(vendor);
    t.teardown(() => up.close());
    const client = new openai7.default({ apiKey: ADMIN_KEY, baseURL: `${up.server.baseUrl}/v1`, maxRetries: 0 });

    for (const stream of [false, true]) {
      const ask = (p: Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, "stream">): Promise<Response> => (stream ? client.responses.stream(p).finalResponse() : client.responses.create(p));
      t.test(stream ? "streamed (the helper)" : "not streamed", async (t) => {
        const plain = await ask({ model: "gateway-chat", input: "Hi!" });
        t.equal(plain.output_text, GREETING, "text");
        t.equal(plain.model, "gateway-chat");
        t.ok(usageOk(plain.usage), `usage (${JSON.stringify(plain.usage)})`);

        const base = {
          model: "gateway-chat",
          store: false,
          include: ["reasoning.encrypted_content" as const],
          reasoning: { effort: "medium" as const, summary: "auto" as const },
          tools: [{ ...WEATHER, strict: false }],
        };
        const question: ResponseInputItem = { role: "user", content: "What is the weather in Paris?" };
        const first = await ask({ ...base, input: [question] });
        const call = first.output.find((o) => o.type === "function_call");
        t.match(call, { type: "function_call", name: "get_weather" }, `a function_call (${first.output.map((o) => o.type).join(", ")})`);
        t.same(JSON.parse(call?.type === "function_call" ? call.arguments : "null"), { city: "Paris" });
        const reasoning = first.output.find((o) => o.type === "reasoning");
        if (vendor !== "openai") {
          t.ok(reasoning?.type === "reasoning" && reasoning.encrypted_content, `reasoning with encrypted_content (${JSON.stringify(reasoning)})`);
          t.equal(reasoning?.type === "reasoning" ? reasoning.summary.map((s) => s.text).join("") : undefined, THOUGHT_1, "the thinking as the summary");
        }
        const second = await ask({
          ...base,
          input: [question, ...(first.output as ResponseInputItem[]), { type: "function_call_output", call_id: call?.type === "function_call" ? call.call_id : "", output: "sunny, 21C" }],
        });
        t.same(secondRequestProblems(up, up.fake.requests.at(-1)!.body), [], "the upstream got the call, its result and the signature back");
        t.equal(second.output_text, ANSWER, "the answer");
      });
    }

    t.test("raw stream with a tool call: the B.6 events", async (t) => {
      const s = await client.responses.create({ model: "gateway-chat", input: "What is the weather in Paris?", tools: [WEATHER], reasoning: { effort: "low", summary: "auto" }, stream: true });
      const events: ResponseStreamEvent[] = [];
      for await (const e of s) events.push(e);
      t.same(streamProblems(events), [], `B.6 order (${events.map((e) => e.type).join(" ")})`);
      const done = events.find((e) => e.type === "response.function_call_arguments.done");
      t.same(JSON.parse(done?.type === "response.function_call_arguments.done" ? done.arguments : "null"), { city: "Paris" });
    });
  });
}

// ---------------------------------------------------------------------------------------------------
// @ai-sdk/openai, Responses (its default)

const aiWeather = aiTool({
  description: "Current weather for a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, temperature: 18 }),
});

t.test("@ai-sdk/openai 4.0.118, openai(model) = Responses", async (t) => {
  const model = createOpenAI({ baseURL: baseURL(), apiKey: ADMIN_KEY })(MODEL);

  const text = await generateText({ model, prompt: "Hello there", maxRetries: 0 });
  t.equal(lastExchange().url, "/v1/responses", "the default model uses the Responses API");
  t.equal(text.text, "You said: Hello there", "generateText");
  t.equal(text.finishReason, "stop");
  t.ok(text.usage.inputTokens! > 0 && text.usage.outputTokens! > 0, "usage");

  const stream = streamText({ model, prompt: "stream these words back", maxRetries: 0 });
  let streamed = "";
  for await (const piece of stream.textStream) streamed += piece;
  t.equal(streamed, "You said: stream these words back", "streamText");
  t.equal(await stream.finishReason, "stop", "the stream finishes");
  const usage = await stream.usage;
  t.ok(usage.inputTokens! > 0 && usage.outputTokens! > 0, `streamed usage (${JSON.stringify(usage)})`);

  const tools = await generateText({ model, prompt: "Use the weather tool for Tokyo", tools: { weather: aiWeather }, stopWhen: stepCountIs(3), maxRetries: 0 });
  const call = tools.steps[0]?.toolCalls[0];
  t.equal(call?.toolName, "weather", "a tool call");
  t.same(call?.input, { city: "Tokyo" }, "arguments from the prompt");
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
  t.equal(JSON.parse(lastExchange().body).text?.format?.type, "json_schema", "as a json_schema text.format");

  // Stored by default: the next turn names the earlier answer by an item_reference, which the gateway resolves.
  const first = await generateText({ model, prompt: "Remember the word kiwi", maxRetries: 0 });
  const second = await generateText({
    model,
    messages: [{ role: "user", content: "Remember the word kiwi" }, ...first.response.messages, { role: "user", content: "Which word was it?" }],
    maxRetries: 0,
  });
  const sent = JSON.parse(lastExchange().body) as { input: Array<{ type?: string; id?: string }> };
  const ref = sent.input.find((i) => i.type === "item_reference");
  t.ok(ref?.id, `the AI SDK sent an item_reference (${JSON.stringify(sent.input).slice(0, 300)})`);
  t.equal(second.text, "You said: Which word was it?", "the turn after a reference is answered");
  const listed = (await (await fetch(`${baseURL()}/responses/${second.response.id}/input_items?order=asc`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json()) as {
    data: Array<{ id: string; role?: string; content?: Array<{ text?: string }> }>;
  };
  const resolved = listed.data.find((i) => i.id === ref?.id);
  t.match(resolved, { role: "assistant", content: [{ text: "You said: Remember the word kiwi" }] }, "the reference was replaced by the stored answer");
});

// ---------------------------------------------------------------------------------------------------
// @langchain/openai with useResponsesApi

t.test("@langchain/openai 1.6.0 ChatOpenAI, useResponsesApi", async (t) => {
  const llm = new ChatOpenAI({ model: MODEL, apiKey: ADMIN_KEY, configuration: { baseURL: baseURL() }, maxRetries: 0, useResponsesApi: true });

  const msg = await llm.invoke("Hello there");
  t.equal(lastExchange().url, "/v1/responses", "over the Responses API");
  t.equal(msg.text, "You said: Hello there", "invoke");
  t.ok(msg.usage_metadata && msg.usage_metadata.input_tokens > 0 && msg.usage_metadata.output_tokens > 0, "usage");

  let acc: AIMessageChunk | undefined;
  let pieces = 0;
  for await (const chunk of await llm.stream("stream these words back")) {
    acc = acc ? acc.concat(chunk) : chunk;
    pieces++;
  }
  t.ok(pieces > 2, `stream: several chunks (${pieces})`);
  t.equal(acc?.text, "You said: stream these words back", "stream: the chunks concatenated");
  t.ok(acc?.usage_metadata && acc.usage_metadata.total_tokens > 0, `stream: usage (${JSON.stringify(acc?.usage_metadata)})`);

  const weather = lcTool(async ({ city }: { city: string }) => JSON.stringify({ city, temperature: 18 }), {
    name: "get_weather",
    description: "Current weather for a city",
    schema: zc.object({ city: zc.string() }),
  });
  const withTools = llm.bindTools([weather]);
  const question = new HumanMessage("Use get_weather for Tokyo");
  const ai = await withTools.invoke([question]);
  const call = ai.tool_calls?.[0];
  t.equal(ai.tool_calls?.length, 1, "bindTools: one tool call");
  t.ok(call?.id, "with an id");
  t.same([call?.name, call?.args], ["get_weather", { city: "Tokyo" }], "name and args");
  const toolMessage = await weather.invoke({ ...call!, type: "tool_call" });
  const answer = await withTools.invoke([question, ai, toolMessage]);
  t.equal(answer.text, 'The tool get_weather returned: {"city":"Tokyo","temperature":18}', "the ToolMessage goes back as function_call_output");

  let toolAcc: AIMessageChunk | undefined;
  for await (const chunk of await withTools.stream([question])) toolAcc = toolAcc ? toolAcc.concat(chunk) : chunk;
  t.equal(toolAcc?.tool_calls?.length, 1, "streamed: one call");
  t.same(toolAcc?.tool_calls?.[0]?.args, { city: "Tokyo" }, "streamed: args parsed");
});

// ---------------------------------------------------------------------------------------------------
// @openai/agents on its default model (Responses)

t.test("@openai/agents 0.20.0 on Responses (the default)", async (t) => {
  agents.setTracingDisabled(true);
  const client = new openai7.default({ apiKey: ADMIN_KEY, baseURL: baseURL(), maxRetries: 0 });
  const runner = new agents.Runner({ modelProvider: new agents.OpenAIProvider({ openAIClient: client }) });

  const echo = new agents.Agent({ name: "echo", instructions: "You are terse.", model: MODEL });
  const plain = await runner.run(echo, "Hello there");
  t.equal(plain.finalOutput, "You said: Hello there", "an Agent run: final text");
  t.equal(lastExchange().url, "/v1/responses", "over the Responses API");
  t.equal(JSON.parse(lastExchange().body).instructions, "You are terse.", "the instructions as instructions");

  const weather = agents.tool({
    name: "get_weather",
    description: "Current weather for a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => `Sunny in ${city}, 18 C`,
  });
  const helper = new agents.Agent({ name: "weather", instructions: "Use your tools.", model: MODEL, tools: [weather] });
  const res = await runner.run(helper, "Use get_weather for Tokyo");
  t.equal(res.finalOutput, "The tool get_weather returned: Sunny in Tokyo, 18 C", "a function tool the engine calls, then the answer");
  const raw = res.newItems.find((i) => i.type === "tool_call_item")?.rawItem as { name?: string; callId?: string; arguments?: string } | undefined;
  t.equal(raw?.name, "get_weather");
  t.ok(raw?.callId, `the call has a call id (${raw?.callId})`);
  t.same(JSON.parse(raw?.arguments ?? "null"), { city: "Tokyo" });

  const streamed = await runner.run(helper, "Use get_weather for Tokyo", { stream: true });
  const kinds = new Set<string>();
  for await (const e of streamed) if (e.type === "run_item_stream_event") kinds.add(e.name);
  await streamed.completed;
  t.equal(streamed.finalOutput, "The tool get_weather returned: Sunny in Tokyo, 18 C", "streamed run: the same answer");
  t.ok(kinds.has("tool_called") && kinds.has("tool_output"), `streamed run: tool events (${[...kinds]})`);
  t.equal(JSON.parse(lastExchange().body).stream, true, "streamed over SSE");

  const typed = await runner.run(new agents.Agent({ name: "typed", instructions: "Describe people.", model: MODEL, outputType: Person }), PERSON_PROMPT);
  t.ok(Person.safeParse(typed.finalOutput).success, "outputType: the final output validates");
  t.equal(typed.finalOutput?.name, "Grace Hopper");
});

// ---------------------------------------------------------------------------------------------------
// The AI SDK, LangChain and the Agents SDK on Responses against fake upstreams of each kind, one
// gateway for the three (a client model name per vendor, mapped onto the vendor's model)

t.test("AI SDK, LangChain and Agents on Responses with fake upstreams", async (t) => {
  const modelOf = (v: Vendor) => `responses-via-${v}`;
  const ups = await startFakeUpstreams(Object.fromEntries(FAKE_VENDORS.map((v) => [v, [modelOf(v)]])));
  t.teardown(() => ups.close());
  const upBaseURL = `${ups.url}/v1`;
  agents.setTracingDisabled(true);

  for (const vendor of FAKE_VENDORS) {
    const model = modelOf(vendor);
    const during = <T>(run: () => Promise<T>) => ups.during(vendor, run);
    const callIdOk = (id: string | undefined) => fakeCallId(vendor, id);

    t.test(`${vendor}: @ai-sdk/openai openai(model), Responses`, async (t) => {
      const m = createOpenAI({ baseURL: upBaseURL, apiKey: ADMIN_KEY })(model);

      const [text, [asked]] = await during(() => generateText({ model: m, system: "You are terse.", prompt: "Hello there", maxRetries: 0 }));
      t.equal(text.text, heard(vendor, "Hello there"), "generateText: the upstream's answer");
      t.equal(text.finishReason, "stop", "finishReason stop");
      t.ok(text.usage.inputTokens! > 0 && text.usage.outputTokens! > 0, "usage");
      t.match(asked, { model: UPSTREAM_MODEL[vendor], system: "You are terse.", lastUser: "Hello there" }, "upstream: the mapped model, the system prompt, the prompt");

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
      t.ok(streamedToolAsks.length === 2 && streamedToolAsks.every((a) => a.stream), "upstream: two requests, both streamed");

      const [object, [objectAsk]] = await during(() => generateObject({ model: m, schema: Person, prompt: PERSON_PROMPT, maxRetries: 0 }));
      t.same(object.object, GRACE, "generateObject: the upstream's JSON, validated");
      t.ok(
        schemaAsked(objectAsk),
        `upstream: asked for JSON with the schema (${JSON.stringify(objectAsk?.body.output_config ?? objectAsk?.body.generationConfig ?? objectAsk?.body.response_format)})`,
      );
    });

    t.test(`${vendor}: @langchain/openai ChatOpenAI, useResponsesApi`, async (t) => {
      const PersonC = zc.object({ name: zc.string(), age: zc.number().int(), tags: zc.array(zc.string()) });
      const llm = new ChatOpenAI({ model, apiKey: ADMIN_KEY, configuration: { baseURL: upBaseURL }, maxRetries: 0, useResponsesApi: true });

      const [msg, [asked]] = await during(() => llm.invoke("Hello there"));
      t.equal(msg.text, heard(vendor, "Hello there"), "invoke");
      t.ok(msg.usage_metadata && msg.usage_metadata.input_tokens > 0 && msg.usage_metadata.output_tokens > 0, "usage");
      t.match(asked, { model: UPSTREAM_MODEL[vendor], lastUser: "Hello there" }, "upstream: the mapped model and the prompt");

      let acc: AIMessageChunk | undefined;
      let pieces = 0;
      for await (const chunk of await llm.stream("stream these words back")) {
        acc = acc ? acc.concat(chunk) : chunk;
        pieces++;
      }
      t.ok(pieces > 2, `stream: several chunks (${pieces})`);
      t.equal(acc?.text, heard(vendor, "stream these words back"), "stream: the chunks concatenated");
      t.ok(acc?.usage_metadata && acc.usage_metadata.total_tokens > 0, `stream: usage (${JSON.stringify(acc?.usage_metadata)})`);

      const weather = lcTool(async ({ city }: { city: string }) => JSON.stringify({ city, temperature: 18 }), {
        name: "get_weather",
        description: "Current weather for a city",
        schema: zc.object({ city: zc.string() }),
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
      t.equal(answer.text, read(vendor, "get_weather", '{"city":"Tokyo","temperature":18}'), "the answer after the tool");

      let toolAcc: AIMessageChunk | undefined;
      for await (const chunk of await withTools.stream([question])) toolAcc = toolAcc ? toolAcc.concat(chunk) : chunk;
      t.equal(toolAcc?.tool_calls?.length, 1, "streamed: one call");
      t.ok(callIdOk(toolAcc?.tool_calls?.[0]?.id), "streamed: with an id");
      t.same(toolAcc?.tool_calls?.[0]?.args, { city: "Tokyo" }, "streamed: args parsed");

      const [structured, [structuredAsk]] = await during(() => llm.withStructuredOutput(PersonC, { name: "person" }).invoke(PERSON_PROMPT));
      t.same(structured, GRACE, "withStructuredOutput (json_schema)");
      t.ok(schemaAsked(structuredAsk), "upstream: asked for JSON with the schema");
      const [viaTool, [forcedAsk]] = await during(() => llm.withStructuredOutput(PersonC, { name: "person", method: "functionCalling" }).invoke(PERSON_PROMPT));
      t.same(viaTool, GRACE, "withStructuredOutput (function calling)");
      t.equal(forcedAsk?.forced, "person", "upstream: the person tool forced");
    });

    t.test(`${vendor}: @openai/agents on Responses, a function tool`, async (t) => {
      const client = new openai7.default({ apiKey: ADMIN_KEY, baseURL: upBaseURL, maxRetries: 0 });
      const runner = new agents.Runner({ modelProvider: new agents.OpenAIProvider({ openAIClient: client }) });
      const weather = agents.tool({
        name: "get_weather",
        description: "Current weather for a city",
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => `Sunny in ${city}, 18 C`,
      });
      const helper = new agents.Agent({ name: "weather", instructions: "Use your tools.", model, tools: [weather] });
      const [res, asks] = await during(() => runner.run(helper, "Use get_weather for Tokyo"));
      t.equal(res.finalOutput, read(vendor, "get_weather", "Sunny in Tokyo, 18 C"), "the upstream calls the tool, the agent runs it, the upstream answers");
      const raw = res.newItems.find((i) => i.type === "tool_call_item")?.rawItem as { callId?: string; name?: string; arguments?: string } | undefined;
      t.ok(callIdOk(raw?.callId), `the call's id (${raw?.callId})`);
      t.same(JSON.parse(raw?.arguments ?? "null"), { city: "Tokyo" }, "its arguments");
      t.equal(asks.length, 2, "two upstream requests");
      t.match(asks[0], { system: "Use your tools.", tools: ["get_weather"] }, "upstream: the instructions and the tool");
      t.match(asks[1]?.results, [{ id: raw?.callId, name: "get_weather", output: "Sunny in Tokyo, 18 C" }], "upstream: the tool's output, linked to the call by id");

      const [streamed, streamedAsks] = await during(async () => {
        const s = await runner.run(helper, "Use get_weather for Tokyo", { stream: true });
        const kinds = new Set<string>();
        for await (const e of s) if (e.type === "run_item_stream_event") kinds.add(e.name);
        await s.completed;
        return { output: s.finalOutput, kinds };
      });
      t.equal(streamed.output, read(vendor, "get_weather", "Sunny in Tokyo, 18 C"), "streamed run: the same answer");
      t.ok(streamed.kinds.has("tool_called") && streamed.kinds.has("tool_output"), `streamed run: tool events (${[...streamed.kinds]})`);
      t.ok(streamedAsks.length === 2 && streamedAsks.every((a) => a.stream), "upstream: two requests, both streamed");
    });
  }
});

t.test("openai 7: background responses, retrieved until done, and cancelled", async (t) => {
  const client = new openai7.default({ apiKey: ADMIN_KEY, baseURL: baseURL(), maxRetries: 0 });
  const queued = await client.responses.create({ model: MODEL, input: "Say hello.", background: true });
  t.match(queued, { object: "response", status: "queued", background: true, output: [] });
  let got: Response = queued;
  for (let i = 0; i < 200 && (got.status === "queued" || got.status === "in_progress"); i++) {
    await new Promise((r) => setTimeout(r, 10));
    got = await client.responses.retrieve(queued.id);
  }
  t.equal(got.status, "completed");
  t.ok(got.output_text.length > 0, "the SDK's output_text of the finished response");
  await t.rejects(client.responses.cancel(queued.id), { status: 400, message: /Cannot cancel a completed response/ }, "a completed one cannot be cancelled");

  // A slow local engine: the generation is still running when it is cancelled.
  const slow = await startServer({ config: { local: { chunkDelayMs: 100 } } as never });
  t.teardown(() => slow.close());
  const slowClient = new openai7.default({ apiKey: ADMIN_KEY, baseURL: `${slow.baseUrl}/v1`, maxRetries: 0 });
  const running = await slowClient.responses.create({ model: MODEL, input: "Tell me a long story.", background: true });
  let now: Response = running;
  for (let i = 0; i < 200 && now.status === "queued"; i++) now = await slowClient.responses.retrieve(running.id);
  const cancelled = await slowClient.responses.cancel(running.id);
  t.match(cancelled, { id: running.id, status: "cancelled", background: true });
  t.equal((await slowClient.responses.retrieve(running.id)).status, "cancelled");
});
