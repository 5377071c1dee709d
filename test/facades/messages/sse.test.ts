// The stream state machine: valid order, index numbering, input_json that
// concatenates to valid JSON, signatures just before the stop, and an error
// event (never a silent cut) when the neutral stream breaks.
import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { BlockReason, FinishReason, GenerateResponseSchema, PartSchema, StreamGenerateResponseSchema, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { responseToEvents } from "../../../src/core/chat/stream.js";
import { coreError } from "../../../src/core/errors.js";
import { PassThrough } from "node:stream";
import { MessagesStreamTranslator, writeMessagesStream, type SseFrame, type StreamOptions } from "../../../src/facades/messages/sse.js";

const ev = (event: MessageInitShape<typeof StreamGenerateResponseSchema>["event"]) => create(StreamGenerateResponseSchema, { event });
const opts = { requestId: "req_t", fallbackId: "msg_fb", model: "claude-x" };

function run(events: StreamGenerateResponse[], end = true): SseFrame[] {
  const sm = new MessagesStreamTranslator(opts);
  const out = events.flatMap((e) => sm.push(e));
  return end ? [...out, ...sm.end()] : out;
}

async function* from(events: StreamGenerateResponse[], fail?: Error): AsyncGenerator<StreamGenerateResponse> {
  for (const e of events) yield e;
  if (fail) throw fail;
}

/** The SSE text writeMessagesStream writes for a source, as the writes went out. */
async function written(source: AsyncIterable<StreamGenerateResponse>, o: StreamOptions = opts, heartbeatMs = 60_000): Promise<string[]> {
  const out = new PassThrough();
  const writes: string[] = [];
  out.on("data", (c: Buffer) => writes.push(c.toString()));
  await writeMessagesStream(source[Symbol.asyncIterator](), undefined, out, { ...o, heartbeatMs });
  t.ok(out.writableEnded, "the sink is ended");
  return writes;
}

async function collect(source: AsyncIterable<StreamGenerateResponse>, o: StreamOptions = opts): Promise<string> {
  return (await written(source, o)).join("");
}

/** Replays frames the way the SDK's MessageStream does, checking the hard requirements. */
function accumulate(frames: SseFrame[]) {
  const content: Record<string, unknown>[] = [];
  const json = new Map<number, string>();
  let message: Record<string, unknown> | undefined;
  let stopped = false;
  for (const f of frames) {
    const d = f.data as { type: string; index: number; message?: object; content_block?: object; delta?: Record<string, string>; usage?: unknown };
    if (f.event !== d.type) throw new Error(`event ${f.event} carries ${d.type}`);
    if (f.event === "ping") continue;
    if (!message && f.event !== "message_start" && f.event !== "error") throw new Error(`${f.event} before message_start`);
    switch (f.event) {
      case "message_start":
        message = { ...d.message };
        break;
      case "content_block_start":
        if (d.index !== content.length) throw new Error(`start index ${d.index}, expected ${content.length}`);
        content.push({ ...d.content_block });
        break;
      case "content_block_delta": {
        const b = content[d.index]!;
        const delta = d.delta!;
        if (delta.type === "text_delta") b.text = (b.text as string) + delta.text;
        else if (delta.type === "thinking_delta") b.thinking = (b.thinking as string) + delta.thinking;
        else if (delta.type === "signature_delta") b.signature = delta.signature;
        else if (delta.type === "input_json_delta") json.set(d.index, (json.get(d.index) ?? "") + delta.partial_json);
        break;
      }
      case "content_block_stop":
        if (json.has(d.index)) content[d.index]!.input = JSON.parse(json.get(d.index)!);
        break;
      case "message_delta":
        message!.stop_reason = d.delta!.stop_reason;
        message!.usage = d.usage;
        break;
      case "message_stop":
        stopped = true;
        break;
    }
  }
  return { message: message && ({ ...message, content } as Record<string, unknown>), stopped };
}

const answer = create(GenerateResponseSchema, {
  id: "msg_1",
  model: "claude-x",
  usage: { inputTokens: 9n, outputTokens: 12n },
  candidates: [
    {
      index: 0,
      finishReason: FinishReason.TOOL_USE,
      parts: [
        create(PartSchema, { kind: { case: "thinking", value: { text: "Let me think." } }, signature: { issuer: "local", value: "sig" } }),
        create(PartSchema, { kind: { case: "media", value: { mimeType: "image/png" } } }),
        create(PartSchema, { kind: { case: "text", value: { text: "Calling the tool now." } } }),
        create(PartSchema, { kind: { case: "toolCall", value: { id: "toolu_1", name: "get_weather", arguments: { city: "Paris", days: 2 } } } }),
      ],
    },
  ],
});

t.test("a whole answer: order, indexes, deltas, JSON, signature, stop reason, usage", async (t) => {
  const frames = run([...responseToEvents(answer, (s) => s.match(/.{1,4}/gs) ?? [s])]);
  t.equal(frames[0]!.event, "message_start");
  t.equal(frames[1]!.event, "ping", "a ping goes out early");
  t.equal(frames.at(-1)!.event, "message_stop");
  t.equal(frames.at(-2)!.event, "message_delta");
  const starts = frames.filter((f) => f.event === "content_block_start").map((f) => f.data.index);
  t.same(starts, [0, 1, 2], "the media part is skipped; indexes stay 0, 1, 2");
  const sigIdx = frames.findIndex((f) => f.event === "content_block_delta" && (f.data.delta as { type: string }).type === "signature_delta");
  t.equal(frames[sigIdx + 1]!.event, "content_block_stop", "signature_delta comes just before the thinking block stops");
  const json = frames.filter((f) => (f.data.delta as { type?: string } | undefined)?.type === "input_json_delta").map((f) => (f.data.delta as { partial_json: string }).partial_json);
  t.ok(json.length > 1, "arguments arrive in several fragments");
  t.same(JSON.parse(json.join("")), { city: "Paris", days: 2 });
  const { message, stopped } = accumulate(frames);
  t.ok(stopped);
  t.same(message, {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-x",
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 9, output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    content: [
      { type: "thinking", thinking: "Let me think.", signature: Buffer.from("omnigate:local:sig").toString("base64") },
      { type: "text", text: "Calling the tool now." },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris", days: 2 } },
    ],
  });
  t.same(
    (frames[0]!.data.message as { usage: unknown }).usage,
    { input_tokens: 9, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    "message_start carries a usage object",
  );
});

t.test("every frame is `event:` + `data:` text", async (t) => {
  const text = await collect(from([...responseToEvents(answer)]));
  const frames = text.split("\n\n").filter(Boolean);
  t.ok(frames.length > 5);
  for (const f of frames) t.match(f, /^event: [a-z_]+\ndata: \{.*\}$/s);
});

t.test("a tool call with no argument fragments still yields valid JSON", async (t) => {
  const frames = run([
    ev({ case: "start", value: { id: "m" } }),
    ev({ case: "partStart", value: { index: 0, part: create(PartSchema, { kind: { case: "toolCall", value: { id: "t", name: "f" } } }) } }),
    ev({ case: "partStop", value: { index: 0 } }),
  ]);
  const { message } = accumulate(frames);
  t.same((message!.content as { input: unknown }[])[0]!.input, {});
  t.equal(message!.stop_reason, "tool_use", "a tool call with no finish reason is tool_use");
});

t.test("a custom tool's call (free-text input) is a tool_use with input {input}, streamed as JSON", async (t) => {
  const input = 'line "one"\n\tline two \u00e9 \ud83d\ude00';
  const resp = create(GenerateResponseSchema, {
    id: "msg_c",
    model: "claude-x",
    candidates: [
      {
        index: 0,
        finishReason: FinishReason.TOOL_USE,
        parts: [{ kind: { case: "toolCall", value: { id: "toolu_p", name: "apply_patch", input } } }, { kind: { case: "toolCall", value: { id: "toolu_e", name: "note", input: "" } } }],
      },
    ],
  });
  for (const [name, chunk] of [
    ["one fragment", (s: string) => [s]],
    ["one character a fragment, surrogates split", (s: string) => s.split("")],
  ] as const) {
    const frames = run([...responseToEvents(resp, chunk)]);
    const { message } = accumulate(frames);
    t.same(
      message!.content,
      [
        { type: "tool_use", id: "toolu_p", name: "apply_patch", input: { input } },
        { type: "tool_use", id: "toolu_e", name: "note", input: { input: "" } },
      ],
      name,
    );
  }
});

t.test("an empty text part is no block; indexes stay dense", async (t) => {
  const text = (index: number) => ev({ case: "partStart", value: { index, part: create(PartSchema, { kind: { case: "text", value: { text: "" } } }) } });
  const frames = run([
    ev({ case: "start", value: {} }),
    text(0),
    ev({ case: "partStop", value: { index: 0 } }),
    text(1),
    ev({ case: "partDelta", value: { index: 1, delta: { case: "text", value: "" } } }),
    ev({ case: "partDelta", value: { index: 1, delta: { case: "text", value: "Hi" } } }),
    ev({ case: "partStop", value: { index: 1 } }),
    text(2),
  ]);
  t.same(
    frames.filter((f) => f.event.startsWith("content_block")).map((f) => [f.event, f.data.index]),
    [
      ["content_block_start", 0],
      ["content_block_delta", 0],
      ["content_block_stop", 0],
    ],
  );
  const { message } = accumulate(frames);
  t.same(message!.content, [{ type: "text", text: "Hi" }]);
});

t.test("a blocked prompt streams as an empty refusal", async (t) => {
  const frames = run([ev({ case: "start", value: { id: "m" } }), ev({ case: "promptFeedback", value: { blockReason: BlockReason.SAFETY } })]);
  t.same(
    frames.map((f) => f.event),
    ["message_start", "ping", "message_delta", "message_stop"],
  );
  t.equal((frames[2]!.data.delta as { stop_reason: string }).stop_reason, "refusal");
});

t.test("stop sequence and max tokens", async (t) => {
  const frames = run([ev({ case: "start", value: {} }), ev({ case: "finish", value: { finishReason: FinishReason.STOP_SEQUENCE, stopSequence: "END" } })]);
  t.same(frames.at(-2)!.data.delta, { stop_reason: "stop_sequence", stop_sequence: "END" });
  t.equal((frames[0]!.data.message as { id: string }).id, "msg_fb", "fallback id when the core gives none");
});

const failures: [string, StreamGenerateResponse[], string][] = [
  ["event before start", [ev({ case: "partStart", value: { index: 0, part: create(PartSchema, { kind: { case: "text", value: { text: "" } } }) } })], "api_error"],
  [
    "invalid tool JSON",
    [
      ev({ case: "start", value: {} }),
      ev({ case: "partStart", value: { index: 0, part: create(PartSchema, { kind: { case: "toolCall", value: { id: "t", name: "f" } } }) } }),
      ev({ case: "partDelta", value: { index: 0, delta: { case: "argumentsJson", value: '{"a": ' } } }),
      ev({ case: "partStop", value: { index: 0 } }),
    ],
    "api_error",
  ],
  [
    "delta of the wrong kind",
    [
      ev({ case: "start", value: {} }),
      ev({ case: "partStart", value: { index: 0, part: create(PartSchema, { kind: { case: "text", value: { text: "" } } }) } }),
      ev({ case: "partDelta", value: { index: 0, delta: { case: "thinking", value: "x" } } }),
    ],
    "api_error",
  ],
  ["second start", [ev({ case: "start", value: {} }), ev({ case: "start", value: {} })], "api_error"],
];

for (const [name, events, type] of failures) {
  t.test(`broken stream: ${name} -> error event`, async (t) => {
    const frames = run(events);
    const last = frames.at(-1)!;
    t.equal(last.event, "error");
    t.same(last.data, { type: "error", error: { type, message: "internal error" }, request_id: "req_t" });
    t.notOk(
      frames.some((f) => f.event === "message_stop"),
      "no message_stop after an error",
    );
  });
}

t.test("stream ended before start -> error event", async (t) => {
  const frames = run([]);
  t.same(
    frames.map((f) => f.event),
    ["error"],
  );
});

t.test("a core failure mid-stream becomes an error event with the Anthropic type", async (t) => {
  const events = [...responseToEvents(answer)].slice(0, 4);
  const text = await collect(from(events, coreError(Code.Unavailable, "overloaded", { reason: "overloaded" })));
  const frames = text.split("\n\n").filter(Boolean);
  const last = frames.at(-1)!;
  t.equal(last.split("\n")[0], "event: error");
  t.same(JSON.parse(last.split("\n")[1]!.slice(6)), { type: "error", error: { type: "overloaded_error", message: "overloaded" }, request_id: "req_t" });
  t.notMatch(text, /message_stop/);
});

t.test("field paths of mid-stream errors are the client's", async (t) => {
  const err = coreError(Code.InvalidArgument, "bad signature", { field: "turns[0].parts[1].signature" });
  const text = await collect(from([ev({ case: "start", value: {} })], err), { ...opts, clientField: (f) => f.replace("turns[0].parts[1]", "messages.0.content.1") });
  t.match(text, /"message":"messages\.0\.content\.1\.signature: bad signature"/);
});

t.test("internal failures do not leak their text", async (t) => {
  const told: unknown[] = [];
  const text = await collect(from([ev({ case: "start", value: {} })], new Error("db password is hunter2")), { ...opts, onError: (e) => told.push(e) });
  t.equal(told.length, 1, "the failure is reported for the logs");
  t.notMatch(text, /hunter2/);
  t.match(text, /"type":"api_error","message":"internal error"/);
  const deadline = await collect(from([ev({ case: "start", value: {} })], new ConnectError("slow", Code.DeadlineExceeded)));
  t.match(deadline, /"type":"timeout_error"/);
});

t.test("nothing after the end", async (t) => {
  const sm = new MessagesStreamTranslator(opts);
  sm.push(ev({ case: "start", value: {} }));
  t.equal(sm.end().at(-1)!.event, "message_stop");
  t.same(sm.push(ev({ case: "ping", value: {} })), []);
  t.same(sm.fail(new Error("late")), []);
  t.ok(sm.done);
});

t.test("each event's frames go out in one write", async (t) => {
  const events = [...responseToEvents(answer)];
  const writes = await written(from(events));
  t.match(writes[0], /^event: message_start\n.*\n\nevent: ping\n/s, "message_start and its ping together");
  t.ok(writes.length <= events.length, "no more writes than core events");
});

t.test("heartbeat pings while the source is quiet", async (t) => {
  async function* slow() {
    yield ev({ case: "start", value: {} });
    await new Promise((r) => setTimeout(r, 60));
    yield ev({ case: "usage", value: {} });
  }
  const writes = await written(slow(), opts, 5);
  const pings = writes.filter((w) => w === 'event: ping\ndata: {"type":"ping"}\n\n');
  t.ok(pings.length >= 1, "at least one ping while the source was quiet");
  t.match(writes.at(-1), /message_stop/, "the stream still ends normally");
});

t.test("a quick source gets no heartbeat", async (t) => {
  const writes = await written(from([...responseToEvents(answer)]), opts, 60_000);
  t.equal(writes.filter((w) => w === 'event: ping\ndata: {"type":"ping"}\n\n').length, 0);
});

t.test("a client that is gone stops the reading and closes the core's stream", async (t) => {
  let closed = false;
  let read = 0;
  async function* endless() {
    try {
      yield ev({ case: "start", value: {} });
      for (;;) {
        await new Promise((r) => setImmediate(r));
        read++;
        yield ev({ case: "ping", value: {} });
      }
    } finally {
      closed = true;
    }
  }
  const out = new PassThrough();
  out.resume();
  const done = writeMessagesStream(endless(), undefined, out, { ...opts, heartbeatMs: 60_000 });
  await new Promise((r) => setTimeout(r, 5));
  out.destroy();
  await done;
  t.ok(closed, "the source was closed");
  const after = read;
  await new Promise((r) => setTimeout(r, 10));
  t.equal(read, after, "and is read no more");
});
