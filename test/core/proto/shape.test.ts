// shapeFault: what the neutral model can hold, what it repairs (absent values
// become zeros) and what it names as a fault (a value of another type).
import t from "tap";
import { create } from "../../../src/core/proto/create.js";
import { shapeFault } from "../../../src/core/proto/shape.js";
import { CountTokensResponseSchema, GenerateResponseSchema, StreamGenerateResponseSchema, type GenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { EmbedResponseSchema } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";

/** A rich answer as a provider builds it: every kind of field set. */
function answer(): GenerateResponse {
  return create(GenerateResponseSchema, {
    id: "msg_1",
    model: "m",
    candidates: [
      {
        index: 0,
        finishReason: 1,
        parts: [
          { kind: { case: "text", value: { text: "hi", citations: [{ url: "https://x" }] } } },
          { kind: { case: "toolCall", value: { id: "c1", name: "f", arguments: { a: [1, { b: null }] } } } },
          { kind: { case: "media", value: { mimeType: "image/png", source: { case: "data", value: new Uint8Array([1]) } } } },
          { kind: { case: "thinking", value: { text: "t" } }, signature: { issuer: "x", value: "s" } },
        ],
        logprobs: { chosenCandidates: [{ token: "a", logProbability: -0.5 }] },
        groundingMetadata: { sources: [] },
      },
    ],
    usage: { inputTokens: 3n, outputTokens: 5n },
    vendorExtras: { anthropic: { stop_details: null } },
  });
}

t.test("a well-formed answer has no fault and is left as it is", async (t) => {
  const a = answer();
  const before = structuredClone(a);
  t.equal(shapeFault(GenerateResponseSchema, a), undefined);
  t.same(a, before);
  t.equal(shapeFault(CountTokensResponseSchema, create(CountTokensResponseSchema, { inputTokens: 4n })), undefined);
  t.equal(shapeFault(EmbedResponseSchema, create(EmbedResponseSchema, { embeddings: [{ values: [0.1, 0.2] }] })), undefined);
});

t.test("a value of another type is a fault named by its path", async (t) => {
  const cases: [string, (a: GenerateResponse) => void, RegExp][] = [
    ["id a number", (a) => ((a as unknown as Record<string, unknown>).id = 7), /^id: a number where a string belongs$/],
    ["text an object", (a) => ((a.candidates[0]!.parts[0]!.kind.value as { text: unknown }).text = {}), /^candidates\[0\]\.parts\[0\]\.text\.text: an object where a string belongs$/],
    ["bytes a string", (a) => ((a.candidates[0]!.parts[2]!.kind.value as { source: { value: unknown } }).source.value = "AQ=="), /parts\[2\]\.media\.data: a string where bytes belongs/],
    ["a token count a number", (a) => (a.usage!.inputTokens = 3 as never), /^usage\.inputTokens: a number where a bigint belongs$/],
    ["an enum a string", (a) => (a.candidates[0]!.finishReason = "STOP" as never), /finishReason: a string where an enum number belongs/],
    ["parts not a list", (a) => (a.candidates[0]!.parts = {} as never), /^candidates\[0\]\.parts: an object where a list belongs$/],
    ["a candidate a string", (a) => (a.candidates[0] = "x" as never), /^candidates\[0\]: a string where a Candidate belongs$/],
    ["a Struct field an array", (a) => (a.candidates[0]!.groundingMetadata = [] as never), /groundingMetadata: an array where a JSON object belongs/],
    ["a map value not an object", (a) => (a.vendorExtras.anthropic = "x" as never), /^vendorExtras\["anthropic"\]: a string where a JSON object belongs$/],
    ["an unknown oneof case", (a) => (a.candidates[0]!.parts[0]!.kind = { case: "sound", value: {} } as never), /parts\[0\]\.kind: no such case "sound"/],
    ["a oneof not an object", (a) => (a.candidates[0]!.parts[0]!.kind = 5 as never), /parts\[0\]\.kind: a number where a oneof belongs/],
    ["a signature's value a number", (a) => (a.candidates[0]!.parts[3]!.signature!.value = 5 as never), /^candidates\[0\]\.parts\[3\]\.signature\.value: a number where a string belongs$/],
    ["a double a string", (a) => (a.candidates[0]!.logprobs!.chosenCandidates[0]!.logProbability = "-1" as never), /logProbability: a string where a number belongs/],
  ];
  for (const [name, spoil, want] of cases) {
    const a = answer();
    spoil(a);
    t.match(shapeFault(GenerateResponseSchema, a), want, name);
  }
  t.match(shapeFault(GenerateResponseSchema, null), /a GenerateResponse belongs/, "no message at all");
});

t.test("absent values become the zero value of their field", async (t) => {
  const a = answer() as unknown as Record<string, unknown> & GenerateResponse;
  a.id = undefined as never;
  a.model = null as never;
  (a.candidates[0]!.parts[0]!.kind.value as { citations: unknown }).citations = undefined;
  a.vendorExtras = null as never;
  a.usage = null as never;
  a.candidates[0]!.avgLogprobs = null as never;
  a.candidates[0]!.parts[1]!.kind = undefined as never;
  t.equal(shapeFault(GenerateResponseSchema, a), undefined);
  t.equal(a.id, "");
  t.equal(a.model, "");
  t.same((a.candidates[0]!.parts[0]!.kind.value as { citations: unknown }).citations, []);
  t.same(a.vendorExtras, {});
  t.notOk("usage" in a, "an absent message field is left out");
  t.notOk("avgLogprobs" in a.candidates[0]!, "an absent optional scalar is left out");
  t.same(a.candidates[0]!.parts[1]!.kind, { case: undefined });
});

t.test("stream events are checked the same way", async (t) => {
  const ok = create(StreamGenerateResponseSchema, { event: { case: "partDelta", value: { index: 0, delta: { case: "text", value: "hi" } } } });
  t.equal(shapeFault(StreamGenerateResponseSchema, ok), undefined);
  const bad = create(StreamGenerateResponseSchema, { event: { case: "partDelta", value: { index: 0, delta: { case: "text", value: 42 as never } } } });
  t.match(shapeFault(StreamGenerateResponseSchema, bad), /^partDelta\.text: a number where a string belongs$/);
  const badIndex = create(StreamGenerateResponseSchema, { event: { case: "partStop", value: { index: "0" as never } } });
  t.match(shapeFault(StreamGenerateResponseSchema, badIndex), /^partStop\.index: a string where a number belongs$/);
});
