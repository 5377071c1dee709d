// The OpenAI-compatible provider against a loopback fake upstream replaying
// recorded exchanges (OpenAI, DeepSeek and vLLM-shaped).
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ChatInputSchema, FinishReason, Role, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { openaiChatProvider } from "../../../src/providers/openai/provider.js";
import { openaiHeaders } from "../../../src/providers/openai/client.js";
import { collectStream } from "../../../src/core/chat/stream.js";
import { guardStream } from "../../../src/core/chat/stream-guard.js";
import { errorDetail, retryAfterSeconds } from "../../../src/core/errors.js";
import { fixture, sseChunks, startFakeUpstream, type Reply } from "../../fixtures/fake-upstream.js";
import { testUpstream, type RecordingLogger } from "../../fixtures/upstream.js";

const input = create(ChatInputSchema, {
  model: "claude-client",
  turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "weather in Paris and Tokyo?" } } }] }],
  config: { maxOutputTokens: 300 },
});

let reply: Reply = {};
const fake = await startFakeUpstream(() => reply);
t.teardown(() => fake.close());
const up = testUpstream("openai", `${fake.url}/v1`, { headers: openaiHeaders("sk-test-openai") });
t.teardown(() => up.pools.close());
const provider = openaiChatProvider(up);
const ctx = (signal = new AbortController().signal) => ({ signal, requestId: "req_o", upstreamModel: "gpt-4.1" });
const failure = async (p: Promise<unknown>) => {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as ConnectError;
  if (!(err instanceof ConnectError)) throw new Error("expected a ConnectError");
  return { err, what: [Code[err.code], errorDetail(err)?.reason] };
};
async function drain(s: AsyncIterable<StreamGenerateResponse>) {
  const out: StreamGenerateResponse[] = [];
  for await (const e of s) out.push(e);
  return out;
}
const replay = (events: StreamGenerateResponse[]) =>
  collectStream(
    (async function* () {
      yield* events;
    })(),
  );

t.test("non-stream text with cached prompt tokens", async (t) => {
  reply = { json: fixture("openai/chat-text.json") };
  const r = await provider.generate(input, ctx());
  const req = fake.requests.at(-1)!;
  t.equal(req.path, "/v1/chat/completions");
  t.equal(req.headers.authorization, "Bearer sk-test-openai");
  t.same(req.body, { model: "gpt-4.1", messages: [{ role: "user", content: "weather in Paris and Tokyo?" }], max_tokens: 300 });
  t.equal(r.modelVersion, "gpt-4.1-2025-04-14");
  t.equal(r.model, "claude-client");
  t.equal(r.candidates[0]!.finishReason, FinishReason.STOP);
  t.same([r.usage?.inputTokens, r.usage?.cacheReadTokens, r.usage?.outputTokens], [93n, 1024n, 46n]);
  t.same(r.vendorExtras.openai, { system_fingerprint: "fp_fc9f1d7035", service_tier: "default" });
});

t.test("non-stream reasoning and parallel tool calls (DeepSeek-shaped)", async (t) => {
  reply = { json: fixture("openai/chat-reasoning-tools.json") };
  const r = await provider.generate(input, ctx());
  const parts = r.candidates[0]!.parts;
  t.same(
    parts.map((p) => p.kind.case),
    ["thinking", "toolCall", "toolCall"],
  );
  t.notOk(parts[0]!.signature, "reasoning carries no signature");
  t.same(
    parts.slice(1).map((p) => p.kind.case === "toolCall" && [p.kind.value.id, p.kind.value.arguments]),
    [
      ["call_0_a3f1", { city: "Paris" }],
      ["call_1_b7c2", { city: "Tokyo" }],
    ],
  );
  t.equal(r.candidates[0]!.finishReason, FinishReason.TOOL_USE);
  t.same([r.usage?.inputTokens, r.usage?.cacheReadTokens, r.usage?.thinkingTokens], [56n, 64n, 50n], "DeepSeek cache counters");
});

t.test("stream: reasoning, text and two tool calls become parts 0..3", async (t) => {
  reply = { chunks: sseChunks("openai/stream-reasoning-tools.sse") };
  const events = await drain(guardStream(provider.stream(input, ctx())));
  t.same(fake.requests.at(-1)!.body.stream_options, { include_usage: true });
  const r = await replay(events);
  const parts = r.candidates[0]!.parts;
  t.same(
    parts.map((p) => p.kind.case),
    ["thinking", "text", "toolCall", "toolCall"],
  );
  t.same(parts[0]!.kind.value, { $typeName: "omnigate.chat.v1.Thinking", text: "Two cities, two calls." });
  t.same(
    parts.slice(2).map((p) => p.kind.case === "toolCall" && [p.kind.value.id, p.kind.value.name, p.kind.value.arguments]),
    [
      ["call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", { city: "Paris" }],
      ["call_Xq7Kd2bLm1", "get_weather", { city: "Tokyo" }],
    ],
  );
  t.equal(r.candidates[0]!.finishReason, FinishReason.TOOL_USE);
  t.same([r.usage?.inputTokens, r.usage?.cacheReadTokens, r.usage?.outputTokens, r.usage?.thinkingTokens], [80n, 10n, 40n, 12n]);
  t.equal(r.modelVersion, "qwen3-32b");
});

t.test("a custom tool's call, whole and streamed: a call with free-text input", async (t) => {
  const call = { id: "call_p", type: "custom", custom: { name: "apply_patch", input: "*** Begin Patch\n*** End Patch" } };
  reply = {
    json: { id: "chatcmpl-c", object: "chat.completion", model: "gpt-5", choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [call] }, finish_reason: "tool_calls" }] },
  };
  const whole = await provider.generate(input, ctx());
  const p = whole.candidates[0]!.parts[0]!;
  t.same(p.kind.case === "toolCall" && [p.kind.value.id, p.kind.value.name, p.kind.value.input, p.kind.value.arguments], ["call_p", "apply_patch", "*** Begin Patch\n*** End Patch", undefined]);

  const head = { id: "chatcmpl-s", object: "chat.completion.chunk", model: "gpt-5" };
  const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  reply = {
    chunks: [
      chunk({ role: "assistant", content: null }),
      chunk({ tool_calls: [{ index: 0, id: "call_p", type: "custom", custom: { name: "apply_patch", input: "*** Begin" } }] }),
      chunk({ tool_calls: [{ index: 0, custom: { input: " Patch\n" } }] }),
      chunk({ tool_calls: [{ index: 0, custom: { input: "*** End Patch" } }] }),
      chunk({}, "tool_calls"),
      "data: [DONE]\n\n",
    ],
  };
  const events = await drain(guardStream(provider.stream(input, ctx())));
  const start = events.find((e) => e.event.case === "partStart")!;
  t.same(
    start.event.case === "partStart" && start.event.value.part?.kind.value,
    { $typeName: "omnigate.chat.v1.ToolCall", id: "call_p", name: "apply_patch", input: "" },
    "the start marks a custom call",
  );
  t.same(
    events.flatMap((e) => (e.event.case === "partDelta" ? [[e.event.value.delta.case, e.event.value.delta.value]] : [])),
    [
      ["input", "*** Begin"],
      ["input", " Patch\n"],
      ["input", "*** End Patch"],
    ],
    "input fragments as they came, no arguments",
  );
  const r = await replay(events);
  t.same(r.candidates[0]!.parts[0]!.kind.value, { $typeName: "omnigate.chat.v1.ToolCall", id: "call_p", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" });
  t.equal(r.candidates[0]!.finishReason, FinishReason.TOOL_USE);
});

t.test("stream text; [DONE] without a finish_reason still finishes", async (t) => {
  reply = { chunks: sseChunks("openai/stream-text.sse") };
  const r = await collectStream(guardStream(provider.stream(input, ctx())));
  t.same(
    r.candidates[0]!.parts.map((p) => p.kind.value),
    [{ $typeName: "omnigate.chat.v1.TextPart", text: "Hello", citations: [] }],
  );
  const chunks = sseChunks("openai/stream-text.sse").filter((c) => !c.includes('"finish_reason":"stop"'));
  reply = { chunks };
  const r2 = await collectStream(guardStream(provider.stream(input, ctx())));
  t.equal(r2.candidates[0]!.finishReason, FinishReason.STOP);
});

t.test("a body that ends without finish_reason or [DONE] is truncated", async (t) => {
  reply = { chunks: sseChunks("openai/stream-text.sse").slice(0, 3) };
  const f = await failure(drain(guardStream(provider.stream(input, ctx()))));
  t.same(f.what, ["Unavailable", "upstream_stream_truncated"]);
});

t.test("a mid-stream error chunk", async (t) => {
  reply = { chunks: sseChunks("openai/stream-error.sse") };
  const f = await failure(drain(guardStream(provider.stream(input, ctx()))));
  t.same(f.what, ["Internal", "upstream_error"]);
  t.notMatch(f.err.message, /Sorry about that/);
});

t.test("HTTP errors", async (t) => {
  const cases: [Reply, string[]][] = [
    [{ status: 429, json: fixture("openai/error-429.json"), headers: { "retry-after-ms": "1500" } }, ["ResourceExhausted", "rate_limited"]],
    [{ status: 429, json: fixture("openai/error-quota.json") }, ["Internal", "upstream_auth"]],
    [{ status: 400, json: fixture("openai/error-400.json") }, ["InvalidArgument", "upstream_invalid_request"]],
    [{ status: 401, json: fixture("openai/error-401.json") }, ["Internal", "upstream_auth"]],
    [{ status: 404, json: { error: { message: "The model `x` does not exist", type: "invalid_request_error", code: "model_not_found" } } }, ["NotFound", "upstream_model_not_found"]],
    [{ status: 502, text: "bad gateway" }, ["Unavailable", "upstream_error"]],
  ];
  for (const [r, want] of cases) {
    reply = r;
    const f = await failure(provider.generate(input, ctx()));
    t.same(f.what, want, `status ${r.status}`);
    t.notMatch(f.err.message, /SECRETORG|LEAKED|sk-proj/);
    if (r.headers?.["retry-after-ms"]) t.equal(retryAfterSeconds(f.err), 2);
  }
  t.match((up.log as RecordingLogger).text(), /SECRETORG/, "upstream text is logged");
});

t.test("a bare-host base URL gets /v1 (Ollama, vLLM)", async (t) => {
  const bare = testUpstream("openai", fake.url, { channel: "bare" });
  t.teardown(() => bare.pools.close());
  reply = { json: fixture("openai/chat-text.json") };
  await openaiChatProvider(bare).generate(input, ctx());
  t.equal(fake.requests.at(-1)!.path, "/v1/chat/completions");
  t.notOk(fake.requests.at(-1)!.headers.authorization, "no key, no authorization header");
});

t.test("count tokens is estimated locally (no upstream call)", async (t) => {
  const before = fake.requests.length;
  const r = await provider.countTokens(input, ctx());
  t.ok(r.inputTokens > 0n);
  t.equal(fake.requests.length, before);
});

t.test("abort propagates to the upstream", async (t) => {
  reply = { chunks: sseChunks("openai/stream-text.sse"), chunkDelayMs: 300 };
  const ac = new AbortController();
  const aborted = fake.nextAbort();
  const it = provider.stream(input, ctx(ac.signal))[Symbol.asyncIterator]();
  t.equal((await it.next()).value?.event.case, "start");
  ac.abort();
  await aborted;
  const f = await failure(it.next());
  t.same(f.what[0], "Canceled");
});

t.test("text/x.enum is emulated with a wrapped json_schema and unwrapped, whole and streamed", async (t) => {
  const en = create(ChatInputSchema, {
    model: "gem-client",
    turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "yes or no?" } } }] }],
    config: { responseMimeType: "text/x.enum", responseSchema: { type: "string", enum: ["YES", "NO"] } },
  });
  const body = { id: "c", object: "chat.completion", model: "gpt-4.1", choices: [{ index: 0, message: { role: "assistant", content: '{"value":"YES"}' }, finish_reason: "stop" }] };
  reply = { json: body };
  const r = await provider.generate(en, ctx());
  t.same(fake.requests.at(-1)!.body.response_format.json_schema.schema, {
    type: "object",
    properties: { value: { type: "string", enum: ["YES", "NO"] } },
    required: ["value"],
    additionalProperties: false,
  });
  t.equal(r.candidates[0]!.parts[0]!.kind.case === "text" && r.candidates[0]!.parts[0]!.kind.value.text, "YES");
  const chunk = (content: string | undefined, finish: string | null) =>
    `data: ${JSON.stringify({ id: "c", model: "gpt-4.1", choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }] })}\n\n`;
  reply = { chunks: [chunk('{"val', null), chunk('ue":"NO"}', null), chunk(undefined, "stop"), "data: [DONE]\n\n"] };
  const s = await collectStream(guardStream(provider.stream(en, ctx())));
  t.equal(s.candidates[0]!.parts[0]!.kind.case === "text" && s.candidates[0]!.parts[0]!.kind.value.text, "NO");
});
