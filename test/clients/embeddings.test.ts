// POST /v1/embeddings against the gateway's local engine (deterministic unit
// vectors), through the real clients pinned in test/clients/package.json,
// unchanged: openai 7.59 and 6.49 (which ask for base64 unless told
// otherwise, and decode it), @ai-sdk/openai embed/embedMany (floats) and
// @langchain/openai OpenAIEmbeddings (over openai 7).
import { createRequire } from "node:module";
import t, { type Test } from "tap";
import type OpenAI from "openai";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";
import { installClients, startGateway, type Exchange, type Gateway } from "./harness.js";

// The packages exist once the suite has installed them: imported after that.
await installClients();
const openai7 = await import("openai");
const openai6 = await import("openai6");
const { createOpenAI } = await import("@ai-sdk/openai");
const { embed, embedMany } = await import("ai");
// LangChain through require: see openai-chat.test.ts (tap's loader mis-resolves an import of its ESM build).
const { OpenAIEmbeddings } = createRequire(import.meta.url)("@langchain/openai") as typeof import("@langchain/openai");

const MODEL = "text-embedding-3-small";
/** Default sizes of OpenAI's embedding models. */
const DEFAULT_DIMENSIONS: Record<string, number> = { "text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536 };

let gw: Gateway;
/** A gateway whose local engine serves MODEL only: other names are unknown models. */
let narrow: TestServer;
t.before(async () => {
  gw = await startGateway();
  narrow = await startServer({ config: { local: { embeddingModels: [MODEL] } } as never });
});
t.teardown(async () => {
  await gw?.close();
  await narrow?.close();
});

const baseURL = () => `${gw.url}/v1`;
const lastExchange = (): Exchange => gw.exchanges.at(-1)!;

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
/** Whether two vectors are equal to float32 precision. */
const same = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]!) < 1e-6);

/** Checks one vector: its size, finite values, unit length. */
function isUnitVector(t: Test, v: unknown, size: number, what: string) {
  const ok = Array.isArray(v) && v.length === size && v.every((x) => typeof x === "number" && Number.isFinite(x));
  t.ok(ok, `${what}: ${size} numbers (got ${Array.isArray(v) ? `${v.length} ${typeof v[0]}` : typeof v})`);
  if (ok) t.ok(Math.abs(norm(v as number[]) - 1) < 1e-3, `${what}: norm ≈ 1 (${norm(v as number[])})`);
}

async function failure(p: Promise<unknown>): Promise<any> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return err;
  }
}

type Sdk = typeof import("openai");
const SDKS: Array<[string, Sdk]> = [
  ["openai 7.59", openai7],
  ["openai 6.49", openai6 as unknown as Sdk],
];

for (const [label, sdk] of SDKS) {
  t.test(`${label}: embeddings.create`, async (t) => {
    const client: OpenAI = new sdk.default({ apiKey: ADMIN_KEY, baseURL: baseURL(), maxRetries: 0 });

    const one = await client.embeddings.create({ model: MODEL, input: "The quick brown fox", dimensions: 256 });
    t.equal(one.object, "list");
    t.equal(one.model, MODEL, "the model name echoed");
    t.equal(one.data.length, 1);
    t.match(one.data[0], { object: "embedding", index: 0 }, "an embedding object at index 0");
    isUnitVector(t, one.data[0]!.embedding, 256, "a string, dimensions 256");
    t.ok(one.usage.prompt_tokens > 0, "usage.prompt_tokens");
    t.equal(one.usage.total_tokens, one.usage.prompt_tokens, "total_tokens = prompt_tokens");
    const wire = lastExchange();
    t.equal(JSON.parse(wire.body).encoding_format, "base64", "the SDK asked for base64");
    const sent = JSON.parse(wire.answer).data?.[0]?.embedding;
    t.type(sent, "string", "and got a base64 string");
    t.equal(Buffer.from(String(sent), "base64").length, 256 * 4, "of 256 little-endian float32s");

    const many = await client.embeddings.create({ model: MODEL, input: ["alpha", "beta", "The quick brown fox"], dimensions: 256 });
    t.same(
      many.data.map((d) => d.index),
      [0, 1, 2],
      "an array: one embedding per input, in order",
    );
    many.data.forEach((d, i) => isUnitVector(t, d.embedding, 256, `input ${i}`));
    t.ok(same(many.data[2]!.embedding, one.data[0]!.embedding), "the same text gives the same vector");
    t.notOk(same(many.data[0]!.embedding, many.data[1]!.embedding), "different texts give different vectors");
    t.ok(many.usage.prompt_tokens > one.usage.prompt_tokens, "usage counts every input");

    const floats = await client.embeddings.create({ model: MODEL, input: "The quick brown fox", dimensions: 256, encoding_format: "float" });
    t.ok(Array.isArray(JSON.parse(lastExchange().answer).data?.[0]?.embedding), "encoding_format float: numbers on the wire");
    t.ok(same(floats.data[0]!.embedding, one.data[0]!.embedding), "the same vector as the base64 one");

    for (const [model, size] of Object.entries(DEFAULT_DIMENSIONS)) {
      const res = await client.embeddings.create({ model, input: "hello" });
      isUnitVector(t, res.data[0]!.embedding, size, `${model} without dimensions`);
    }

    const tokens = await client.embeddings.create({
      model: MODEL,
      input: [
        [9906, 1917],
        [791, 4062, 14198, 39935],
      ],
      dimensions: 32,
    });
    t.equal(tokens.data.length, 2, "token-id arrays: one embedding each");
    tokens.data.forEach((d, i) => isUnitVector(t, d.embedding, 32, `token-id array ${i}`));
    const oneTokens = await client.embeddings.create({ model: MODEL, input: [9906, 1917], dimensions: 32 });
    t.ok(same(oneTokens.data[0]!.embedding, tokens.data[0]!.embedding), "one token-id array: the same vector as in a list");

    const bad = await failure(client.embeddings.create({ model: MODEL, input: [] }));
    t.ok(bad instanceof sdk.BadRequestError, `an empty input: BadRequestError (${bad?.constructor?.name}: ${bad?.message})`);
    t.match(bad, { status: 400, type: "invalid_request_error", param: /^input/ }, "status 400, param input");
    const zero = await failure(client.embeddings.create({ model: MODEL, input: "hello", dimensions: 0 }));
    t.ok(zero instanceof sdk.BadRequestError, `dimensions 0: BadRequestError (${zero?.constructor?.name})`);
    t.match(zero, { status: 400, param: /dimensions/ }, "status 400, param dimensions");
    const fixed = await failure(client.embeddings.create({ model: "text-embedding-ada-002", input: "hello", dimensions: 256 }));
    t.ok(fixed instanceof sdk.BadRequestError, `ada-002 with dimensions: BadRequestError (${fixed?.constructor?.name}: ${fixed?.message})`);
    const tooLong = await failure(client.embeddings.create({ model: MODEL, input: "word ".repeat(10_000) }));
    t.ok(tooLong instanceof sdk.BadRequestError, `an input over 8,192 tokens: BadRequestError (${tooLong?.constructor?.name}: ${tooLong?.message})`);

    const narrowClient = new sdk.default({ apiKey: ADMIN_KEY, baseURL: `${narrow.baseUrl}/v1`, maxRetries: 0 });
    t.equal((await narrowClient.embeddings.create({ model: MODEL, input: "hello" })).data.length, 1, "the narrow gateway serves its model");
    const missing = await failure(narrowClient.embeddings.create({ model: "text-embedding-3-large", input: "hello" }));
    t.ok(missing instanceof sdk.NotFoundError, `a model not served: NotFoundError (${missing?.constructor?.name}: ${missing?.message})`);
    t.match(missing, { status: 404, code: "model_not_found" }, "status 404, code model_not_found");

    const badKey = new sdk.default({ apiKey: "sk-not-a-key-0000000000", baseURL: baseURL(), maxRetries: 0 });
    const auth = await failure(badKey.embeddings.create({ model: MODEL, input: "hello" }));
    t.ok(auth instanceof sdk.AuthenticationError, `a bad key: AuthenticationError (${auth?.constructor?.name})`);
    t.match(auth, { status: 401, code: "invalid_api_key" }, "status 401, code invalid_api_key");
  });
}

t.test("@ai-sdk/openai 4.0.118: embed and embedMany", async (t) => {
  const openai = createOpenAI({ baseURL: baseURL(), apiKey: ADMIN_KEY });
  const model = openai.embedding(MODEL);

  const one = await embed({ model, value: "The quick brown fox", maxRetries: 0 });
  isUnitVector(t, one.embedding, DEFAULT_DIMENSIONS[MODEL]!, "embed");
  t.ok(one.usage.tokens > 0, "usage");
  t.equal(JSON.parse(lastExchange().body).encoding_format, "float", "ai-sdk asks for floats");

  const small = await embed({ model, value: "The quick brown fox", dimensions: 64, maxRetries: 0 });
  isUnitVector(t, small.embedding, 64, "embed with dimensions 64");
  const viaOptions = await embed({ model, value: "The quick brown fox", providerOptions: { openai: { dimensions: 64 } }, maxRetries: 0 });
  t.ok(same(viaOptions.embedding, small.embedding), "providerOptions.openai.dimensions: the same vector");

  const many = await embedMany({ model, values: ["alpha", "beta", "The quick brown fox"], dimensions: 64, maxRetries: 0 });
  t.equal(many.embeddings.length, 3, "embedMany: one per value");
  many.embeddings.forEach((e, i) => isUnitVector(t, e, 64, `embedMany ${i}`));
  t.ok(same(many.embeddings[2]!, small.embedding), "the same text gives the same vector");
  t.notOk(same(many.embeddings[0]!, many.embeddings[1]!), "different texts, different vectors");
});

t.test("@langchain/openai 1.6.0: OpenAIEmbeddings", async (t) => {
  const embeddings = new OpenAIEmbeddings({ model: MODEL, dimensions: 128, apiKey: ADMIN_KEY, configuration: { baseURL: baseURL() }, maxRetries: 0 });
  const query = await embeddings.embedQuery("The quick brown fox");
  isUnitVector(t, query, 128, "embedQuery");
  t.equal(JSON.parse(lastExchange().body).dimensions, 128, "dimensions sent");
  const docs = await embeddings.embedDocuments(["alpha", "beta", "The quick brown fox"]);
  t.equal(docs.length, 3, "embedDocuments: one per document");
  docs.forEach((d, i) => isUnitVector(t, d, 128, `document ${i}`));
  t.ok(same(docs[2]!, query), "the query and the same document embed alike");
  t.notOk(same(docs[0]!, docs[1]!), "different documents, different vectors");
});
