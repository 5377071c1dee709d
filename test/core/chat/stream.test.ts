import t from "tap";
import { create } from "@bufbuild/protobuf";
import { FinishReason, GenerateResponseSchema, StreamGenerateResponseSchema, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { collectStream, responseToEvents, StreamOrderError } from "../../../src/core/chat/stream.js";
import { decodeSignature, encodeSignature } from "../../../src/core/chat/signature-codec.js";

const resp = create(GenerateResponseSchema, {
  id: "msg_1",
  model: "m",
  usage: { inputTokens: 5n, outputTokens: 9n },
  candidates: [
    {
      index: 0,
      finishReason: FinishReason.TOOL_USE,
      parts: [
        { kind: { case: "thinking", value: { text: "hmm, let me see" } }, signature: { issuer: "local", value: "sig" } },
        { kind: { case: "text", value: { text: "Calling a tool." } } },
        { kind: { case: "toolCall", value: { id: "toolu_1", name: "get_weather", arguments: { city: "Paris", days: 2, nested: { a: [1, 2] } } } } },
        { kind: { case: "toolCall", value: { id: "toolu_2", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" } } },
        { kind: { case: "toolCall", value: { id: "toolu_3", name: "note", input: "" } } },
      ],
    },
  ],
});

async function* from(events: StreamGenerateResponse[]) {
  yield* events;
}

t.test("a response survives responseToEvents -> collectStream", async (t) => {
  const chunk = (s: string) => s.match(/.{1,3}/gs) ?? [""];
  const events = [...responseToEvents(resp, chunk)];
  t.equal(events[0]!.event.case, "start");
  t.equal(events.at(-1)!.event.case, "usage");
  t.ok(events.filter((e) => e.event.case === "partDelta").length > 10, "split into many deltas");
  const back = await collectStream(from(events));
  t.same(back.candidates, resp.candidates);
  const custom = events.filter((e) => e.event.case === "partStart" && e.event.value.index === 3)[0]!;
  t.same(
    custom.event.case === "partStart" && custom.event.value.part?.kind.value,
    { $typeName: "omnigate.chat.v1.ToolCall", id: "toolu_2", name: "apply_patch", input: "" },
    "a custom call starts with its input empty",
  );
  t.ok(
    events.some((e) => e.event.case === "partDelta" && e.event.value.index === 3 && e.event.value.delta.case === "input"),
    "and grows by input deltas",
  );
  t.same(back.usage, resp.usage);
  t.equal(back.id, "msg_1");
});

const ev = (event: StreamGenerateResponse["event"]) => create(StreamGenerateResponseSchema, { event } as never);
const bad: [string, StreamGenerateResponse[], RegExp][] = [
  ["no start", [ev({ case: "partStop", value: { candidateIndex: 0, index: 0 } } as never)], /before start/],
  ["out-of-order index", [ev({ case: "start", value: {} } as never), ev({ case: "partStart", value: { index: 1, part: { kind: { case: "text", value: { text: "" } } } } } as never)], /expected 0/],
  ["delta of a closed part", [ev({ case: "start", value: {} } as never), ev({ case: "partDelta", value: { index: 0, delta: { case: "text", value: "x" } } } as never)], /not open/],
  ["unclosed part", [ev({ case: "start", value: {} } as never), ev({ case: "partStart", value: { index: 0, part: { kind: { case: "text", value: { text: "" } } } } } as never)], /open parts/],
  [
    "mismatched delta",
    [
      ev({ case: "start", value: {} } as never),
      ev({ case: "partStart", value: { index: 0, part: { kind: { case: "text", value: { text: "" } } } } } as never),
      ev({ case: "partDelta", value: { index: 0, delta: { case: "thinking", value: "x" } } } as never),
    ],
    /does not fit/,
  ],
  [
    "arguments for a custom call",
    [
      ev({ case: "start", value: {} } as never),
      ev({ case: "partStart", value: { index: 0, part: { kind: { case: "toolCall", value: { id: "c", name: "p", input: "" } } } } } as never),
      ev({ case: "partDelta", value: { index: 0, delta: { case: "argumentsJson", value: "{}" } } } as never),
    ],
    /does not fit/,
  ],
  ["empty", [], /without start/],
];
for (const [name, events, re] of bad) {
  t.test(`collectStream rejects: ${name}`, async (t) => {
    await t.rejects(collectStream(from(events)), new StreamOrderError(""));
    await t.rejects(collectStream(from(events)), { message: re });
  });
}

t.test("signatures keep their issuer across wires", async (t) => {
  const own = encodeSignature({ issuer: "anthropic", value: "EqQBraw==" } as never, "anthropic");
  t.equal(own, "EqQBraw==", "a vendor's own signature travels raw");
  t.match(decodeSignature(own, "anthropic"), { issuer: "anthropic", value: "EqQBraw==" }, "and decodes to that vendor");
  const foreign = encodeSignature({ issuer: "local", value: "abc:def" } as never, "gemini");
  t.not(foreign, "abc:def");
  t.match(decodeSignature(foreign, "gemini"), { issuer: "local", value: "abc:def" });
  t.match(decodeSignature(foreign, "anthropic"), { issuer: "local" }, "the issuer is known whichever wire it comes back on");
  t.match(decodeSignature("bm90IG91cnM=", "gemini"), { issuer: "gemini", value: "bm90IG91cnM=" }, "other base64 stays the wire vendor's");
});
