// The local embedding engine: deterministic unit vectors of the model's size
// or the requested one, the same text the same vector, similar texts closer
// than unrelated ones, the models' rules, usage, and fault injection.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { EmbedRequestSchema, type EmbedRequest } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import { errorDetail } from "../../../src/core/errors.js";
import { countText } from "../../../src/lib/tokenizer.js";
import { localEmbeddingProvider } from "../../../src/providers/local/embedding/provider.js";
import { LOCAL_EMBEDDING_MODELS, localEmbeddingModel } from "../../../src/providers/local/embedding/models.js";
import { hash32, modelSeed, textVector, tokenVector, words } from "../../../src/providers/local/embedding/vectors.js";

const engine = localEmbeddingProvider();
const ctx = (model: string) => ({ signal: new AbortController().signal, requestId: "r1", upstreamModel: model });
interface More {
  dimensions?: number;
  taskType?: string;
}
const job = (model: string, texts: (string | number[])[], more: More = {}): EmbedRequest =>
  create(EmbedRequestSchema, {
    model,
    inputs: texts.map((x) => (typeof x === "string" ? { content: { case: "text" as const, value: x } } : { content: { case: "tokens" as const, value: { ids: x } } })),
    ...more,
  });
const embed = async (model: string, texts: (string | number[])[], more: More = {}) => (await engine.embed(job(model, texts, more), ctx(model))).embeddings.map((e) => e.values);

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0) / (norm(a) * norm(b));
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    const err = ConnectError.from(e);
    return { code: Code[err.code], field: errorDetail(err)?.field, reason: errorDetail(err)?.reason, message: err.rawMessage };
  }
  throw new Error("expected a failure");
};

t.test("each model's default size; dimensions shortens; every vector has length 1", async (t) => {
  for (const m of LOCAL_EMBEDDING_MODELS) {
    const [v] = await embed(m.id, ["The quick brown fox"]);
    t.equal(v!.length, m.dimensions, `${m.id}: ${m.dimensions}`);
    t.ok(Math.abs(norm(v!) - 1) < 1e-5, `${m.id}: norm 1 (${norm(v!)})`);
  }
  t.equal(localEmbeddingModel("my-embedder").dimensions, 1536, "an unknown name: OpenAI's size");
  t.equal(localEmbeddingModel("models/gemini-embedding-exp").dimensions, 768, "a Gemini-named one: 768");
  for (const d of [1, 2, 7, 64, 256, 1536]) {
    const [v] = await embed("text-embedding-3-small", ["The quick brown fox"], { dimensions: d });
    t.equal(v!.length, d, `dimensions ${d}`);
    t.ok(Math.abs(norm(v!) - 1) < 1e-5, `dimensions ${d}: norm 1`);
  }
  const [g] = await embed("gemini-embedding-001", ["hello"], { dimensions: 768 });
  t.equal(g!.length, 768, "gemini-embedding-001 with outputDimensionality 768");
  const [odd] = await embed("my-embedder", ["hello"]);
  t.equal(odd!.length, 1536);
});

t.test("deterministic: the same text gives the same vector, in any batch and call; values are float32", async (t) => {
  const [a] = await embed("text-embedding-3-small", ["The quick brown fox"]);
  const [, b] = await embed("text-embedding-3-small", ["something else", "The quick brown fox"]);
  t.same(a, b);
  t.ok(
    a!.every((x) => Math.fround(x) === x),
    "float32 values (a base64 round trip is exact)",
  );
  const [c] = await embed("text-embedding-3-large", ["The quick brown fox"], { dimensions: 1536 });
  t.notSame(c, a, "another model places the same text elsewhere");
});

t.test("different texts differ; similar texts are closer than unrelated ones", async (t) => {
  const [fox, fox2, stocks, empty] = await embed("text-embedding-3-small", [
    "The quick brown fox jumps over the lazy dog",
    "A quick brown fox jumped over a lazy dog",
    "Quarterly earnings beat analyst expectations",
    "!!!",
  ]);
  t.notSame(fox, stocks);
  t.ok(cos(fox!, fox2!) > 0.4, `similar: ${cos(fox!, fox2!).toFixed(3)}`);
  t.ok(Math.abs(cos(fox!, stocks!)) < 0.2, `unrelated: ${cos(fox!, stocks!).toFixed(3)}`);
  t.ok(cos(fox!, fox2!) > cos(fox!, stocks!) + 0.3, "similar beats unrelated by far");
  t.ok(Math.abs(norm(empty!) - 1) < 1e-5, "a text without words still gets a unit vector");
  const [x, y] = await embed("text-embedding-3-small", ["!!!", "???"]);
  t.notSame(x, y, "and two such texts differ");
});

t.test("token arrays: deterministic unit vectors; the order matters", async (t) => {
  const [a, b, c] = await embed("text-embedding-3-small", [
    [1, 2, 3],
    [1, 2, 3],
    [3, 2, 1],
  ]);
  t.same(a, b);
  t.notSame(a, c);
  t.ok(Math.abs(norm(a!) - 1) < 1e-5);
  t.same(tokenVector([5], 4, 1), tokenVector([5], 4, 1));
});

t.test("a title moves a document's vector a little", async (t) => {
  const r = await engine.embed(
    create(EmbedRequestSchema, {
      model: "gemini-embedding-001",
      inputs: [{ content: { case: "text", value: "Paris is the capital of France" } }, { content: { case: "text", value: "Paris is the capital of France" }, title: "European capitals" }],
    }),
    ctx("gemini-embedding-001"),
  );
  const [plain, titled] = r.embeddings.map((e) => e.values);
  t.notSame(plain, titled);
  t.ok(cos(plain!, titled!) > 0.7, `still close: ${cos(plain!, titled!).toFixed(3)}`);
});

t.test("usage is the tokenizer's count of what was embedded", async (t) => {
  const r = await engine.embed(job("text-embedding-3-small", ["hello world", [9, 9, 9]]), ctx("text-embedding-3-small"));
  t.equal(r.usage?.inputTokens, BigInt(countText("hello world") + 3));
  t.equal(r.channel, "local");
});

t.test("the models' rules", async (t) => {
  t.match(await failure(engine.embed(job("text-embedding-ada-002", ["a"], { dimensions: 256 }), ctx("text-embedding-ada-002"))), {
    code: "InvalidArgument",
    field: "dimensions",
    reason: "unsupported_parameter",
  });
  t.match(await failure(engine.embed(job("text-embedding-3-small", ["a"], { dimensions: 1537 }), ctx("text-embedding-3-small"))), {
    code: "InvalidArgument",
    field: "dimensions",
    message: /at most 1536/,
  });
  const long = "word ".repeat(9000);
  t.match(await failure(engine.embed(job("text-embedding-3-small", ["ok", long]), ctx("text-embedding-3-small"))), {
    code: "InvalidArgument",
    field: "inputs[1]",
    reason: "context_length_exceeded",
  });
  const cut = await engine.embed(job("gemini-embedding-001", [long]), ctx("gemini-embedding-001"));
  t.equal(cut.usage?.inputTokens, 2048n, "a Gemini model cuts an input to its 2,048 tokens");
  const [same] = await embed("gemini-embedding-001", ["word ".repeat(2048)]);
  t.same(cut.embeddings[0]!.values, same, "the vector is that of the first 2,048 tokens");
  const lots = Array.from({ length: 40 }, () => "word ".repeat(8000));
  t.match(await failure(engine.embed(job("text-embedding-3-small", lots), ctx("text-embedding-3-small"))), { field: "inputs", reason: "max_tokens_per_request" });
});

t.test("fault injection", async (t) => {
  t.match(await failure(engine.embed(job("text-embedding-3-small", ["fine", "#fault:overloaded"]), ctx("text-embedding-3-small"))), { code: "Unavailable", reason: "overloaded" });
  t.match(await failure(engine.embed(job("text-embedding-3-small", ["#fault:rate_limit"]), ctx("text-embedding-3-small"))), { code: "ResourceExhausted" });
  const off = localEmbeddingProvider({ faultInjection: false });
  const r = await off.embed(job("text-embedding-3-small", ["#fault:overloaded"]), ctx("text-embedding-3-small"));
  t.equal(r.embeddings.length, 1, "off: the directive is just text");
});

t.test("the pieces", async (t) => {
  t.same(words("Hello, WORLD! 你好"), ["hello", "world", "你", "好"]);
  t.equal(hash32("a"), hash32("a"));
  t.not(hash32("a"), hash32("b"));
  t.not(modelSeed("a"), modelSeed("b"));
  t.equal(textVector("x", 3, 1).length, 3);
});
