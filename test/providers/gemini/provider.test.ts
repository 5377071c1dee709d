// The Gemini provider against a loopback fake upstream replaying recorded
// generateContent exchanges.
import t from "tap";
import { clone, create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  BlockReason,
  ChatInputSchema,
  PartSchema,
  ToolChoiceSchema,
  FinishReason,
  HarmCategory,
  HarmProbability,
  Modality,
  Role,
  type StreamGenerateResponse,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { geminiChatProvider } from "../../../src/providers/gemini/provider.js";
import { geminiHeaders } from "../../../src/providers/gemini/client.js";
import { collectStream } from "../../../src/core/chat/stream.js";
import { guardStream } from "../../../src/core/chat/stream-guard.js";
import { errorDetail, retryAfterSeconds } from "../../../src/core/errors.js";
import { fixture, sseChunks, startFakeUpstream, type Reply } from "../../fixtures/fake-upstream.js";
import { testUpstream, type RecordingLogger } from "../../fixtures/upstream.js";

const input = create(ChatInputSchema, {
  model: "gem-client",
  turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "hi" } } }] }],
  config: { maxOutputTokens: 100, thinking: { includeThoughts: true } },
});

let reply: Reply = {};
const fake = await startFakeUpstream(() => reply);
t.teardown(() => fake.close());
const up = testUpstream("gemini", `${fake.url}/v1beta`, { headers: geminiHeaders("AIza-test") });
t.teardown(() => up.pools.close());
const provider = geminiChatProvider(up);
const ctx = (signal = new AbortController().signal) => ({ signal, requestId: "req_g", upstreamModel: "models/gemini-2.5-flash" });
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

t.test("generateContent: path, key header, text, safety ratings, usage", async (t) => {
  reply = { json: fixture("gemini/text.json") };
  const r = await provider.generate(input, ctx());
  const req = fake.requests.at(-1)!;
  t.equal(req.path, "/v1beta/models/gemini-2.5-flash:generateContent");
  t.equal(req.headers["x-goog-api-key"], "AIza-test");
  t.same(req.body, { contents: [{ role: "user", parts: [{ text: "hi" }] }], generationConfig: { maxOutputTokens: 100, thinkingConfig: { includeThoughts: true } } });
  t.equal(r.id, "Il0taoSYJ5Cez7IPx7WnoQc");
  t.equal(r.modelVersion, "gemini-2.5-flash");
  const c = r.candidates[0]!;
  t.equal(c.finishReason, FinishReason.STOP);
  t.same(
    c.safetyRatings.map((s) => [s.category, s.probability]),
    [
      [HarmCategory.HARASSMENT, HarmProbability.NEGLIGIBLE],
      [HarmCategory.DANGEROUS_CONTENT, HarmProbability.LOW],
    ],
  );
  t.same([r.usage?.inputTokens, r.usage?.outputTokens], [4n, 2n]);
  t.same(
    r.usage?.inputDetails.map((d) => [d.modality, d.tokenCount]),
    [[Modality.TEXT, 4n]],
  );
});

t.test("thinking and a signed function call; cached tokens", async (t) => {
  reply = { json: fixture("gemini/thinking-function-call.json") };
  const r = await provider.generate(input, ctx());
  const [th, call] = r.candidates[0]!.parts;
  t.equal(th!.kind.case, "thinking");
  t.same(th!.signature && [th!.signature.issuer, th!.signature.value], ["gemini", "CiQBcsjafEvY7nQ0PsGl8b3vL5eSig=="], "the step's signature stays with its thinking");
  t.equal(call!.kind.case, "toolCall");
  t.notOk(call!.signature);
  t.match(call!.kind.case === "toolCall" && call!.kind.value.id, /^call_[0-9a-f]{24}$/, "a generated id");
  t.equal(r.candidates[0]!.finishReason, FinishReason.TOOL_USE);
  t.equal(r.candidates[0]!.vendorFinishReason, "STOP");
  t.same([r.usage?.inputTokens, r.usage?.cacheReadTokens, r.usage?.outputTokens, r.usage?.thinkingTokens], [200n, 1000n, 60n, 45n]);
  t.same(
    r.usage?.inputDetails.map((d) => d.tokenCount),
    [200n],
    "per-modality input excludes the cached part",
  );
});

t.test("a blocked prompt", async (t) => {
  reply = { json: fixture("gemini/blocked.json") };
  const r = await provider.generate(input, ctx());
  t.equal(r.candidates.length, 0);
  t.equal(r.promptFeedback?.blockReason, BlockReason.SAFETY);
  t.equal(r.promptFeedback?.safetyRatings[0]?.blocked, true);
  reply = { chunks: [`data: ${JSON.stringify(fixture("gemini/blocked.json"))}\r\n\r\n`] };
  const s = await collectStream(guardStream(provider.stream(input, ctx())));
  t.equal(s.promptFeedback?.blockReason, BlockReason.SAFETY);
  t.equal(s.candidates.length, 0);
});

t.test("stream text over alt=sse", async (t) => {
  reply = { chunks: sseChunks("gemini/stream-text.sse") };
  const r = await collectStream(guardStream(provider.stream(input, ctx())));
  const req = fake.requests.at(-1)!;
  t.equal(req.path, "/v1beta/models/gemini-2.5-flash:streamGenerateContent");
  t.equal(req.query.get("alt"), "sse");
  t.same(
    r.candidates[0]!.parts.map((p) => p.kind.value),
    [{ $typeName: "omnigate.chat.v1.TextPart", text: "Hello!", citations: [] }],
  );
  t.same([r.usage?.inputTokens, r.usage?.outputTokens], [4n, 3n]);
  t.equal(r.id, "r-stream");
});

t.test("stream: thoughts, text, signed calls", async (t) => {
  // Text follows the thoughts here, so the call keeps its own signature.
  reply = { chunks: sseChunks("gemini/stream-thinking-tools.sse") };
  const r = await collectStream(guardStream(provider.stream(input, ctx())));
  const parts = r.candidates[0]!.parts;
  t.same(
    parts.map((p) => p.kind.case),
    ["thinking", "text", "toolCall", "toolCall"],
  );
  t.same(parts[0]!.kind.value, { $typeName: "omnigate.chat.v1.Thinking", text: "**Thinking** about the weather." });
  t.same(parts[2]!.signature?.value, "CiQBsigOfCall==");
  t.notOk(parts[3]!.signature);
  t.same(
    parts.slice(2).map((p) => p.kind.case === "toolCall" && p.kind.value.arguments),
    [{ city: "Paris" }, { city: "Rome" }],
  );
  t.equal(r.candidates[0]!.finishReason, FinishReason.TOOL_USE);
  t.same([r.usage?.outputTokens, r.usage?.thinkingTokens], [60n, 40n]);
});

t.test("a custom tool's call comes back with its input, whole and streamed", async (t) => {
  const withCustom = create(ChatInputSchema, {
    model: "gemini-client",
    turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "patch it" } } }] }],
    tools: [{ kind: { case: "custom", value: { name: "apply_patch" } } }],
  });
  const patch = "*** Begin Patch\n*** Delete File: x\n*** End Patch";
  const answer = (finish: boolean) => ({
    candidates: [{ index: 0, content: { role: "model", parts: [{ functionCall: { name: "apply_patch", args: { input: patch } } }] }, ...(finish ? { finishReason: "STOP" } : {}) }],
    modelVersion: "gemini-2.5-flash",
  });
  reply = { json: answer(true) };
  const whole = await provider.generate(withCustom, ctx());
  const p = whole.candidates[0]!.parts[0]!;
  t.same(p.kind.case === "toolCall" && [p.kind.value.name, p.kind.value.input, p.kind.value.arguments], ["apply_patch", patch, undefined]);
  t.equal(whole.candidates[0]!.finishReason, FinishReason.TOOL_USE);

  reply = {
    chunks: [`data: ${JSON.stringify(answer(false))}\r\n\r\n`, `data: ${JSON.stringify({ candidates: [{ index: 0, content: { role: "model", parts: [] }, finishReason: "STOP" }] })}\r\n\r\n`],
  };
  const events = [];
  for await (const e of guardStream(provider.stream(withCustom, ctx()))) events.push(e);
  t.same(
    events.flatMap((e) => (e.event.case === "partDelta" ? [[e.event.value.delta.case, e.event.value.delta.value]] : [])),
    [["input", patch]],
    "the call's input as one input delta",
  );
  const r = await collectStream(
    (async function* () {
      yield* events;
    })(),
  );
  const sp = r.candidates[0]!.parts[0]!;
  t.same(sp.kind.case === "toolCall" && [sp.kind.value.name, sp.kind.value.input, sp.kind.value.arguments], ["apply_patch", patch, undefined]);
});

t.test("stream: disable_parallel keeps only the first call", async (t) => {
  reply = { chunks: sseChunks("gemini/stream-thinking-tools.sse") };
  const one = clone(ChatInputSchema, input);
  one.toolChoice = create(ToolChoiceSchema, { disableParallel: true });
  const r = await collectStream(guardStream(provider.stream(one, ctx())));
  t.equal(r.candidates[0]!.parts.filter((p) => p.kind.case === "toolCall").length, 1);
});

t.test("a signature right after streamed thoughts signs the thinking", async (t) => {
  const chunk = (parts: unknown[], extra = {}) => `data: ${JSON.stringify({ candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }], responseId: "r" })}\r\n\r\n`;
  reply = { chunks: [chunk([{ text: "plan", thought: true }]), chunk([{ functionCall: { name: "f", args: {} }, thoughtSignature: "STEP" }], { finishReason: "STOP" })] };
  const r = await collectStream(guardStream(provider.stream(input, ctx())));
  const [th, call] = r.candidates[0]!.parts;
  t.equal(th!.signature?.value, "STEP");
  t.notOk(call!.signature);
});

t.test("a trailing signature-only part signs the text before it", async (t) => {
  reply = { chunks: sseChunks("gemini/stream-trailing-signature.sse") };
  const r = await collectStream(guardStream(provider.stream(input, ctx())));
  t.equal(r.candidates[0]!.parts.length, 1);
  t.same(r.candidates[0]!.parts[0]!.signature?.value, "CiQBtrailing==");
});

t.test("errors: status bodies, RetryInfo, bad key, mid-stream error, truncation", async (t) => {
  reply = { status: 429, json: fixture("gemini/error-429.json") };
  const f429 = await failure(provider.generate(input, ctx()));
  t.same(f429.what, ["ResourceExhausted", "rate_limited"]);
  t.equal(retryAfterSeconds(f429.err), 43);
  t.notMatch(f429.err.message, /SECRET/);
  t.match((up.log as RecordingLogger).text(), /1234-SECRET/);
  reply = { status: 400, json: fixture("gemini/error-400-key.json") };
  t.same((await failure(provider.generate(input, ctx()))).what, ["Internal", "upstream_auth"]);
  reply = { status: 404, json: fixture("gemini/error-404.json") };
  t.same((await failure(provider.generate(input, ctx()))).what, ["NotFound", "upstream_model_not_found"]);
  reply = { chunks: sseChunks("gemini/stream-error.sse") };
  t.same((await failure(drain(guardStream(provider.stream(input, ctx()))))).what, ["Unavailable", "overloaded"]);
  reply = { chunks: sseChunks("gemini/stream-text.sse").slice(0, 2) };
  t.same((await failure(drain(guardStream(provider.stream(input, ctx()))))).what, ["Unavailable", "upstream_stream_truncated"]);
});

t.test("countTokens sends a generateContentRequest", async (t) => {
  reply = { json: { totalTokens: 31, cachedContentTokenCount: 10, promptTokensDetails: [{ modality: "TEXT", tokenCount: 31 }] } };
  const withSystem = clone(ChatInputSchema, input);
  withSystem.system = [create(PartSchema, { kind: { case: "text", value: { text: "sys" } } })];
  const r = await provider.countTokens(withSystem, ctx());
  const req = fake.requests.at(-1)!;
  t.equal(req.path, "/v1beta/models/gemini-2.5-flash:countTokens");
  t.same(req.body, { generateContentRequest: { contents: [{ role: "user", parts: [{ text: "hi" }] }], systemInstruction: { parts: [{ text: "sys" }] }, model: "models/gemini-2.5-flash" } });
  t.same([r.inputTokens, r.cachedTokens], [21n, 10n]);
  t.same(
    r.inputDetails.map((d) => [d.modality, d.tokenCount]),
    [[Modality.TEXT, 31n]],
  );
});

t.test("a base URL without a version gets /v1beta; the array form of a stream is read too", async (t) => {
  const bare = testUpstream("gemini", fake.url, { channel: "bare-gemini" });
  t.teardown(() => bare.pools.close());
  reply = { json: [fixture("gemini/text.json")] };
  const r = await collectStream(guardStream(geminiChatProvider(bare).stream(input, ctx())));
  t.equal(fake.requests.at(-1)!.path, "/v1beta/models/gemini-2.5-flash:streamGenerateContent");
  t.equal(r.candidates[0]!.finishReason, FinishReason.STOP);
});
