// The Responses provider against a loopback fake upstream: the path it
// calls, its headers and body, whole and streamed answers, a server that
// answers a stream whole, token counting, and error statuses.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ChatInputSchema, FinishReason, Role, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { openaiResponsesProvider } from "../../../src/providers/openai-responses/provider.js";
import { collectStream } from "../../../src/core/chat/stream.js";
import { guardStream } from "../../../src/core/chat/stream-guard.js";
import { errorDetail } from "../../../src/core/errors.js";
import { startFakeUpstream, type Reply } from "../../fixtures/fake-upstream.js";
import { testUpstream } from "../../fixtures/upstream.js";
import { ENCRYPTED, sseFrames, streamEvents, wholeResponse } from "./fixtures.js";

const input = create(ChatInputSchema, {
  model: "client-model",
  system: [{ kind: { case: "text", value: { text: "Be brief." } } }],
  turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "weather in Paris?" } } }] }],
  config: { maxOutputTokens: 300 },
});

let reply: Reply = {};
const fake = await startFakeUpstream(() => reply);
t.teardown(() => fake.close());
const up = testUpstream("openai", `${fake.url}/v1`, { headers: { authorization: "Bearer sk-test" } });
t.teardown(() => up.pools.close());
const provider = openaiResponsesProvider(up);
const ctx = () => ({ signal: new AbortController().signal, requestId: "req_r", upstreamModel: "gpt-5-codex" });
async function drain(s: AsyncIterable<StreamGenerateResponse>) {
  const out: StreamGenerateResponse[] = [];
  for await (const e of s) out.push(e);
  return out;
}
const collect = (s: AsyncIterable<StreamGenerateResponse>) => collectStream(guardStream(s));

t.test("whole: POST {base}/responses with the stateless body", async (t) => {
  reply = { json: wholeResponse };
  const r = await provider.generate(input, ctx());
  const req = fake.requests.at(-1)!;
  t.same([req.method, req.path, req.headers.authorization], ["POST", "/v1/responses", "Bearer sk-test"]);
  t.same(req.body, {
    model: "gpt-5-codex",
    input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "weather in Paris?" }] }],
    store: false,
    include: ["reasoning.encrypted_content"],
    instructions: "Be brief.",
    max_output_tokens: 300,
  });
  t.same(
    r.candidates[0]!.parts.map((p) => p.kind.case),
    ["thinking", "text", "toolCall"],
  );
  t.equal(r.candidates[0]!.parts[0]!.signature?.value, ENCRYPTED);
});

t.test("streamed: the events through the stream guard collect to the whole answer", async (t) => {
  reply = { chunks: sseFrames(streamEvents) };
  const events = await drain(guardStream(provider.stream(input, ctx())));
  t.equal(fake.requests.at(-1)!.body.stream, true);
  const r = await collectStream(
    (async function* () {
      yield* events;
    })(),
  );
  const whole = await (async () => {
    reply = { json: wholeResponse };
    return provider.generate(input, ctx());
  })();
  t.same(r.candidates[0]!.parts, whole.candidates[0]!.parts);
  t.equal(r.candidates[0]!.finishReason, FinishReason.TOOL_USE);
  t.same([r.usage?.inputTokens, r.usage?.outputTokens], [100n, 60n]);
});

t.test("data-only frames (no event: lines) and a server that answers a stream whole", async (t) => {
  reply = { chunks: streamEvents.map((e) => `data: ${JSON.stringify(e)}\n\n`) };
  t.equal((await collect(provider.stream(input, ctx()))).candidates[0]!.parts.length, 3);
  reply = { json: wholeResponse };
  const r = await collect(provider.stream(input, ctx()));
  t.same(
    r.candidates[0]!.parts.map((p) => p.kind.case),
    ["thinking", "text", "toolCall"],
  );
});

t.test("a stream cut before response.completed is reported as truncated", async (t) => {
  reply = { chunks: sseFrames(streamEvents.slice(0, 16)) };
  const err = await collect(provider.stream(input, ctx())).then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  t.same([err && Code[err.code], err && errorDetail(err)?.reason], ["Unavailable", "upstream_stream_truncated"]);
});

t.test("countTokens: POST {base}/responses/input_tokens", async (t) => {
  reply = { json: { object: "response.input_tokens", input_tokens: 42 } };
  const r = await provider.countTokens(input, ctx());
  const req = fake.requests.at(-1)!;
  t.equal(req.path, "/v1/responses/input_tokens");
  t.same(Object.keys(req.body).sort(), ["input", "instructions", "model"]);
  t.equal(r.inputTokens, 42n);
});

t.test("a bare host gets /v1/responses", async (t) => {
  const bare = testUpstream("openai", fake.url, { pools: up.pools, channel: "bare" });
  reply = { json: wholeResponse };
  await openaiResponsesProvider(bare).generate(input, ctx());
  t.equal(fake.requests.at(-1)!.path, "/v1/responses");
});

const statuses: [string, Reply, string, string][] = [
  ["429", { status: 429, headers: { "retry-after": "2" }, json: { error: { type: "requests", code: "rate_limit_exceeded", message: "slow" } } }, "ResourceExhausted", "rate_limited"],
  ["429 insufficient_quota", { status: 429, json: { error: { type: "insufficient_quota", code: "insufficient_quota", message: "pay" } } }, "Internal", "upstream_auth"],
  ["400", { status: 400, json: { error: { type: "invalid_request_error", code: "invalid_encrypted_content", message: "nope", param: "input" } } }, "InvalidArgument", "upstream_invalid_request"],
  ["401", { status: 401, json: { error: { type: "invalid_request_error", code: "invalid_api_key", message: "key" } } }, "Internal", "upstream_auth"],
  ["404", { status: 404, json: { error: { type: "invalid_request_error", code: "model_not_found", message: "?" } } }, "NotFound", "upstream_model_not_found"],
  ["503", { status: 503, json: { error: { type: "server_error", message: "busy" } } }, "Unavailable", "overloaded"],
  ["a 200 with status failed", { json: { id: "resp_f", status: "failed", error: { code: "server_error", message: "x" }, output: [] } }, "Internal", "upstream_error"],
];
for (const [name, r, code, reason] of statuses) {
  t.test(`error: ${name}`, async (t) => {
    reply = r;
    const err = await provider.generate(input, ctx()).then(
      () => undefined,
      (e: unknown) => e as ConnectError,
    );
    t.ok(err instanceof ConnectError);
    t.same([Code[err!.code], errorDetail(err!)?.reason], [code, reason]);
    t.notMatch(err!.message, /slow|pay|nope|busy/, "upstream text stays in the log");
  });
}
