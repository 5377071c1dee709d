// The stream translator: neutral events -> generate-content chunks (pure).
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  BlockReason,
  CandidateSchema,
  FinishReason,
  GenerateResponseSchema,
  PartSchema,
  SignatureSchema,
  StreamGenerateResponseSchema,
  type GenerateResponse,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { responseToEvents } from "../../../src/core/chat/stream.js";
import { encodeSignature } from "../../../src/core/chat/signature-codec.js";
import { GenerateContentStreamTranslator, type Chunk } from "../../../src/facades/generate-content/stream.js";
import { fromCoreResponse } from "../../../src/facades/generate-content/translate-response.js";

const words = (s: string) => s.match(/\S+\s*/g) ?? [s];

function run(resp: GenerateResponse, includeThoughts: boolean, chunk = words): Chunk[] {
  const tr = new GenerateContentStreamTranslator({ includeThoughts });
  const out: Chunk[] = [];
  for (const e of responseToEvents(resp, chunk)) out.push(...tr.push(e));
  out.push(...tr.end());
  return out;
}

type WireCand = { content?: { parts: Record<string, unknown>[] }; finishReason?: string; index: number };
const partsOf = (chunks: Chunk[], i = 0) => chunks.flatMap((c) => ((c.candidates as WireCand[] | undefined) ?? []).filter((x) => x.index === i).flatMap((x) => x.content?.parts ?? []));

const local = create(SignatureSchema, { issuer: "local", value: "S" });
const answer = create(GenerateResponseSchema, {
  id: "r",
  model: "m",
  modelVersion: "v",
  usage: { inputTokens: 4n, outputTokens: 9n, thinkingTokens: 3n },
  candidates: [
    create(CandidateSchema, {
      index: 0,
      finishReason: FinishReason.TOOL_USE,
      parts: [
        create(PartSchema, { kind: { case: "thinking", value: { text: "let me see" } }, signature: local }),
        create(PartSchema, { kind: { case: "text", value: { text: "calling it now" } } }),
        create(PartSchema, { kind: { case: "toolCall", value: { id: "c", name: "f", arguments: { city: "Paris", n: [1, 2] } } } }),
      ],
    }),
  ],
});

t.test("text and thought deltas stream; calls go out whole; the last chunk finishes", async (t) => {
  const chunks = run(answer, true);
  t.ok(chunks.length >= 5);
  const parts = partsOf(chunks);
  t.same(
    parts
      .filter((p) => p.thought)
      .map((p) => p.text)
      .join(""),
    "let me see",
  );
  t.equal(
    parts
      .filter((p) => !p.thought && typeof p.text === "string")
      .map((p) => p.text)
      .join(""),
    "calling it now",
  );
  t.same(
    parts.filter((p) => p.functionCall),
    [{ functionCall: { id: "c", name: "f", args: { city: "Paris", n: [1, 2] } } }],
  );
  t.equal(parts.find((p) => !p.thought && p.thoughtSignature)?.text, "calling ", "the first text chunk after the thoughts carries the signature");
  t.equal(parts.find((p) => p.thoughtSignature)?.thoughtSignature, encodeSignature(local, "gemini"));
  const last = chunks.at(-1)!;
  t.equal((last.candidates as WireCand[])[0]!.finishReason, "STOP");
  t.same(last.usageMetadata, { promptTokenCount: 4, candidatesTokenCount: 6, thoughtsTokenCount: 3, totalTokenCount: 13, promptTokensDetails: [] });
  t.notOk(
    chunks.slice(0, -1).some((c) => (c.candidates as WireCand[])[0]!.finishReason),
    "only the last chunk finishes",
  );
  t.same(chunks[0]!.usageMetadata, { promptTokenCount: 4, totalTokenCount: 4 }, "earlier chunks carry the prompt count");
  t.ok(chunks.every((c) => c.responseId === "r" && c.modelVersion === "v"));
});

t.test("the stream says what the whole answer says", async (t) => {
  const chunks = run(answer, false);
  const whole = fromCoreResponse(answer, { includeThoughts: false });
  const merged = partsOf(chunks);
  const wholeParts = (whole.candidates as WireCand[])[0]!.content!.parts;
  t.equal(
    merged
      .filter((p) => typeof p.text === "string")
      .map((p) => p.text)
      .join(""),
    "calling it now",
  );
  t.same(
    merged.filter((p) => p.functionCall),
    wholeParts.filter((p) => p.functionCall),
  );
  t.notOk(
    merged.some((p) => p.thought),
    "no thoughts when not asked",
  );
  t.equal(merged.find((p) => p.thoughtSignature)?.thoughtSignature, wholeParts.find((p) => p.thoughtSignature)?.thoughtSignature, "the same hidden-thought signature");
  t.same(chunks.at(-1)!.usageMetadata, whole.usageMetadata);
});

t.test("a custom tool's call (free-text input) is a functionCall with args {input}, streamed and whole", async (t) => {
  const resp = create(GenerateResponseSchema, {
    id: "r",
    model: "m",
    candidates: [{ index: 0, finishReason: FinishReason.TOOL_USE, parts: [{ kind: { case: "toolCall", value: { id: "c1", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" } } }] }],
  });
  const want = [{ functionCall: { id: "c1", name: "apply_patch", args: { input: "*** Begin Patch\n*** End Patch" } } }];
  t.same(
    partsOf(run(resp, false, (s) => s.match(/./gsu) ?? [s])).filter((p) => p.functionCall),
    want,
  );
  t.same(
    ((fromCoreResponse(resp, { includeThoughts: false }).candidates as WireCand[])[0]!.content!.parts as Record<string, unknown>[]).filter((p) => p.functionCall),
    want,
  );
});

t.test("a thinking signature with nothing after it arrives in the last chunk", async (t) => {
  const onlyThought = create(GenerateResponseSchema, {
    id: "r",
    model: "m",
    candidates: [create(CandidateSchema, { index: 0, finishReason: FinishReason.MAX_TOKENS, parts: [create(PartSchema, { kind: { case: "thinking", value: { text: "hm" } }, signature: local })] })],
  });
  const chunks = run(onlyThought, true);
  const last = (chunks.at(-1)!.candidates as WireCand[])[0]!;
  t.equal(last.finishReason, "MAX_TOKENS");
  t.same(last.content!.parts.at(-1), { text: "", thoughtSignature: encodeSignature(local, "gemini") });
});

t.test("several candidates each finish in the last chunk", async (t) => {
  const two = create(GenerateResponseSchema, {
    id: "r",
    model: "m",
    candidates: [0, 1].map((i) => create(CandidateSchema, { index: i, finishReason: FinishReason.STOP, parts: [create(PartSchema, { kind: { case: "text", value: { text: `answer ${i}` } } })] })),
  });
  const chunks = run(two, false);
  t.equal(
    partsOf(chunks, 0)
      .map((p) => p.text)
      .join(""),
    "answer 0",
  );
  t.equal(
    partsOf(chunks, 1)
      .map((p) => p.text)
      .join(""),
    "answer 1",
  );
  t.same(
    (chunks.at(-1)!.candidates as WireCand[]).map((c) => [c.index, c.finishReason]),
    [
      [0, "STOP"],
      [1, "STOP"],
    ],
  );
});

t.test("a blocked prompt streams one chunk with promptFeedback", async (t) => {
  const blocked = create(GenerateResponseSchema, { id: "r", model: "m", usage: { inputTokens: 2n }, promptFeedback: { blockReason: BlockReason.SAFETY } });
  const chunks = run(blocked, false);
  t.equal(chunks.length, 1);
  t.equal(chunks[0]!.candidates, undefined);
  t.same(chunks[0]!.promptFeedback, { blockReason: "SAFETY", safetyRatings: [] });
});

t.test("flush gives back the held chunk; broken arguments fail", async (t) => {
  const tr = new GenerateContentStreamTranslator({ includeThoughts: false });
  tr.push(create(StreamGenerateResponseSchema, { event: { case: "start", value: { id: "r", model: "m" } } }));
  tr.push(create(StreamGenerateResponseSchema, { event: { case: "partStart", value: { index: 0, part: { kind: { case: "text", value: { text: "" } } } } } }));
  t.same(tr.push(create(StreamGenerateResponseSchema, { event: { case: "partDelta", value: { index: 0, delta: { case: "text", value: "x" } } } })), [], "held back");
  t.ok(tr.hasOutput);
  t.equal(partsOf(tr.flush())[0]!.text, "x");
  t.notOk(tr.hasOutput);
  tr.push(create(StreamGenerateResponseSchema, { event: { case: "partStart", value: { index: 1, part: { kind: { case: "toolCall", value: { id: "c", name: "f" } } } } } }));
  tr.push(create(StreamGenerateResponseSchema, { event: { case: "partDelta", value: { index: 1, delta: { case: "argumentsJson", value: "{not json" } } } }));
  let err: unknown;
  try {
    tr.push(create(StreamGenerateResponseSchema, { event: { case: "partStop", value: { index: 1 } } }));
  } catch (e) {
    err = e;
  }
  t.ok(err instanceof ConnectError && err.code === Code.Internal, "malformed arguments are an Internal error");
});
