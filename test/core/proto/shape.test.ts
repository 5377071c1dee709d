// shapeFault: what the neutral model can hold, what it repairs (absent values
// become zeros) and what it names as a fault (a value of another type).
import t from "tap";
import { create as libraryCreate, createFileRegistry, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, file_google_protobuf_struct } from "@bufbuild/protobuf/wkt";
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
    // What the binary encoder would refuse when a remote client's answer is encoded.
    ["an int32 a fraction", (a) => (a.candidates[0]!.index = 1.5), /^candidates\[0\]\.index: 1\.5 where a 32-bit integer belongs$/],
    ["an int32 too large", (a) => (a.candidates[0]!.index = 2 ** 31), /^candidates\[0\]\.index: 2147483648 where a 32-bit integer belongs$/],
    ["an int32 a string", (a) => (a.candidates[0]!.index = "0" as never), /^candidates\[0\]\.index: a string where a number belongs$/],
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

/** Field shapes gen/ does not have: a bool, an int64 as a JS string, Value and ListValue fields, a map of numbers. */
function synthetic(): DescMessage {
  const T = { INT32: 5, INT64: 3, BOOL: 8, STRING: 9, MESSAGE: 11, UINT32: 13 };
  const L = { OPTIONAL: 1, REPEATED: 3 };
  const file = libraryCreate(FileDescriptorProtoSchema, {
    name: "shape-synthetic.proto",
    package: "synthetic",
    syntax: "proto3",
    dependency: ["google/protobuf/struct.proto"],
    messageType: [
      {
        name: "Odd",
        field: [
          { name: "on", number: 1, label: L.OPTIONAL, type: T.BOOL, jsonName: "on" },
          { name: "big", number: 2, label: L.OPTIONAL, type: T.INT64, jsonName: "big", options: { jstype: 1 } },
          { name: "any", number: 3, label: L.OPTIONAL, type: T.MESSAGE, typeName: ".google.protobuf.Value", jsonName: "any" },
          { name: "list", number: 4, label: L.OPTIONAL, type: T.MESSAGE, typeName: ".google.protobuf.ListValue", jsonName: "list" },
          { name: "counts", number: 5, label: L.REPEATED, type: T.MESSAGE, typeName: ".synthetic.Odd.CountsEntry", jsonName: "counts" },
          { name: "size", number: 6, label: L.OPTIONAL, type: T.UINT32, jsonName: "size" },
        ],
        nestedType: [
          {
            name: "CountsEntry",
            field: [
              { name: "key", number: 1, label: L.OPTIONAL, type: T.STRING, jsonName: "key" },
              { name: "value", number: 2, label: L.OPTIONAL, type: T.INT32, jsonName: "value" },
            ],
            options: { mapEntry: true },
          },
        ],
      },
    ],
  });
  const registry = createFileRegistry(file, (name) => (name === "google/protobuf/struct.proto" ? file_google_protobuf_struct : undefined));
  return registry.getMessage("synthetic.Odd")!;
}

t.test("shapes gen/ does not use: booleans, 64-bit strings, Value, ListValue, maps of scalars", async (t) => {
  const Odd = synthetic();
  const ok = { $typeName: "synthetic.Odd", on: true, big: "9007199254740993", any: [1, { a: null }], list: ["x"], counts: { a: 1 }, size: 0xffffffff };
  t.equal(shapeFault(Odd, ok), undefined);
  t.match(shapeFault(Odd, { ...ok, on: "yes" }), /^on: a string where a boolean belongs$/);
  t.match(shapeFault(Odd, { ...ok, big: 5n }), /^big: a bigint where a 64-bit integer string belongs$/);
  t.equal(shapeFault(Odd, { ...ok, any: "anything JSON" }), undefined, "a Value holds any JSON");
  t.match(shapeFault(Odd, { ...ok, list: {} }), /^list: an object where a JSON array belongs$/);
  t.match(shapeFault(Odd, { ...ok, counts: [] }), /^counts: an array where a map belongs$/);
  t.match(shapeFault(Odd, { ...ok, counts: { a: "1" } }), /^counts\["a"\]: a string where a number belongs$/);
  t.match(shapeFault(Odd, { ...ok, size: -1 }), /^size: -1 where an unsigned 32-bit integer belongs$/);
  t.match(shapeFault(Odd, { ...ok, size: 2 ** 32 }), /^size: 4294967296 where an unsigned 32-bit integer belongs$/);
  t.match(shapeFault(Odd, { ...ok, size: "1" }), /^size: a string where a number belongs$/);
});

t.test("a oneof whose case is not a string is a fault", async (t) => {
  const a = answer();
  a.candidates[0]!.parts[0]!.kind = { case: 3, value: {} } as never;
  t.match(shapeFault(GenerateResponseSchema, a), /parts\[0\]\.kind: no such case 3$/);
});
