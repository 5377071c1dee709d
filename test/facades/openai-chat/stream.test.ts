// The stream translator (neutral events -> chat.completion.chunk frames) and
// the writer: the shape the openai SDK's stream() helper insists on, the
// usage chunk only when asked, [DONE], an error frame after the 200, and a
// property: collecting the chunks the way the SDK does gives the completion
// the unary path renders for the same answer.
import t from "tap";
import { PassThrough } from "node:stream";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { FinishReason, GenerateResponseSchema, StreamGenerateResponseSchema, type GenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { responseToEvents } from "../../../src/core/chat/stream.js";
import { coreError } from "../../../src/core/errors.js";
import { writeChatStream } from "../../../src/facades/openai-chat/sse.js";
import { ChatStreamTranslator, type Frame, type StreamOptions } from "../../../src/facades/openai-chat/stream.js";
import { fromCoreCompletion } from "../../../src/facades/openai-chat/translate-response.js";
import { rng } from "../../helpers/rng.js";

const ev = (event: MessageInitShape<typeof StreamGenerateResponseSchema>["event"]) => create(StreamGenerateResponseSchema, { event });
const base: StreamOptions = { freshId: "chatcmpl-fresh", created: 1700000000, model: "gpt-client", legacyFunctions: false, includeUsage: false };

/** The data objects of the frames, as a client parses them. */
function run(events: ReturnType<typeof ev>[], opts: Partial<StreamOptions> = {}, end = true): { data: any[]; text: string } {
  const tr = new ChatStreamTranslator({ ...base, ...opts });
  const frames: Frame[] = [];
  for (const e of events) frames.push(...tr.push(e));
  if (end) frames.push(...tr.end());
  const text = frames.map((f) => tr.frameText(f)).join("");
  const data = text
    .split("\n\n")
    .filter((b) => b.startsWith("data: "))
    .map((b) => b.slice(6))
    .map((d) => (d === "[DONE]" ? "[DONE]" : JSON.parse(d)));
  return { data, text };
}

const start = ev({ case: "start", value: { id: "msg_1", model: "m", modelVersion: "v1", channel: "local" } });
const textAnswer = [
  start,
  ev({ case: "partStart", value: { candidateIndex: 0, index: 0, part: { kind: { case: "text", value: {} } } } }),
  ev({ case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: "text", value: "Hel" } } }),
  ev({ case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: "text", value: "" } } }),
  ev({ case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: "text", value: "lo" } } }),
  ev({ case: "partStop", value: { candidateIndex: 0, index: 0 } }),
  ev({ case: "finish", value: { candidateIndex: 0, finishReason: FinishReason.STOP } }),
  ev({ case: "usage", value: { inputTokens: 4n, outputTokens: 2n } }),
];

t.test("a text stream, without and with include_usage", async (t) => {
  const { data, text } = run(textAnswer);
  t.same(
    data.slice(0, -1).map((d) => d.choices),
    [
      [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }],
      [{ index: 0, delta: { content: "Hel" }, logprobs: null, finish_reason: null }],
      [{ index: 0, delta: { content: "lo" }, logprobs: null, finish_reason: null }],
      [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }],
    ],
    "role first, the deltas (none empty), a finish chunk",
  );
  t.equal(data.at(-1), "[DONE]");
  t.match(text, /\n\ndata: \[DONE\]\n\n$/);
  for (const d of data.slice(0, -1)) {
    t.match(d, { id: "chatcmpl-fresh", object: "chat.completion.chunk", created: 1700000000, model: "gpt-client", system_fingerprint: /^fp_/ });
    t.notOk("usage" in d, "no usage field unless asked");
  }
  t.ok(text.startsWith('data: {"id":"chatcmpl-fresh","object":"chat.completion.chunk"'), "data-only frames");
  t.notMatch(text, /^event:/m);

  const withUsage = run(textAnswer, { includeUsage: true, serviceTier: "flex" }).data;
  const last = withUsage.at(-2);
  t.same(last.choices, [], "the usage chunk has no choices");
  t.same(last.usage, {
    prompt_tokens: 4,
    completion_tokens: 2,
    total_tokens: 6,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  });
  t.equal(last.id, "chatcmpl-fresh", "and the stream's id (the helper keeps usage only from chunks with one)");
  t.ok(
    withUsage.slice(0, -2).every((d) => d.usage === null && d.service_tier === "flex"),
    "usage: null on every other chunk; the tier echoed",
  );
  t.equal(run([ev({ case: "start", value: { id: "chatcmpl-up", channel: "c" } }), ...textAnswer.slice(1)]).data[0].id, "chatcmpl-up", "an upstream completion id is kept");
});

t.test("tool calls: index, id, type and name first, then fragments; reasoning; code", async (t) => {
  const { data } = run([
    start,
    ev({ case: "partStart", value: { candidateIndex: 0, index: 0, part: { kind: { case: "thinking", value: {} } } } }),
    ev({ case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: "thinking", value: "Hmm." } } }),
    ev({ case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: "signature", value: { issuer: "anthropic", value: "s" } } } }),
    ev({ case: "partStop", value: { candidateIndex: 0, index: 0 } }),
    ev({ case: "partStart", value: { candidateIndex: 0, index: 1, part: { kind: { case: "toolCall", value: { id: "call_a", name: "get_weather" } } } } }),
    ev({ case: "partDelta", value: { candidateIndex: 0, index: 1, delta: { case: "argumentsJson", value: '{"city":' } } }),
    ev({ case: "partDelta", value: { candidateIndex: 0, index: 1, delta: { case: "argumentsJson", value: '"Paris"}' } } }),
    ev({ case: "partStop", value: { candidateIndex: 0, index: 1 } }),
    ev({ case: "partStart", value: { candidateIndex: 0, index: 2, part: { kind: { case: "toolCall", value: { id: "call_b", name: "get_time" } } } } }),
    ev({ case: "partDelta", value: { candidateIndex: 0, index: 2, delta: { case: "argumentsJson", value: "{}" } } }),
    ev({ case: "partStop", value: { candidateIndex: 0, index: 2 } }),
    ev({ case: "partStart", value: { candidateIndex: 0, index: 3, part: { vendorExtras: { openai: { id: "call_c", type: "custom", custom: { name: "sql", input: "SELECT 1" } } } } } }),
    ev({ case: "partStop", value: { candidateIndex: 0, index: 3 } }),
    ev({ case: "partStart", value: { candidateIndex: 0, index: 4, part: { kind: { case: "codeExecutionResult", value: { output: "2" } } } } }),
    ev({ case: "partStop", value: { candidateIndex: 0, index: 4 } }),
    ev({ case: "finish", value: { candidateIndex: 0, finishReason: FinishReason.STOP } }),
  ]);
  t.same(
    data.slice(1, -1).map((d) => d.choices[0].delta),
    [
      { reasoning_content: "Hmm." },
      { tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
      { tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "get_time", arguments: "" } }] },
      { tool_calls: [{ index: 1, function: { arguments: "{}" } }] },
      { tool_calls: [{ index: 2, id: "call_c", type: "custom", custom: { name: "sql", input: "SELECT 1" } }] },
      { content: "```\n2\n```" },
      {},
    ],
  );
  t.equal(data.at(-2).choices[0].finish_reason, "tool_calls");
});

t.test("a custom tool's call: type custom with its name first, then input fragments", async (t) => {
  const call = (legacyFunctions: boolean) =>
    run(
      [
        start,
        ev({ case: "partStart", value: { candidateIndex: 0, index: 0, part: { kind: { case: "toolCall", value: { id: "call_p", name: "apply_patch", input: "" } } } } }),
        ev({ case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: "input", value: "*** Begin Patch\n" } } }),
        ev({ case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: "input", value: "*** End Patch" } } }),
        ev({ case: "partStop", value: { candidateIndex: 0, index: 0 } }),
        ev({ case: "finish", value: { candidateIndex: 0, finishReason: FinishReason.TOOL_USE } }),
      ],
      { legacyFunctions },
    ).data;
  t.same(
    call(false)
      .slice(1, -1)
      .map((d) => [d.choices[0].delta, d.choices[0].finish_reason]),
    [
      [{ tool_calls: [{ index: 0, id: "call_p", type: "custom", custom: { name: "apply_patch", input: "" } }] }, null],
      [{ tool_calls: [{ index: 0, custom: { input: "*** Begin Patch\n" } }] }, null],
      [{ tool_calls: [{ index: 0, custom: { input: "*** End Patch" } }] }, null],
      [{}, "tool_calls"],
    ],
  );
  t.same(
    call(true)
      .slice(1, -1)
      .map((d) => d.choices[0].delta),
    [{}],
    "the functions API has no place for it",
  );
});

t.test("the legacy functions API streams function_call", async (t) => {
  const { data } = run(
    [
      start,
      ev({ case: "partStart", value: { candidateIndex: 0, index: 0, part: { kind: { case: "toolCall", value: { id: "c", name: "f" } } } } }),
      ev({ case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: "argumentsJson", value: "{}" } } }),
      ev({ case: "partStop", value: { candidateIndex: 0, index: 0 } }),
      ev({ case: "finish", value: { candidateIndex: 0, finishReason: FinishReason.TOOL_USE } }),
    ],
    { legacyFunctions: true },
  );
  t.same(
    data.slice(1, -1).map((d) => [d.choices[0].delta, d.choices[0].finish_reason]),
    [
      [{ function_call: { name: "f", arguments: "" } }, null],
      [{ function_call: { arguments: "{}" } }, null],
      [{}, "function_call"],
    ],
  );
});

t.test("refusals and annotations from OpenAI; several choices; a blocked prompt", async (t) => {
  const annotation = { type: "url_citation", url_citation: { start_index: 0, end_index: 2, url: "https://x", title: "x" } };
  const { data } = run([
    start,
    ev({ case: "partStart", value: { candidateIndex: 1, index: 0, part: { kind: { case: "text", value: {} } } } }),
    ev({ case: "partDelta", value: { candidateIndex: 1, index: 0, delta: { case: "text", value: "Hi" } } }),
    ev({ case: "partStart", value: { candidateIndex: 1, index: 1, part: { kind: { case: "text", value: {} }, vendorExtras: { openai: { annotations: [annotation] } } } } }),
    ev({ case: "partStart", value: { candidateIndex: 0, index: 0, part: { kind: { case: "text", value: {} }, vendorExtras: { openai: { type: "refusal", refusal: "" } } } } }),
    ev({ case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: "text", value: "No." } } }),
    ev({ case: "finish", value: { candidateIndex: 0, finishReason: FinishReason.SAFETY, vendorFinishReason: "refusal" } }),
    ev({ case: "finish", value: { candidateIndex: 1, finishReason: FinishReason.STOP } }),
  ]);
  t.same(
    data.slice(0, -1).map((d) => [d.choices[0].index, d.choices[0].delta, d.choices[0].finish_reason]),
    [
      [0, { role: "assistant", content: "" }, null],
      [1, { role: "assistant", content: "" }, null],
      [1, { content: "Hi" }, null],
      [1, { annotations: [annotation] }, null],
      [0, { refusal: "No." }, null],
      [0, {}, "stop"],
      [1, {}, "stop"],
    ],
    "each choice its role first and its finish; a refusal in its own field",
  );

  const blocked = run([start, ev({ case: "promptFeedback", value: { blockReason: 1 } }), ev({ case: "usage", value: {} })]).data;
  t.same(
    blocked.slice(0, -1).map((d) => d.choices[0]),
    [
      { index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null },
      { index: 0, delta: {}, logprobs: null, finish_reason: "content_filter" },
    ],
    "a blocked prompt: a filtered finish",
  );
});

t.test("logprobs ride on the finish chunk", async (t) => {
  const { data } = run([
    start,
    ev({ case: "finish", value: { candidateIndex: 0, finishReason: FinishReason.STOP, logprobs: { chosenCandidates: [{ token: "a", logProbability: -1 }], topCandidates: [] } } }),
  ]);
  t.same(data.at(-2).choices[0].logprobs, { content: [{ token: "a", logprob: -1, bytes: [97], top_logprobs: [] }], refusal: null });
});

t.test("failures: an error frame after the 200, nothing after it; a stream without a start", async (t) => {
  const tr = new ChatStreamTranslator({ ...base, includeUsage: true, errors: { model: "gpt-client" } });
  const seen: unknown[] = [];
  const tr2 = new ChatStreamTranslator({ ...base, onError: (e) => seen.push(e) });
  tr.push(start);
  const frames = tr.fail(coreError(Code.Unavailable, "the upstream is overloaded", { reason: "overloaded" }));
  t.same(frames, [{ error: { error: { message: "the upstream is overloaded", type: "server_error", param: null, code: "overloaded" } } }]);
  t.equal(tr.frameText(frames[0]!), 'data: {"error":{"message":"the upstream is overloaded","type":"server_error","param":null,"code":"overloaded"}}\n\n');
  t.same(tr.end(), [], "nothing after the error, not even [DONE]");
  t.same(tr.push(start), []);
  const internal = tr2.fail(new ConnectError("secret upstream text", Code.Internal));
  t.same(internal, [{ error: { error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: null } } }], "no internal text");
  t.equal(seen.length, 1, "told about the failure");
  const early = new ChatStreamTranslator(base);
  t.match(early.push(ev({ case: "partStart", value: { candidateIndex: 0, index: 0, part: {} } })), [{ error: { error: { type: "server_error" } } }], "events before start are a failure");
});

t.test("the writer: one write per event, [DONE], the source closed when the client leaves", async (t) => {
  const out = new PassThrough();
  let body = "";
  out.on("data", (c: Buffer) => (body += c.toString()));
  async function* source() {
    for (const e of textAnswer) yield e;
  }
  await writeChatStream(source(), undefined, out, new ChatStreamTranslator(base), 60_000);
  t.ok(out.writableEnded);
  t.match(body, /^data: \{.*\n\ndata: \[DONE\]\n\n$/s);

  let closed = false;
  const gone = new PassThrough();
  const events = {
    i: 0,
    next: async () => {
      if (events.i === 1) gone.destroy();
      return { done: false, value: textAnswer[Math.min(events.i++, 2)]! };
    },
    return: async () => {
      closed = true;
      return { done: true as const, value: undefined };
    },
  };
  await writeChatStream(events, undefined, gone, new ChatStreamTranslator(base), 60_000);
  t.ok(closed, "the core's stream is closed");

  const failing = new PassThrough();
  let failed = "";
  failing.on("data", (c: Buffer) => (failed += c.toString()));
  async function* breaks() {
    yield textAnswer[0]!;
    yield textAnswer[1]!;
    yield textAnswer[2]!;
    throw coreError(Code.ResourceExhausted, "slow down", { reason: "rate_limited", retryAfterMs: 2000 });
  }
  await writeChatStream(breaks(), undefined, failing, new ChatStreamTranslator(base), 60_000);
  t.match(failed, /"content":"Hel".*\n\ndata: \{"error":\{"message":"slow down","type":"requests","param":null,"code":"rate_limit_exceeded"\}\}\n\n$/s);
  t.notMatch(failed, /\[DONE\]/);
});

t.test("the writer pings an idle stream with a comment", async (t) => {
  const out = new PassThrough();
  let body = "";
  out.on("data", (c: Buffer) => (body += c.toString()));
  async function* slow() {
    yield textAnswer[0]!;
    await new Promise((r) => setTimeout(r, 60));
    for (const e of textAnswer.slice(1)) yield e;
  }
  await writeChatStream(slow(), undefined, out, new ChatStreamTranslator(base), 20);
  t.match(body, /\n\n: ping\n\n/);
});

// ---------------------------------------------------------------- property

/** Folds chunks into a completion the way the openai SDK's ChatCompletionStream does. */
function accumulate(data: any[]): any {
  const choices: any[] = [];
  let usage: any;
  for (const d of data) {
    if (d === "[DONE]") continue;
    if (d.usage) usage = d.usage;
    for (const c of d.choices) {
      const ch = (choices[c.index] ??= { index: c.index, message: {}, finish_reason: null, logprobs: null });
      const m = ch.message;
      const delta = c.delta;
      if (delta.role) m.role = delta.role;
      if (delta.content) m.content = (m.content ?? "") + delta.content;
      else if (delta.content === "" && m.content === undefined) m.content = null;
      if (delta.refusal) m.refusal = (m.refusal ?? "") + delta.refusal;
      if (delta.reasoning_content) m.reasoning_content = (m.reasoning_content ?? "") + delta.reasoning_content;
      for (const tc of delta.tool_calls ?? []) {
        const calls = (m.tool_calls ??= []);
        if (tc.type === "custom" || calls[tc.index]?.type === "custom") {
          // A custom tool's call: its input fragments concatenate like arguments.
          const call = (calls[tc.index] ??= { id: tc.id, type: "custom", custom: { name: tc.custom.name, input: "" } });
          call.custom.input += tc.custom?.input ?? "";
          continue;
        }
        const call = (calls[tc.index] ??= { id: tc.id, type: tc.type, function: { name: tc.function?.name, arguments: "" } });
        call.function.arguments += tc.function?.arguments ?? "";
      }
      if (c.finish_reason) ch.finish_reason = c.finish_reason;
      if (c.logprobs) ch.logprobs = c.logprobs;
    }
  }
  return { choices, usage };
}

t.test("property: the chunks add up to the completion the unary path renders", async (t) => {
  const r = rng(5);
  const word = () => ["Hello", " world", "ünï", "\n", "{", '"x"'][Math.floor(r() * 6)]!;
  for (let i = 0; i < 200; i++) {
    const candidates = Array.from({ length: 1 + Math.floor(r() * 2) }, (_, index) => {
      const parts: any[] = [];
      if (r() < 0.3) parts.push({ kind: { case: "thinking", value: { text: word() + word() } } });
      if (r() < 0.8) parts.push({ kind: { case: "text", value: { text: word() + word() + word() } } });
      const calls = Math.floor(r() * 3);
      for (let c = 0; c < calls; c++) {
        const call = r() < 0.3 ? { input: word() + word() } : { arguments: { a: word(), n: c } };
        parts.push({ kind: { case: "toolCall", value: { id: `call_${index}_${c}`, name: `f${c}`, ...call } } });
      }
      const finish = [FinishReason.STOP, FinishReason.MAX_TOKENS, FinishReason.TOOL_USE][Math.floor(r() * 3)]!;
      return { index, parts, finishReason: finish };
    });
    const resp: GenerateResponse = create(GenerateResponseSchema, { id: "msg_p", model: "m", modelVersion: "v", channel: "c", candidates, usage: { inputTokens: BigInt(i), outputTokens: 3n } });
    const chunkers = [(s: string) => [s], (s: string) => s.split(""), (s: string) => (s.length > 2 ? [s.slice(0, 2), s.slice(2)] : [s])];
    const events = [...responseToEvents(resp, chunkers[i % 3]!)];
    const streamed = accumulate(run(events, { includeUsage: true }).data);
    const whole = fromCoreCompletion(resp, { id: "x", created: 0, model: "gpt-client", legacyFunctions: false });
    for (const c of whole.choices) {
      const s = streamed.choices[c.index];
      // The SDK folds an empty answer's content to null, as it does OpenAI's.
      const want = {
        role: "assistant",
        content: c.message.content || null,
        ...(c.message.reasoning_content ? { reasoning_content: c.message.reasoning_content } : {}),
        ...(c.message.tool_calls ? { tool_calls: c.message.tool_calls } : {}),
      };
      t.same(s.message, want, `case ${i}, choice ${c.index}: message`);
      t.equal(s.finish_reason, c.finish_reason, `case ${i}, choice ${c.index}: finish`);
    }
    t.same(streamed.usage, whole.usage, `case ${i}: usage`);
  }
});

t.test("other vendors' citations: one annotations delta before the finish, spans as in the unary answer", async (t) => {
  const cite = { type: "web_search_result_location", url: "https://example.com/a", title: "A" };
  const { data } = run([
    start,
    ev({ case: "partStart", value: { candidateIndex: 0, index: 0, part: { kind: { case: "text", value: {} } } } }),
    ev({ case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: "text", value: "Look: " } } }),
    ev({ case: "partStop", value: { candidateIndex: 0, index: 0 } }),
    ev({ case: "partStart", value: { candidateIndex: 0, index: 1, part: { kind: { case: "text", value: {} } } } }),
    ev({ case: "partDelta", value: { candidateIndex: 0, index: 1, delta: { case: "citation", value: cite } } }),
    ev({ case: "partDelta", value: { candidateIndex: 0, index: 1, delta: { case: "text", value: "the sky " } } }),
    ev({ case: "partDelta", value: { candidateIndex: 0, index: 1, delta: { case: "text", value: "is blue" } } }),
    ev({ case: "partStop", value: { candidateIndex: 0, index: 1 } }),
    ev({ case: "finish", value: { candidateIndex: 0, finishReason: FinishReason.STOP } }),
  ]);
  const choices = data.filter((d) => d !== "[DONE]").map((d) => d.choices[0]);
  const annotated = choices.filter((c) => c.delta.annotations);
  t.equal(annotated.length, 1, "one annotations delta");
  t.same(
    annotated[0].delta.annotations,
    [{ type: "url_citation", url_citation: { start_index: 6, end_index: 21, title: "A", url: "https://example.com/a" } }],
    "over the whole cited part, though the citation came first",
  );
  t.equal(choices.indexOf(annotated[0]), choices.length - 2, "right before the finish chunk");
});
