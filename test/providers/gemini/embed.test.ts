// The Gemini embedding provider: the requests it builds (a table), the
// answers it reads, and the exchanges against a loopback fake upstream:
// :embedContent for one input, :batchEmbedContents in batches of 100 for more.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { EmbedRequestSchema } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import { errorDetail } from "../../../src/core/errors.js";
import { geminiHeaders } from "../../../src/providers/gemini/client.js";
import { fromVendorEmbeddings, toVendorEmbedRequests } from "../../../src/providers/gemini/embed.js";
import { geminiEmbeddingProvider } from "../../../src/providers/gemini/embed-provider.js";
import { fixture, startFakeUpstream, type Recorded, type Reply } from "../../fixtures/fake-upstream.js";
import { testUpstream } from "../../fixtures/upstream.js";

type Init = Parameters<typeof create<typeof EmbedRequestSchema>>[1];
const req = (init: Init) => create(EmbedRequestSchema, { model: "client-model", ...init });
const text = (value: string, title = "") => ({ content: { case: "text" as const, value }, title });
const detail = (e: unknown) => errorDetail(ConnectError.from(e));

t.test("request table", async (t) => {
  const rows: [string, Init, boolean, unknown[]][] = [
    ["one text", { inputs: [text("hi")] }, false, [{ content: { parts: [{ text: "hi" }] } }]],
    [
      "task type, title, dimensions",
      { inputs: [text("doc", "A title")], taskType: "RETRIEVAL_DOCUMENT", dimensions: 768 },
      false,
      [{ content: { parts: [{ text: "doc" }] }, taskType: "RETRIEVAL_DOCUMENT", title: "A title", outputDimensionality: 768 }],
    ],
    [
      "a batch names the model in each request",
      { inputs: [text("a"), text("b", "T")], dimensions: 8 },
      true,
      [
        { content: { parts: [{ text: "a" }] }, model: "models/gemini-embedding-001", outputDimensionality: 8 },
        { content: { parts: [{ text: "b" }] }, model: "models/gemini-embedding-001", title: "T", outputDimensionality: 8 },
      ],
    ],
    [
      "gemini extras merged into each request, the gateway's fields win; OpenAI's user dropped",
      { inputs: [text("a")], user: "u", vendorExtras: { gemini: { autoTruncate: false, content: "x", model: "models/other" }, openai: { encoding_format: "base64" } } },
      false,
      [{ autoTruncate: false, content: { parts: [{ text: "a" }] } }],
    ],
  ];
  for (const [name, init, batch, want] of rows) t.same(toVendorEmbedRequests(req(init), "models/gemini-embedding-001", batch), want, name);
  try {
    toVendorEmbedRequests(req({ inputs: [text("a"), { content: { case: "tokens", value: { ids: [1] } } }] }), "m", true);
    t.fail("a token array must be refused");
  } catch (e) {
    t.match(detail(e), { reason: "unsupported_by_upstream", field: "inputs[1]" }, "a token array: refused, naming the input");
  }
});

t.test("answers: values in order, usage only when every answer reports it", async (t) => {
  const opts = { model: "client-model", channel: "g", inputs: 2 };
  const r = fromVendorEmbeddings([{ values: [1, 2] }, { values: [3, 4] }], [undefined], opts);
  t.same(
    r.embeddings.map((e) => e.values),
    [
      [1, 2],
      [3, 4],
    ],
  );
  t.equal(r.usage, undefined, "Gemini reports no usage: the core counts it");
  t.equal(fromVendorEmbeddings([{ values: [1] }, { values: [2] }], [3, 4], opts).usage?.inputTokens, 7n, "reported usage is summed");
  for (const [name, vectors] of [
    ["too few", [{ values: [1] }]],
    ["no values", [{ values: [1] }, {}]],
    ["empty values", [{ values: [1] }, { values: [] }]],
  ] as const) {
    try {
      fromVendorEmbeddings(vectors as never, [], opts);
      t.fail(name);
    } catch (e) {
      t.equal(detail(e)?.reason, "upstream_protocol_error", name);
    }
  }
});

let handler: (r: Recorded) => Reply = () => ({});
const fake = await startFakeUpstream((r) => handler(r));
t.teardown(() => fake.close());
const up = testUpstream("gemini", fake.url, { headers: geminiHeaders("AIza-up"), channel: "g" });
t.teardown(() => up.pools.close());
const provider = geminiEmbeddingProvider(up);
const ctx = { signal: new AbortController().signal, requestId: "req-g", upstreamModel: "gemini-embedding-001" };

t.test("one input: :embedContent", async (t) => {
  handler = () => ({ json: { embedding: { values: [0.6, 0.8] } } });
  const r = await provider.embed(req({ inputs: [text("hello")], taskType: "RETRIEVAL_QUERY", dimensions: 2 }), ctx);
  const sent = fake.requests.at(-1)!;
  t.equal(sent.path, "/v1beta/models/gemini-embedding-001:embedContent");
  t.equal(sent.headers["x-goog-api-key"], "AIza-up");
  t.same(sent.body, { content: { parts: [{ text: "hello" }] }, taskType: "RETRIEVAL_QUERY", outputDimensionality: 2 });
  t.same(r.embeddings[0]!.values, [0.6, 0.8]);
  t.equal(r.usage, undefined);
  t.equal(r.channel, "g");
});

t.test("several inputs: :batchEmbedContents, 100 a call, answers in order", async (t) => {
  const before = fake.requests.length;
  handler = (r) => ({ json: { embeddings: (r.body.requests as { content: { parts: { text: string }[] } }[]).map((q) => ({ values: [Number(q.content.parts[0]!.text)] })) } });
  const inputs = Array.from({ length: 250 }, (_, i) => text(String(i)));
  const r = await provider.embed(req({ inputs }), ctx);
  const calls = fake.requests.slice(before);
  t.equal(calls.length, 3, "three batches");
  t.ok(
    calls.every((c) => c.path === "/v1beta/models/gemini-embedding-001:batchEmbedContents"),
    "each to :batchEmbedContents",
  );
  t.same(
    calls.map((c) => c.body.requests.length).sort((a: number, b: number) => b - a),
    [100, 100, 50],
  );
  t.equal(calls[0]!.body.requests[0].model, "models/gemini-embedding-001");
  t.same(
    r.embeddings.map((e) => e.values[0]),
    inputs.map((_, i) => i),
    "every vector in its input's place",
  );
});

t.test("a batch answering too few vectors is a protocol error", async (t) => {
  handler = () => ({ json: { embeddings: [{ values: [1] }] } });
  const err = await provider.embed(req({ inputs: [text("a"), text("b")] }), ctx).then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );
  t.equal(err && errorDetail(err)?.reason, "upstream_protocol_error");
});

t.test("upstream errors", async (t) => {
  const cases: [string, Reply, string, string][] = [
    ["bad key", { status: 400, json: fixture("gemini/error-400-key.json") }, "Internal", "upstream_auth"],
    ["404", { status: 404, json: fixture("gemini/error-404.json") }, "NotFound", "upstream_model_not_found"],
    ["429", { status: 429, json: fixture("gemini/error-429.json") }, "ResourceExhausted", "rate_limited"],
  ];
  for (const [name, r, code, why] of cases) {
    handler = () => r;
    const err = await provider.embed(req({ inputs: [text("x")] }), ctx).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    t.equal(err && Code[err.code], code, `${name}: ${code}`);
    t.equal(err && errorDetail(err)?.reason, why, `${name}: ${why}`);
  }
});
