// The Anthropic provider against a loopback fake upstream replaying recorded
// exchanges: whole answers, streams, tools, thinking, errors, a broken stream,
// a slow first byte and a client that goes away.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ChatInputSchema, FinishReason, Role, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { anthropicChatProvider } from "../../../src/providers/anthropic/provider.js";
import { anthropicHeaders } from "../../../src/providers/anthropic/client.js";
import { collectStream } from "../../../src/core/chat/stream.js";
import { guardStream } from "../../../src/core/chat/stream-guard.js";
import { errorDetail, retryAfterSeconds } from "../../../src/core/errors.js";
import { fixture, sseChunks, startFakeUpstream, type Reply } from "../../fixtures/fake-upstream.js";
import { testUpstream, type RecordingLogger } from "../../fixtures/upstream.js";

const input = create(ChatInputSchema, {
  model: "claude-client",
  turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "hi" } } }] }],
  config: { maxOutputTokens: 256 },
  metadata: { betas: ["interleaved-thinking-2025-05-14"] },
});

let reply: Reply = {};
const fake = await startFakeUpstream(() => reply);
t.teardown(() => fake.close());
const up = testUpstream("anthropic", fake.url, { headers: anthropicHeaders("sk-ant-test") });
t.teardown(() => up.pools.close());
const provider = anthropicChatProvider(up);
const ctx = (signal = new AbortController().signal) => ({ signal, requestId: "req_t", upstreamModel: "claude-sonnet-4-5-20250929" });

async function drain(s: AsyncIterable<StreamGenerateResponse>): Promise<StreamGenerateResponse[]> {
  const out: StreamGenerateResponse[] = [];
  for await (const e of s) out.push(e);
  return out;
}

t.test("non-stream text: request shape, headers, response", async (t) => {
  reply = { json: fixture("anthropic/message-text.json") };
  const resp = await provider.generate(input, ctx());
  const req = fake.requests.at(-1)!;
  t.equal(req.path, "/v1/messages");
  t.equal(req.headers["x-api-key"], "sk-ant-test");
  t.equal(req.headers["anthropic-version"], "2023-06-01");
  t.equal(req.headers["anthropic-beta"], "interleaved-thinking-2025-05-14");
  t.same(req.body, { model: "claude-sonnet-4-5-20250929", max_tokens: 256, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
  t.equal(resp.id, "msg_01XFDUDYJgAACzvnptvVoYEL");
  t.equal(resp.model, "claude-client");
  t.equal(resp.modelVersion, "claude-sonnet-4-5-20250929");
  t.equal(resp.channel, "test-anthropic");
  t.equal(resp.candidates[0]!.finishReason, FinishReason.STOP);
  t.same(
    resp.candidates[0]!.parts.map((p) => p.kind.value),
    [{ text: "Hello! How can I help you today?", citations: [] }].map((v) => ({ ...v, $typeName: "omnigate.chat.v1.TextPart" })),
  );
  t.equal(resp.usage?.inputTokens, 12n);
  t.equal(resp.usage?.outputTokens, 11n);
  t.same(resp.vendorExtras.anthropic, { usage: { service_tier: "standard" } });
});

t.test("non-stream thinking, redacted thinking and a tool call", async (t) => {
  reply = { json: fixture("anthropic/message-thinking-tool.json") };
  const resp = await provider.generate(input, ctx());
  const [th, red, text, tool] = resp.candidates[0]!.parts;
  t.equal(th!.kind.case, "thinking");
  t.same(th!.signature && { issuer: th!.signature.issuer, value: th!.signature.value }, { issuer: "anthropic", value: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" });
  t.same(red!.kind.case === "redactedThinking" && [red!.kind.value.data, red!.kind.value.issuer], ["EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP", "anthropic"]);
  t.equal(text!.kind.case, "text");
  t.same(tool!.kind.case === "toolCall" && [tool!.kind.value.id, tool!.kind.value.name, tool!.kind.value.arguments], [
    "toolu_01A09q90qw90lq917835lq9",
    "get_weather",
    { city: "Paris", unit: "celsius" },
  ]);
  t.equal(resp.candidates[0]!.finishReason, FinishReason.TOOL_USE);
  t.equal(resp.usage?.cacheReadTokens, 2048n);
  t.equal(resp.usage?.cacheWriteTokens, 100n);
  t.equal(resp.usage?.inputTokens, 472n);
});

t.test("stream with text and a tool call", async (t) => {
  reply = { chunks: sseChunks("anthropic/stream-tool-use.sse") };
  const events = await drain(guardStream(provider.stream(input, ctx())));
  t.equal(fake.requests.at(-1)!.body.stream, true);
  t.same(
    events.map((e) => e.event.case).filter((c) => c !== "partDelta"),
    ["start", "partStart", "ping", "partStop", "partStart", "partStop", "finish", "usage"],
  );
  const resp = await collectStream(
    (async function* () {
      yield* events;
    })(),
  );
  t.same(
    resp.candidates[0]!.parts.map((p) => p.kind.case),
    ["text", "toolCall"],
  );
  const tool = resp.candidates[0]!.parts[1]!.kind;
  t.same(tool.case === "toolCall" && tool.value.arguments, { location: "San Francisco, CA" });
  t.equal(resp.candidates[0]!.finishReason, FinishReason.TOOL_USE);
  t.equal(resp.usage?.inputTokens, 377n, "input from message_start survives the delta usage");
  t.equal(resp.usage?.outputTokens, 65n);
});

t.test("a custom tool's call comes back with its input, whole and streamed (held to the block's end)", async (t) => {
  const withCustom = create(ChatInputSchema, {
    model: "claude-client",
    turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "patch it" } } }] }],
    tools: [{ kind: { case: "custom", value: { name: "apply_patch" } } }, { kind: { case: "function", value: { name: "get_weather" } } }],
  });
  const patch = '*** Begin Patch\n*** Add File: "q".txt\n+x\n*** End Patch';
  reply = {
    json: {
      id: "msg_c",
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [
        { type: "tool_use", id: "toolu_p", name: "apply_patch", input: { input: patch } },
        { type: "tool_use", id: "toolu_w", name: "get_weather", input: { input: "not custom" } },
      ],
      stop_reason: "tool_use",
      usage: { input_tokens: 5, output_tokens: 3 },
    },
  };
  const whole = await provider.generate(withCustom, ctx());
  t.same(
    whole.candidates[0]!.parts.map((p) => p.kind.case === "toolCall" && [p.kind.value.name, p.kind.value.input, p.kind.value.arguments]),
    [
      ["apply_patch", patch, undefined],
      ["get_weather", undefined, { input: "not custom" }],
    ],
  );

  const json = JSON.stringify({ input: patch });
  const sse = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  reply = {
    chunks: [
      sse("message_start", { message: { id: "msg_s", type: "message", role: "assistant", model: "claude-x", content: [], usage: { input_tokens: 5, output_tokens: 1 } } }),
      sse("content_block_start", { index: 0, content_block: { type: "tool_use", id: "toolu_p", name: "apply_patch", input: {} } }),
      sse("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: json.slice(0, 12) } }),
      sse("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: json.slice(12) } }),
      sse("content_block_stop", { index: 0 }),
      sse("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } }),
      sse("message_stop", {}),
    ],
  };
  const events = await drain(guardStream(provider.stream(withCustom, ctx())));
  const start = events.find((e) => e.event.case === "partStart")!;
  t.same(start.event.case === "partStart" && start.event.value.part?.kind.value, { $typeName: "omnigate.chat.v1.ToolCall", id: "toolu_p", name: "apply_patch", input: "" });
  t.same(
    events.flatMap((e) => (e.event.case === "partDelta" ? [[e.event.value.delta.case, e.event.value.delta.value]] : [])),
    [["input", patch]],
    "one input delta when the block stops",
  );
  const resp = await collectStream(
    (async function* () {
      yield* events;
    })(),
  );
  t.same(resp.candidates[0]!.parts[0]!.kind.value, { $typeName: "omnigate.chat.v1.ToolCall", id: "toolu_p", name: "apply_patch", input: patch });
});

t.test("stream with thinking, signature and redacted thinking", async (t) => {
  reply = { chunks: sseChunks("anthropic/stream-thinking.sse") };
  const resp = await collectStream(guardStream(provider.stream(input, ctx())));
  const parts = resp.candidates[0]!.parts;
  t.same(
    parts.map((p) => p.kind.case),
    ["thinking", "redactedThinking", "text"],
  );
  t.same(parts[0]!.kind.value, { $typeName: "omnigate.chat.v1.Thinking", text: "Let me think about 27 * 453." });
  t.equal(parts[0]!.signature?.issuer, "anthropic");
  t.equal(parts[0]!.signature?.value, "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds");
  t.equal(resp.usage?.cacheReadTokens, 64n);
});

t.test("a server that ignores stream:true still yields a valid stream", async (t) => {
  reply = { json: fixture("anthropic/message-thinking-tool.json") };
  const resp = await collectStream(guardStream(provider.stream(input, ctx())));
  t.same(
    resp.candidates[0]!.parts.map((p) => p.kind.case),
    ["thinking", "redactedThinking", "text", "toolCall"],
  );
  const tool = resp.candidates[0]!.parts[3]!.kind;
  t.same(tool.case === "toolCall" && tool.value.arguments, { city: "Paris", unit: "celsius" });
});

/** The failure of a call, checked against a code and reason. */
const failure = async (p: Promise<unknown>) => {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as ConnectError;
  if (!(err instanceof ConnectError)) throw new Error("expected a ConnectError, got " + String(err));
  return { err, what: [Code[err.code], errorDetail(err)?.reason] };
};
const check = async (t: { same: (a: unknown, b: unknown) => unknown }, p: Promise<unknown>, code: Code, reason: string) => {
  const f = await failure(p);
  t.same(f.what, [Code[code], reason]);
  return f.err;
};

t.test("upstream errors map to codes and reasons; raw text goes to the log only", async (t) => {
  reply = { status: 429, json: fixture("anthropic/error-rate-limit.json"), headers: { "retry-after": "7" } };
  const e429 = await check(t, provider.generate(input, ctx()), Code.ResourceExhausted, "rate_limited");
  t.equal(retryAfterSeconds(e429), 7);
  t.notMatch(e429.message, /sk-ant-secret|exceed/);
  t.match((up.log as RecordingLogger).text(), /sk-ant-secret-key-material/);
  reply = { status: 529, json: fixture("anthropic/error-overloaded.json") };
  await check(t, provider.generate(input, ctx()), Code.Unavailable, "overloaded");
  reply = { status: 500, json: fixture("anthropic/error-overloaded.json") };
  await check(t, provider.generate(input, ctx()), Code.Unavailable, "overloaded");
  reply = { status: 401, json: fixture("anthropic/error-auth.json") };
  await check(t, provider.generate(input, ctx()), Code.Internal, "upstream_auth");
  reply = { status: 400, json: fixture("anthropic/error-invalid.json") };
  const e400 = await check(t, provider.generate(input, ctx()), Code.InvalidArgument, "upstream_invalid_request");
  t.notMatch(e400.message, /x-secret-42|pattern/);
  reply = { status: 503, text: "<html>bad gateway</html>" };
  await check(t, provider.generate(input, ctx()), Code.Unavailable, "overloaded");
  reply = { text: "not json" };
  await check(t, provider.generate(input, ctx()), Code.Internal, "upstream_protocol_error");
});

t.test("a mid-stream error event ends the stream with the mapped error after closing the open part", async (t) => {
  reply = { chunks: sseChunks("anthropic/stream-overloaded.sse") };
  const seen: string[] = [];
  const err = await (async () => {
    for await (const e of guardStream(provider.stream(input, ctx()))) seen.push(e.event.case ?? "");
  })().then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  t.equal(err?.code, Code.Unavailable);
  t.equal(errorDetail(err!)?.reason, "overloaded");
  t.same(seen, ["start", "partStart", "partDelta", "partStop"]);
});

t.test("a stream that breaks midway is an error, not a silent cut", async (t) => {
  reply = { chunks: sseChunks("anthropic/stream-tool-use.sse"), breakAfter: 8 };
  const err = await drain(guardStream(provider.stream(input, ctx()))).then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  t.equal(err?.code, Code.Unavailable);
  t.equal(errorDetail(err!)?.reason, "upstream_stream_truncated");
  reply = { chunks: sseChunks("anthropic/stream-tool-use.sse").slice(0, 6) };
  const err2 = await drain(guardStream(provider.stream(input, ctx()))).then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  t.equal(errorDetail(err2!)?.reason, "upstream_stream_truncated", "a clean end before message_delta is truncation too");
});

t.test("a slow first byte times out", async (t) => {
  const slow = testUpstream("anthropic", fake.url, { firstByteMs: 100, channel: "slow" });
  t.teardown(() => slow.pools.close());
  reply = { json: fixture("anthropic/message-text.json"), delayMs: 1000 };
  const err = await check(t, anthropicChatProvider(slow).generate(input, ctx()), Code.DeadlineExceeded, "upstream_timeout");
  t.equal(errorDetail(err)?.metadata.phase, "first_byte");
});

t.test("a stalled stream times out on the chunk gap", async (t) => {
  const slow = testUpstream("anthropic", fake.url, { chunkGapMs: 150, channel: "stall" });
  t.teardown(() => slow.pools.close());
  reply = { chunks: sseChunks("anthropic/stream-tool-use.sse"), chunkDelayMs: 1000 };
  const err = await drain(guardStream(anthropicChatProvider(slow).stream(input, ctx()))).then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  t.equal(err?.code, Code.DeadlineExceeded);
  t.equal(errorDetail(err!)?.metadata.phase, "chunk_gap");
});

t.test("aborting the call aborts the upstream request", async (t) => {
  reply = { chunks: sseChunks("anthropic/stream-tool-use.sse"), chunkDelayMs: 200 };
  const ac = new AbortController();
  const aborted = fake.nextAbort();
  const before = fake.aborted;
  const it = provider.stream(input, ctx(ac.signal))[Symbol.asyncIterator]();
  const first = await it.next();
  t.equal(first.value?.event.case, "start");
  ac.abort();
  await aborted;
  t.equal(fake.aborted, before + 1);
  const err = await it.next().then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  t.equal(err?.code, Code.Canceled);
});

t.test("count_tokens", async (t) => {
  reply = { json: { input_tokens: 14 } };
  const r = await provider.countTokens(input, ctx());
  t.equal(r.inputTokens, 14n);
  t.equal(fake.requests.at(-1)!.path, "/v1/messages/count_tokens");
  t.notOk("max_tokens" in fake.requests.at(-1)!.body);
});
