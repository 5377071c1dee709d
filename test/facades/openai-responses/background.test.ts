// Rendering background responses (src/facades/openai-responses/background.ts):
// the opening pair, then the foreground translator's events numbered on; the
// same final Response as a foreground stream; a replay after a sequence
// number; failed and cancelled ends; a watch cut short; the render state's
// JSON round trip.
import t from "tap";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { create } from "../../../src/core/proto/create.js";
import { StreamGenerateResponseSchema, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { BackgroundResponse_State as State, WatchBackgroundResponseResponseSchema, type WatchBackgroundResponseResponse } from "../../../gen/omnigate/response/v1/response_pb.js";
import { BackgroundFrames, queuedResponse } from "../../../src/facades/openai-responses/background.js";
import { metaFromJson, metaToJson, type ResponseMeta } from "../../../src/facades/openai-responses/meta.js";
import { sealer } from "../../../src/facades/openai-responses/seal.js";
import { ResponsesStreamTranslator, type Frame } from "../../../src/facades/openai-responses/stream.js";

const seal = sealer("test-secret");
const meta: ResponseMeta = {
  id: "resp_abc",
  createdAt: 1_700_000_000,
  model: "gpt-x",
  echo: { background: true, instructions: "be brief" },
  includeEncrypted: false,
  sealer: seal,
  toolNames: new Map([["ns__f", { type: "function", name: "f", namespace: "ns" }]]),
};

const ev = (e: unknown) => create(StreamGenerateResponseSchema, { event: e } as never);
const EVENTS: StreamGenerateResponse[] = [
  ev({ case: "start", value: { model: "m" } }),
  ev({ case: "partStart", value: { index: 0, part: { kind: { case: "text", value: { text: "" } } } } }),
  ev({ case: "partDelta", value: { index: 0, delta: { case: "text", value: "Hel" } } }),
  ev({ case: "partDelta", value: { index: 0, delta: { case: "text", value: "lo" } } }),
  ev({ case: "partStop", value: { index: 0 } }),
  ev({ case: "usage", value: { inputTokens: 3n, outputTokens: 2n } }),
];
const FINISH_MS = 1_700_000_123_000;

const msg = (item: unknown, index = 0) => create(WatchBackgroundResponseResponseSchema, { item, index: BigInt(index) } as never) as WatchBackgroundResponseResponse;
const header = msg({ case: "background", value: { state: State.QUEUED, render: metaToJson(meta) } });
const events = EVENTS.map((e, i) => msg({ case: "event", value: e }, i));
const end = (state: State, extra: object = {}) => msg({ case: "end", value: { state, finishTime: timestampFromMs(FINISH_MS), ...extra } }, EVENTS.length);

function run(f: BackgroundFrames, ms: WatchBackgroundResponseResponse[]) {
  return ms.flatMap((m) => f.push(m)).filter((x): x is Exclude<Frame, "ping"> => x !== "ping");
}

t.test("the opening pair, then the foreground events numbered on, and the same final Response", async (t) => {
  const f = new BackgroundFrames(seal);
  const out = run(f, [header, ...events, end(State.SUCCEEDED)]);
  t.same(
    out.map((e) => e.type),
    [
      "response.created",
      "response.queued",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ],
  );
  t.same(
    out.map((e) => e.sequence_number),
    out.map((_, i) => i),
  );
  t.match(out[0], { response: { status: "queued", background: true, output: [], id: "resp_abc" } });
  t.same(out[0]!.response, queuedResponse(meta));
  t.ok(f.done);
  t.equal(f.state, State.SUCCEEDED);

  const fg = new ResponsesStreamTranslator(meta, { now: () => FINISH_MS });
  for (const e of EVENTS) fg.push(e);
  fg.end();
  t.same(f.final(), fg.final(), "the Response a foreground stream ends with");
  t.equal(f.final()!.completed_at, FINISH_MS / 1000, "completed at the end's time, on every replay");

  const again = run(new BackgroundFrames(seal, 4), [header, ...events, end(State.SUCCEEDED)]);
  t.same(again, out.slice(5), "a replay after sequence number 4 gives the same events from 5");
});

t.test("failed: response.failed with the error's code; cancelled: no terminal event, a cancelled Response", async (t) => {
  const failed = new BackgroundFrames(seal);
  const out = run(failed, [header, events[0]!, end(State.FAILED, { errorCode: Code.ResourceExhausted, errorMessage: "Slow down", errorDetail: { reason: "rate_limited" } })]);
  t.same(
    out.map((e) => e.type),
    ["response.created", "response.queued", "response.in_progress", "response.failed"],
  );
  t.match(failed.final(), { status: "failed", error: { code: "rate_limit_exceeded" } });

  const cancelled = new BackgroundFrames(seal);
  const c = run(cancelled, [header, ...events.slice(0, 3), end(State.CANCELLED)]);
  t.equal(c.at(-1)!.type, "response.output_text.delta", "nothing after the last event");
  t.match(cancelled.final(), { status: "cancelled", error: null, background: true, output: [{ type: "message", status: "incomplete", content: [{ text: "Hel" }] }] });

  const queuedOnly = new BackgroundFrames(seal);
  run(queuedOnly, [header, end(State.CANCELLED)]);
  t.match(queuedOnly.final(), { status: "cancelled", output: [] }, "cancelled while queued");
});

t.test("a watch cut short: nothing more, not done; frames before the header are none", async (t) => {
  const f = new BackgroundFrames(seal);
  t.same(f.push(events[0]!), []);
  run(f, [header, ...events.slice(0, 2)]);
  t.same(f.end(), []);
  t.same(f.fail(), []);
  t.notOk(f.done);
  t.equal(f.final(), undefined);
});

t.test("the render state round-trips through JSON", async (t) => {
  const back = metaFromJson(JSON.parse(JSON.stringify(metaToJson(meta))), seal);
  t.same({ ...back, sealer: undefined }, { ...meta, sealer: undefined });
  t.equal(back.sealer, seal);
  t.same([...back.toolNames], [...meta.toolNames]);
});
