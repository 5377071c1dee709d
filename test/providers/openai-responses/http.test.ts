// An openai channel with api "responses" in the assembled gateway, over HTTP:
// the fake upstream checks it is called at {baseUrl}/responses with a
// stateless Responses body, and answers whole or streamed; reached through
// /v1/chat/completions, /v1/messages and /v1/responses, the last with a
// function tool round trip whose second turn carries the first answer's
// encrypted reasoning back to the upstream.
import t, { type Test } from "tap";
import { ADMIN_KEY, ONE_ATTEMPT, startServer, testChannel, type TestServer } from "../../helpers/app.js";
import { startFakeUpstream, type Recorded, type Reply } from "../../fixtures/fake-upstream.js";
import { callItem, ENCRYPTED, reasoningItem, sseFrames, streamEvents, usage, wholeResponse } from "./fixtures.js";

const textAnswer = (text: string) => ({
  id: "resp_t",
  object: "response",
  status: "completed",
  model: "gpt-5-codex-2025-09-15",
  output: [{ id: "msg_t", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] }],
  usage,
});
const toolAnswer = { ...wholeResponse, output: [reasoningItem, callItem] };
/** A hosted tool's item, as OpenAI returns it: the gateway passes it whole. */
const CODE_CALL = { id: "ci_01", type: "code_interpreter_call", status: "completed", code: "print(2+2)", container_id: "cntr_1", outputs: [{ type: "logs", logs: "4" }] };

/** What the fake saw that was wrong about a request, if anything. */
const problems: string[] = [];
function check(req: Recorded): void {
  if (req.path !== "/v1/responses") problems.push(`path ${req.path}`);
  if (req.headers.authorization !== "Bearer key-resp") problems.push("authorization");
  const b = req.body as Record<string, unknown>;
  if (b.store !== false || !(b.include as string[]).includes("reasoning.encrypted_content")) problems.push("not stateless");
  if (b.model !== "gpt-5-codex") problems.push(`model ${String(b.model)}`);
  if ("messages" in b || !Array.isArray(b.input)) problems.push("not a Responses body");
}

const fake = await startFakeUpstream((req): Reply => {
  check(req);
  const input = req.body.input as { type?: string }[];
  const answered = input.some((i) => i.type === "function_call_output");
  const tools = (req.body.tools ?? []) as { type: string }[];
  if (tools.some((x) => x.type === "code_interpreter")) {
    const output = [CODE_CALL, { ...textAnswer("The answer is 4.").output[0], id: "msg_ci" }];
    if (!req.body.stream) return { json: { ...textAnswer(""), output } };
    const done = { ...textAnswer(""), output };
    return {
      chunks: sseFrames([
        { type: "response.created", sequence_number: 0, response: { ...done, status: "in_progress", output: [] } },
        { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { ...CODE_CALL, status: "in_progress" } },
        { type: "response.output_item.done", sequence_number: 2, output_index: 0, item: CODE_CALL },
        { type: "response.output_item.added", sequence_number: 3, output_index: 1, item: { id: "msg_ci", type: "message", status: "in_progress", role: "assistant", content: [] } },
        { type: "response.output_text.delta", sequence_number: 4, item_id: "msg_ci", output_index: 1, content_index: 0, delta: "The answer is 4." },
        { type: "response.output_item.done", sequence_number: 5, output_index: 1, item: output[1] },
        { type: "response.completed", sequence_number: 6, response: done },
      ]),
    };
  }
  if (req.body.stream) return { chunks: sseFrames(streamEvents) };
  if (req.body.tools && !answered) return { json: toolAnswer };
  return { json: textAnswer(answered ? "18C in Paris." : "Hello from Responses.") };
});
let server: TestServer;
t.before(async () => {
  const channel = { ...testChannel("resp", "openai", `${fake.url}/v1`, ["gpt-5*"]), api: "responses" as const };
  server = await startServer({ config: { channels: [channel], upstream: ONE_ATTEMPT } as never });
});
t.teardown(async () => {
  await server?.close();
  await fake.close();
});
/** Every request the fake saw so far was a Responses request at {baseUrl}/responses. */
const allResponses = (t: Test) => t.same(problems.splice(0), [], "the upstream saw Responses requests at {baseUrl}/responses");

async function post(path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${ADMIN_KEY}` }) {
  const res = await fetch(server.baseUrl + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith("{") ? (JSON.parse(text) as any) : undefined };
}
const sseData = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith("data: ") && l !== "data: [DONE]")
    .map((l) => JSON.parse(l.slice(6)) as any);

t.test("/v1/chat/completions, whole and streamed", async (t) => {
  const r = await post("/v1/chat/completions", {
    model: "gpt-5-codex",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ],
    reasoning_effort: "high",
  });
  t.equal(r.status, 200, r.text);
  t.equal(r.json.choices[0].message.content, "Hello from Responses.");
  const sent = fake.requests.at(-1)!.body;
  t.same([sent.instructions, sent.reasoning, sent.input], ["Be brief.", { effort: "high", summary: "auto" }, [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }]]);

  const s = await post("/v1/chat/completions", {
    model: "gpt-5-codex",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "weather?" }],
    tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
  });
  t.equal(s.status, 200, s.text);
  const chunks = sseData(s.text);
  const delta = (k: string) => chunks.map((c) => c.choices?.[0]?.delta?.[k]).filter((v) => v !== undefined && v !== null);
  t.equal(delta("reasoning_content").join(""), "**Checking the weather**\n\nParis needs a lookup.");
  t.equal(delta("content").join(""), "Let me check Paris.");
  t.same(delta("tool_calls")[0][0].function.name, "get_weather");
  t.equal(chunks.find((c) => c.choices?.[0]?.finish_reason)?.choices[0].finish_reason, "tool_calls");
  t.equal(chunks.at(-1).usage.prompt_tokens, 120);
  t.same(fake.requests.at(-1)!.body.tools, [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }]);
  allResponses(t);
});

const anthropic = { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01" };

t.test("/v1/messages, whole and streamed; the thinking signature comes back as OpenAI's reasoning", async (t) => {
  const r = await post("/v1/messages", { model: "gpt-5-codex", max_tokens: 256, messages: [{ role: "user", content: "hi" }] }, anthropic);
  t.equal(r.status, 200, r.text);
  t.same(r.json.content, [{ type: "text", text: "Hello from Responses." }]);
  t.equal(fake.requests.at(-1)!.body.max_output_tokens, 256);

  const s = await post(
    "/v1/messages",
    { model: "gpt-5-codex", max_tokens: 256, stream: true, messages: [{ role: "user", content: "weather?" }], tools: [{ name: "get_weather", input_schema: { type: "object" } }] },
    anthropic,
  );
  t.equal(s.status, 200, s.text);
  const events = sseData(s.text);
  const blocks = events.filter((e) => e.type === "content_block_start").map((e) => e.content_block.type);
  t.same(blocks, ["thinking", "text", "tool_use"]);
  const signature = events.find((e) => e.delta?.type === "signature_delta")?.delta.signature as string;
  t.match(Buffer.from(signature, "base64").toString(), `omnigate:openai:${ENCRYPTED}`);
  t.equal(events.find((e) => e.type === "message_delta")?.delta.stop_reason, "tool_use");

  // The next turn, as Claude Code sends it: the thinking block with its signature, the tool use, its result.
  const toolUse = events.find((e) => e.content_block?.type === "tool_use").content_block;
  const next = await post(
    "/v1/messages",
    {
      model: "gpt-5-codex",
      max_tokens: 256,
      tools: [{ name: "get_weather", input_schema: { type: "object" } }],
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "**Checking the weather**\n\nParis needs a lookup.", signature },
            { type: "tool_use", id: toolUse.id, name: "get_weather", input: { city: "Paris" } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: toolUse.id, content: "18C" }] },
      ],
    },
    anthropic,
  );
  t.equal(next.status, 200, next.text);
  t.same(next.json.content, [{ type: "text", text: "18C in Paris." }]);
  t.same(fake.requests.at(-1)!.body.input.slice(1), [
    { type: "reasoning", summary: [{ type: "summary_text", text: "**Checking the weather**\n\nParis needs a lookup." }], encrypted_content: ENCRYPTED },
    { type: "function_call", call_id: "call_w1", name: "get_weather", arguments: '{"city":"Paris"}' },
    { type: "function_call_output", call_id: "call_w1", output: "18C" },
  ]);
  allResponses(t);
});

t.test("/v1/responses: a function tool round trip carries the encrypted reasoning back upstream", async (t) => {
  const tools = [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }];
  const first = await post("/v1/responses", {
    model: "gpt-5-codex",
    input: "weather in Paris?",
    tools,
    store: false,
    include: ["reasoning.encrypted_content"],
    reasoning: { effort: "medium", summary: "auto" },
  });
  t.equal(first.status, 200, first.text);
  const out = first.json.output as any[];
  t.same(
    out.map((i) => i.type),
    ["reasoning", "function_call"],
  );
  t.equal(out[1].call_id, "call_w1");
  t.type(out[0].encrypted_content, "string");
  t.not(out[0].encrypted_content, ENCRYPTED, "the client holds the gateway's seal, not OpenAI's blob");

  const second = await post("/v1/responses", {
    model: "gpt-5-codex",
    tools,
    store: false,
    include: ["reasoning.encrypted_content"],
    input: [{ role: "user", content: "weather in Paris?" }, ...out, { type: "function_call_output", call_id: "call_w1", output: "18C" }],
  });
  t.equal(second.status, 200, second.text);
  t.equal(second.json.output.at(-1).content[0].text, "18C in Paris.");
  t.same(fake.requests.at(-1)!.body.input, [
    { type: "message", role: "user", content: [{ type: "input_text", text: "weather in Paris?" }] },
    { type: "reasoning", summary: [{ type: "summary_text", text: "**Checking the weather**\n\nParis needs a lookup." }], encrypted_content: ENCRYPTED },
    { type: "function_call", call_id: "call_w1", name: "get_weather", arguments: '{"city":"Paris"}' },
    { type: "function_call_output", call_id: "call_w1", output: "18C" },
  ]);
  allResponses(t);
});

t.test("/v1/responses streamed", async (t) => {
  const s = await post("/v1/responses", { model: "gpt-5-codex", input: "weather?", stream: true, tools: [{ type: "function", name: "get_weather", parameters: { type: "object" } }] });
  t.equal(s.status, 200, s.text);
  const done = sseData(s.text).find((e) => e.type === "response.completed");
  t.same(
    done.response.output.map((i: any) => i.type),
    ["reasoning", "message", "function_call"],
  );
  t.equal(done.response.usage.input_tokens_details.cached_tokens, 20);
  allResponses(t);
});

t.test("/v1/responses: a hosted tool goes as sent, and its item comes back and goes back whole", async (t) => {
  const tools = [{ type: "code_interpreter", container: { type: "auto" } }];
  const first = await post("/v1/responses", { model: "gpt-5-codex", input: "2+2 in python", tools, store: false });
  t.equal(first.status, 200, first.text);
  t.same(fake.requests.at(-1)!.body.tools, tools, "the tool reached the upstream as the client sent it");
  t.same(first.json.output[0], CODE_CALL, "the hosted item, whole");
  t.equal(first.json.output[1].content[0].text, "The answer is 4.");

  const streamed = await post("/v1/responses", { model: "gpt-5-codex", input: "2+2 in python", tools, store: false, stream: true });
  const events = sseData(streamed.text);
  t.same(
    events.filter((e) => e.type === "response.output_item.done").map((e) => e.item.type),
    ["code_interpreter_call", "message"],
    "streamed: the hosted item is closed like the others",
  );
  t.same(events.find((e) => e.type === "response.completed").response.output[0], CODE_CALL);

  const again = await post("/v1/responses", {
    model: "gpt-5-codex",
    tools,
    store: false,
    input: [{ role: "user", content: "2+2 in python" }, ...first.json.output, { role: "user", content: "and 3+3?" }],
  });
  t.equal(again.status, 200, again.text);
  const sent = fake.requests.at(-1)!.body.input as { type?: string }[];
  t.same(
    sent.find((i) => i.type === "code_interpreter_call"),
    CODE_CALL,
    "the hosted item went back upstream whole",
  );
  allResponses(t);
});

t.test("/v1/responses: what the gateway does not read reaches the Responses upstream as sent (a stored prompt too)", async (t) => {
  const unread = {
    prompt: { id: "pmpt_1", version: "2", variables: { city: "Oslo" } },
    truncation: "auto",
    metadata: { trace: "t-1" },
    max_tool_calls: 3,
    client_metadata: { session: "s" },
    future_field_2027: { a: 1 },
  };
  const r = await post("/v1/responses", {
    model: "gpt-5-codex",
    input: "hi",
    ...unread,
    reasoning: { effort: "low", context: "all_turns" },
    include: ["reasoning.encrypted_content", "web_search_call.results"],
  });
  t.equal(r.status, 200, r.text);
  const sent = fake.requests.at(-1)!.body;
  t.match(sent, { model: "gpt-5-codex", store: false, ...unread, reasoning: { effort: "low", context: "all_turns" } });
  t.same(sent.include, ["reasoning.encrypted_content", "web_search_call.results"]);
  t.match(r.json, { prompt: { id: "pmpt_1" } }, "echoed, as OpenAI does");
  allResponses(t);
});
