// The OpenAI-compatible embedding provider: the request it builds (a table),
// the answers it reads (floats, base64, out of order, broken), and the
// exchange against a loopback fake upstream, errors included.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { EmbedRequestSchema } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import { errorDetail } from "../../../src/core/errors.js";
import { openaiHeaders } from "../../../src/providers/openai/client.js";
import { openaiEmbeddingProvider } from "../../../src/providers/openai/embed-provider.js";
import { toVendorEmbedRequest } from "../../../src/providers/openai/embed-request.js";
import { decodeFloat32Base64, fromVendorEmbedResponse } from "../../../src/providers/openai/embed-response.js";
import { fixture, startFakeUpstream, type Reply } from "../../fixtures/fake-upstream.js";
import { testUpstream } from "../../fixtures/upstream.js";

type Init = Parameters<typeof create<typeof EmbedRequestSchema>>[1];
const req = (init: Init) => create(EmbedRequestSchema, { model: "client-model", ...init });
const text = (value: string) => ({ content: { case: "text" as const, value } });
const tokens = (ids: number[]) => ({ content: { case: "tokens" as const, value: { ids } } });
const b64 = (values: number[]) => Buffer.from(new Float32Array(values).buffer).toString("base64");
const reason = (e: unknown) => errorDetail(ConnectError.from(e))?.reason;

t.test("request table", async (t) => {
  const rows: [string, Init, boolean, Record<string, unknown>][] = [
    ["one text: a string", { inputs: [text("hi")] }, false, { model: "up", input: "hi" }],
    ["several texts: an array", { inputs: [text("a"), text("b")] }, false, { model: "up", input: ["a", "b"] }],
    ["one token array", { inputs: [tokens([1, 2])] }, false, { model: "up", input: [1, 2] }],
    [
      "several token arrays",
      { inputs: [tokens([1]), tokens([2, 3])] },
      false,
      {
        model: "up",
        input: [[1], [2, 3]],
      },
    ],
    ["dimensions and user", { inputs: [text("a")], dimensions: 256, user: "u-1" }, false, { model: "up", input: "a", dimensions: 256, user: "u-1" }],
    ["api.openai.com: base64", { inputs: [text("a")] }, true, { model: "up", input: "a", encoding_format: "base64" }],
    ["task type and titles are Gemini's: dropped", { inputs: [{ ...text("a"), title: "T" }], taskType: "RETRIEVAL_DOCUMENT" }, false, { model: "up", input: "a" }],
    [
      "openai extras merged, the gateway's fields win; other vendors' dropped",
      { inputs: [text("a")], vendorExtras: { openai: { extra_body_field: 1, model: "sneaky", input: "x" }, gemini: { autoTruncate: true } } },
      false,
      { extra_body_field: 1, model: "up", input: "a" },
    ],
  ];
  for (const [name, init, official, want] of rows) t.same(toVendorEmbedRequest(req(init), "up", { official }), want, name);
  t.throws(() => toVendorEmbedRequest(req({ inputs: [text("a"), tokens([1])] }), "up", { official: false }), /not supported/, "texts and token arrays mixed: refused");
  try {
    toVendorEmbedRequest(req({ inputs: [text("a"), tokens([1])] }), "up", { official: false });
  } catch (e) {
    t.match(errorDetail(ConnectError.from(e)), { reason: "unsupported_by_upstream", field: "inputs" });
  }
});

t.test("response: floats, base64, any order, usage", async (t) => {
  const opts = { model: "client-model", channel: "oa", inputs: 2 };
  const r = fromVendorEmbedResponse(
    {
      object: "list",
      data: [
        { object: "embedding", index: 1, embedding: b64([0.5, -0.25]) },
        { object: "embedding", index: 0, embedding: [0.1, 0.2] },
      ],
      model: "text-embedding-3-small",
      usage: { prompt_tokens: 5, total_tokens: 5 },
    },
    opts,
  );
  t.same(
    r.embeddings.map((e) => e.values),
    [
      [0.1, 0.2],
      [0.5, -0.25],
    ],
    "in index order, base64 decoded",
  );
  t.equal(r.usage?.inputTokens, 5n);
  t.equal(r.model, "client-model", "the client's model name");
  t.equal(r.channel, "oa");
  const noUsage = fromVendorEmbedResponse({ data: [{ embedding: [1] }, { embedding: [2] }] }, opts);
  t.equal(noUsage.usage, undefined, "no usage: left to the core");
  t.same(
    noUsage.embeddings.map((e) => e.values),
    [[1], [2]],
    "without index: the listed order",
  );
  t.same(decodeFloat32Base64(b64([1.5, -2, 0])), [1.5, -2, 0]);
  const bad: [string, unknown][] = [
    ["too few", { data: [{ index: 0, embedding: [1] }] }],
    [
      "an index twice",
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [2] },
        ],
      },
    ],
    [
      "an index out of range",
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 5, embedding: [2] },
        ],
      },
    ],
    ["not numbers", { data: [{ embedding: ["a"] }, { embedding: [1] }] }],
    ["base64 of a broken length", { data: [{ embedding: "AAA=" }, { embedding: [1] }] }],
    ["no data", {}],
  ];
  for (const [name, body] of bad) {
    t.equal(reason(t.throws(() => fromVendorEmbedResponse(body as never, opts))), "upstream_protocol_error", name);
  }
});

let reply: Reply = {};
const fake = await startFakeUpstream(() => reply);
t.teardown(() => fake.close());
const ctx = { signal: new AbortController().signal, requestId: "req-e", upstreamModel: "text-embedding-3-small" };

t.test("exchange: POST {base}/embeddings with the channel's key", async (t) => {
  const up = testUpstream("openai", `${fake.url}/v1`, { headers: openaiHeaders("sk-up"), channel: "oa" });
  t.teardown(() => up.pools.close());
  reply = { json: { object: "list", data: [{ object: "embedding", index: 0, embedding: [0.6, 0.8] }], model: "text-embedding-3-small", usage: { prompt_tokens: 3, total_tokens: 3 } } };
  const r = await openaiEmbeddingProvider(up).embed(req({ inputs: [text("hello")], dimensions: 2 }), ctx);
  const sent = fake.requests.at(-1)!;
  t.equal(sent.path, "/v1/embeddings");
  t.equal(sent.headers.authorization, "Bearer sk-up");
  t.same(sent.body, { model: "text-embedding-3-small", input: "hello", dimensions: 2 });
  t.same(r.embeddings[0]!.values, [0.6, 0.8]);
  t.equal(r.usage?.inputTokens, 3n);
  t.equal(r.channel, "oa");
});

t.test("exchange: a bare host gets /v1; a base64 answer is decoded", async (t) => {
  const up = testUpstream("openai", fake.url, { channel: "bare" });
  t.teardown(() => up.pools.close());
  reply = { json: { data: [{ index: 0, embedding: b64([0.25, 0.5]) }] } };
  const r = await openaiEmbeddingProvider(up).embed(req({ inputs: [text("x")] }), ctx);
  t.equal(fake.requests.at(-1)!.path, "/v1/embeddings");
  t.same(r.embeddings[0]!.values, [0.25, 0.5]);
});

t.test("exchange: upstream errors as ConnectErrors; their text stays in the log", async (t) => {
  const up = testUpstream("openai", `${fake.url}/v1`, { channel: "oa" });
  t.teardown(() => up.pools.close());
  const provider = openaiEmbeddingProvider(up);
  const cases: [string, Reply, string, string][] = [
    ["401", { status: 401, json: fixture("openai/error-401.json") }, "Internal", "upstream_auth"],
    ["429", { status: 429, headers: { "retry-after": "2" }, json: fixture("openai/error-429.json") }, "ResourceExhausted", "rate_limited"],
    ["quota", { status: 429, json: fixture("openai/error-quota.json") }, "Internal", "upstream_auth"],
    ["400", { status: 400, json: fixture("openai/error-400.json") }, "InvalidArgument", "upstream_invalid_request"],
    ["404", { status: 404, json: { error: { message: "The model does not exist", type: "invalid_request_error", code: "model_not_found" } } }, "NotFound", "upstream_model_not_found"],
    ["503", { status: 503, text: "busy" }, "Unavailable", "overloaded"],
    ["not JSON", { text: "<html>" }, "Internal", "upstream_protocol_error"],
  ];
  for (const [name, r, code, why] of cases) {
    reply = r;
    const err = await provider.embed(req({ inputs: [text("x")] }), ctx).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    t.equal(err && Code[err.code], code, `${name}: ${code}`);
    t.equal(err && errorDetail(err)?.reason, why, `${name}: ${why}`);
    t.notMatch(err?.message ?? "", /Incorrect API key|exceeded your current quota/, `${name}: no upstream text`);
  }
});
