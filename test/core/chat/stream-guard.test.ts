// The stream guard: whatever the source does, the output is a valid neutral
// stream or ends with a ConnectError, never a silent cut.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { StreamGenerateResponseSchema, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { guardStream } from "../../../src/core/chat/stream-guard.js";
import { collectStream } from "../../../src/core/chat/stream.js";
import { errorDetail } from "../../../src/core/errors.js";

const ev = (e: unknown) => create(StreamGenerateResponseSchema, { event: e } as never);
const start = ev({ case: "start", value: { id: "s", usage: { inputTokens: 5n } } });
const text = (i: number) => ev({ case: "partStart", value: { index: i, part: { kind: { case: "text", value: {} } } } });
const tool = (i: number) => ev({ case: "partStart", value: { index: i, part: { kind: { case: "toolCall", value: { id: "t", name: "f" } } } } });
const dText = (i: number, v: string) => ev({ case: "partDelta", value: { index: i, delta: { case: "text", value: v } } });
const dArgs = (i: number, v: string) => ev({ case: "partDelta", value: { index: i, delta: { case: "argumentsJson", value: v } } });
const custom = (i: number) => ev({ case: "partStart", value: { index: i, part: { kind: { case: "toolCall", value: { id: "c", name: "p", input: "" } } } } });
const dInput = (i: number, v: string) => ev({ case: "partDelta", value: { index: i, delta: { case: "input", value: v } } });
const stop = (i: number) => ev({ case: "partStop", value: { index: i } });
const finish = ev({ case: "finish", value: { finishReason: 1 } });

async function run(events: StreamGenerateResponse[], fail?: ConnectError) {
  const seen: string[] = [];
  const src = (async function* () {
    yield* events;
    if (fail) throw fail;
  })();
  const err = await (async () => {
    for await (const e of guardStream(src)) seen.push(`${e.event.case}${e.event.case === "partDelta" && e.event.value.delta.case === "argumentsJson" ? ":" + e.event.value.delta.value : ""}`);
  })().then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  return { seen, err };
}

t.test("a good stream passes and gains a usage event", async (t) => {
  const { seen, err } = await run([start, text(0), dText(0, "hi"), stop(0), finish]);
  t.notOk(err);
  t.same(seen, ["start", "partStart", "partDelta", "partStop", "finish", "usage"]);
  const r = await collectStream(
    guardStream(
      (async function* () {
        yield* [start, text(0), dText(0, "hi"), stop(0), finish];
      })(),
    ),
  );
  t.equal(r.usage?.inputTokens, 5n, "the start usage is repeated at the end");
});

t.test("a tool call without argument fragments gets {}; a finish closes open parts; a new part closes the previous", async (t) => {
  const { seen, err } = await run([start, tool(0), text(1), dText(1, "x"), finish]);
  t.notOk(err);
  t.same(seen, ["start", "partStart", "partDelta:{}", "partStop", "partStart", "partDelta", "partStop", "finish", "usage"]);
});

t.test("a custom tool's call takes input deltas and gets no arguments", async (t) => {
  const { seen, err } = await run([start, custom(0), dInput(0, "a b"), dInput(0, "c"), stop(0), custom(1), finish]);
  t.notOk(err);
  t.same(seen, ["start", "partStart", "partDelta", "partDelta", "partStop", "partStart", "partStop", "finish", "usage"], "no {} added, even when it had no input");
});

t.test("an unfinished stream is truncation; open text parts are closed first", async (t) => {
  const { seen, err } = await run([start, text(0), dText(0, "par")]);
  t.equal(err?.code, Code.Unavailable);
  t.equal(errorDetail(err!)?.reason, "upstream_stream_truncated");
  t.same(seen, ["start", "partStart", "partDelta", "partStop"]);
  const empty = await run([]);
  t.equal(errorDetail(empty.err!)?.reason, "upstream_stream_truncated");
});

t.test("an error mid tool call leaves the incomplete call open and reports the error", async (t) => {
  const boom = new ConnectError("boom", Code.Unavailable);
  const { seen, err } = await run([start, tool(0), dArgs(0, '{"a":')], boom);
  t.equal(err, boom);
  t.same(seen, ["start", "partStart", 'partDelta:{"a":']);
});

t.test("violations are protocol errors", async (t) => {
  const cases: [StreamGenerateResponse[], RegExp][] = [
    [[text(0)], /before start/],
    [[start, start], /second start/],
    [[start, text(1)], /expected 0/],
    [[start, dText(0, "x")], /not open/],
    [[start, text(0), dArgs(0, "{}")], /does not fit/],
    [[start, tool(0), dArgs(0, "[1]"), stop(0)], /not a JSON object/],
    [[start, custom(0), dArgs(0, "{}")], /does not fit/],
    [[start, tool(0), dInput(0, "x")], /does not fit/],
    [[start, text(0), dInput(0, "x")], /does not fit/],
    [[start, stop(0)], /not open/],
  ];
  for (const [events, cause] of cases) {
    const { err } = await run(events);
    t.equal(errorDetail(err!)?.reason, "upstream_protocol_error");
    t.match(String((err!.cause as Error).message), cause);
  }
});

t.test("the provider's stream is closed when the reader stops early or a violation stops the guard", async (t) => {
  const source = (events: StreamGenerateResponse[], log: string[]) =>
    (async function* () {
      try {
        for (const e of events) yield e;
        log.push("ran out");
      } finally {
        log.push("closed");
      }
    })();
  const early: string[] = [];
  const g = guardStream(source([start, text(0), dText(0, "a"), dText(0, "b"), stop(0), finish], early));
  t.equal((await g.next()).value?.event.case, "start");
  t.same(await g.return(undefined), { done: true, value: undefined });
  t.same(early, ["closed"], "returning early closes the source");
  t.same(await g.next(), { done: true, value: undefined }, "and the guard stays finished");

  const bad: string[] = [];
  const seen: string[] = [];
  const err = await (async () => {
    for await (const e of guardStream(source([start, text(0), dText(0, "a"), dText(3, "x"), finish], bad))) seen.push(e.event.case ?? "");
  })().then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  t.equal(err?.code, Code.Internal, "a violation is a protocol error");
  t.same(bad, ["closed"], "the source was closed, not read to its end");
  t.same(seen, ["start", "partStart", "partDelta", "partStop"], "the open text part was closed before the error");

  const done: string[] = [];
  const fin = guardStream(source([start, text(0), dText(0, "a")], done));
  const all: string[] = [];
  const e2 = await (async () => {
    for await (const e of fin) all.push(e.event.case ?? "");
  })().then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  t.equal(e2?.code, Code.Unavailable, "an early end is truncation");
  t.same(done, ["ran out", "closed"]);
  t.same(await fin.return(undefined), { done: true, value: undefined }, "return after the end is harmless");
});
