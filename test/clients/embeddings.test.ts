// POST /v1/embeddings against the gateway's local engine (deterministic unit
// vectors), through the real clients pinned in test/clients/package.json,
// unchanged: openai 7.59 and 6.49 (which ask for base64 unless told
// otherwise, and decode it), @ai-sdk/openai embed/embedMany (floats) and
// @langchain/openai OpenAIEmbeddings (over openai 7). Then the same clients
// through a gateway whose channels are fake upstreams of each kind that serves
// embeddings (fakes.ts): an OpenAI-compatible one and a Gemini one, judged on
// what reached the upstream and on what the client got back (issue #39).
import t, { type Test } from "tap";
import type OpenAI from "openai";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";
import { countText } from "../../src/lib/tokenizer.js";
import {
  EMBEDDING_DEFAULT_SIZE,
  EMBEDDING_UPSTREAM_MODEL,
  GEMINI_MAX_BATCH,
  fakeEmbeddingTokens,
  fakeVector,
  startFakeEmbeddingUpstreams,
  type EmbeddingAsk,
  type EmbeddingVendor,
  type FakeEmbeddingUpstreams,
} from "./fakes.js";
import { installClients, startGateway, type Exchange, type Gateway } from "./harness.js";

// The packages exist once the suite has installed them: imported after that.
await installClients();
const openai7 = await import("openai");
const openai6 = await import("openai6");
const { createOpenAI } = await import("@ai-sdk/openai");
const { embed, embedMany } = await import("ai");
const { OpenAIEmbeddings } = await import("@langchain/openai");

const MODEL = "text-embedding-3-small";
/** The client's name of the model the Gemini fake serves (as EMBEDDING_UPSTREAM_MODEL.gemini). */
const GEMINI_MODEL = "text-embedding-004";
/** Default sizes of OpenAI's embedding models. */
const DEFAULT_DIMENSIONS: Record<string, number> = { "text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536 };

let gw: Gateway;
/** A gateway whose local engine serves MODEL only: other names are unknown models. */
let narrow: TestServer;
/** A gateway with one channel per fake upstream: MODEL on the OpenAI-compatible fake, GEMINI_MODEL on the Gemini one. */
let up: FakeEmbeddingUpstreams;
t.before(async () => {
  gw = await startGateway();
  narrow = await startServer({ config: { local: { embeddingModels: [MODEL] } } as never });
  up = await startFakeEmbeddingUpstreams({ openai: [MODEL], gemini: [GEMINI_MODEL] });
});
t.teardown(async () => {
  await gw?.close();
  await narrow?.close();
  await up?.close();
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

// ---------------------------------------------------------------------------------------------------
// Through fake upstreams of each kind (fakes.ts): what reached the upstream, what the client got.

const EMBEDDING_VENDORS: EmbeddingVendor[] = ["openai", "gemini"];
const CLIENT_MODEL: Record<EmbeddingVendor, string> = { openai: MODEL, gemini: GEMINI_MODEL };
const KIND: Record<EmbeddingVendor, string> = { openai: "an OpenAI-compatible upstream", gemini: "a Gemini upstream" };
const FOX = "The quick brown fox";
const THREE = ["alpha", "beta", FOX];
/** More inputs than one Gemini batch holds: 100 + 100 + 50. */
const MANY = Array.from({ length: 2 * GEMINI_MAX_BATCH + 50 }, (_, i) => `document number ${i}`);

/** The upstream method one input, or several, go through. */
const methodOf = (v: EmbeddingVendor, inputs: number) => (v === "openai" ? "embeddings" : inputs === 1 ? "embedContent" : "batchEmbedContents");
/** The usage a client should see: the OpenAI fake's count; for Gemini, which reports none, the gateway's own. */
const expectedTokens = (v: EmbeddingVendor, inputs: string[]) => (v === "openai" ? fakeEmbeddingTokens(inputs) : inputs.reduce((n, x) => n + countText(x), 0));
/** Little-endian float32s from base64. */
const fromBase64 = (s: string) => {
  const b = Buffer.from(s, "base64");
  return Array.from({ length: b.length / 4 }, (_, i) => b.readFloatLE(i * 4));
};

/** Checks that a call made one upstream request: its method, the mapped model, the inputs in order, the size each asked for. */
function checkAsk(t: Test, v: EmbeddingVendor, asks: EmbeddingAsk[], want: { inputs: Array<string | number[]>; dimensions?: number }, what: string) {
  t.equal(asks.length, 1, `${what}: one upstream request (${asks.map((a) => `${a.method} of ${a.inputs.length}`).join(", ")})`);
  const a = asks[0];
  t.equal(a?.method, methodOf(v, want.inputs.length), `${what}: through ${methodOf(v, want.inputs.length)}`);
  t.equal(a?.model, EMBEDDING_UPSTREAM_MODEL[v], `${what}: the mapped model`);
  t.equal(a?.key, `key-${v}-embedding-fake`, `${what}: with the channel's key`);
  t.same(a?.inputs, want.inputs, `${what}: the inputs, in order`);
  t.same(
    a?.dimensions,
    want.inputs.map(() => want.dimensions),
    `${what}: ${v === "openai" ? "dimensions" : "outputDimensionality"} ${want.dimensions ?? "not sent"}`,
  );
  if (v === "openai") t.equal(a?.body.encoding_format, undefined, `${what}: no encoding_format (a server other than api.openai.com is asked for floats)`);
  if (a?.method === "embedContent") t.equal(a.body.model, undefined, `${what}: embedContent names the model in its path only`);
  if (a?.method === "batchEmbedContents")
    t.ok(
      a.body.requests.every((r: any) => r.model === `models/${EMBEDDING_UPSTREAM_MODEL.gemini}`),
      `${what}: each batched request names the mapped model`,
    );
}

for (const v of EMBEDDING_VENDORS) {
  t.test(`@ai-sdk/openai 4.0.118 through ${KIND[v]}: embed and embedMany`, async (t) => {
    const model = createOpenAI({ baseURL: `${up.url}/v1`, apiKey: ADMIN_KEY }).embedding(CLIENT_MODEL[v]);

    const [one, asks1] = await up.during(v, () => embed({ model, value: FOX, maxRetries: 0 }));
    checkAsk(t, v, asks1, { inputs: [FOX] }, "embed");
    if (v === "openai") t.equal(asks1[0]?.body.input, FOX, "embed: one text sent as a string");
    t.same(one.embedding, fakeVector(v, FOX, EMBEDDING_DEFAULT_SIZE[v]), "embed: the fake's vector");
    t.equal(one.usage.tokens, expectedTokens(v, [FOX]), `embed: usage ${v === "openai" ? "as the fake reported it" : "counted by the gateway"}`);

    const [small, asks2] = await up.during(v, () => embed({ model, value: FOX, dimensions: 64, maxRetries: 0 }));
    checkAsk(t, v, asks2, { inputs: [FOX], dimensions: 64 }, "embed with dimensions 64");
    t.same(small.embedding, fakeVector(v, FOX, 64), "embed with dimensions 64: the fake's 64 values");

    const [opts, asks3] = await up.during(v, () => embed({ model, value: FOX, providerOptions: { openai: { dimensions: 48, user: "user-42" } }, maxRetries: 0 }));
    checkAsk(t, v, asks3, { inputs: [FOX], dimensions: 48 }, "providerOptions.openai.dimensions 48");
    t.same(opts.embedding, fakeVector(v, FOX, 48), "providerOptions.openai.dimensions 48: the fake's 48 values");
    if (v === "openai") t.equal(asks3[0]?.body.user, "user-42", "providerOptions.openai.user passed on");
    else t.notOk(JSON.stringify(asks3[0]?.body).includes("user-42"), "providerOptions.openai.user dropped (Gemini has no such field)");

    const [three, asks4] = await up.during(v, () => embedMany({ model, values: THREE, providerOptions: { openai: { dimensions: 32 } }, maxRetries: 0 }));
    checkAsk(t, v, asks4, { inputs: THREE, dimensions: 32 }, "embedMany of 3");
    t.same(
      three.embeddings,
      THREE.map((x) => fakeVector(v, x, 32)),
      `embedMany of 3: the fake's vectors in input order${v === "openai" ? " (the fake listed them last first)" : ""}`,
    );
    t.equal(three.usage.tokens, expectedTokens(v, THREE), "embedMany of 3: usage");

    // Gemini, told to report usage: the gateway adds up its batches' counts.
    if (v === "gemini") {
      up.script(v, { usage: true });
      t.teardown(() => up.script(v, {}));
    }
    const [lots, asks5] = await up.during(v, () => embedMany({ model, values: MANY, dimensions: 16, maxRetries: 0 }));
    // Gemini's batches go out a few at a time: put them back in input order.
    const batches = [...asks5].sort((a, b) => MANY.indexOf(a.inputs[0] as string) - MANY.indexOf(b.inputs[0] as string));
    t.same(
      batches.map((a) => a.inputs.length),
      v === "openai" ? [MANY.length] : [GEMINI_MAX_BATCH, GEMINI_MAX_BATCH, MANY.length - 2 * GEMINI_MAX_BATCH],
      `embedMany of ${MANY.length}: ${v === "openai" ? "one request" : "batches of at most 100"}`,
    );
    t.ok(
      batches.every((a) => a.method === methodOf(v, MANY.length) && a.model === EMBEDDING_UPSTREAM_MODEL[v]),
      `embedMany of ${MANY.length}: ${methodOf(v, MANY.length)} of the mapped model`,
    );
    t.same(
      batches.flatMap((a) => a.inputs),
      MANY,
      `embedMany of ${MANY.length}: every input once, in order`,
    );
    t.ok(
      batches.every((a) => a.dimensions.every((d) => d === 16)),
      `embedMany of ${MANY.length}: dimensions 16 for each`,
    );
    t.equal(lots.embeddings.length, MANY.length, `embedMany of ${MANY.length}: one vector per value`);
    t.ok(
      lots.embeddings.every((e, i) => same(e, fakeVector(v, MANY[i]!, 16))),
      `embedMany of ${MANY.length}: the fake's vectors, in order`,
    );
    t.equal(lots.usage.tokens, fakeEmbeddingTokens(MANY), `embedMany of ${MANY.length}: usage as the fake reported it${v === "gemini" ? ", summed over the batches" : ""}`);
  });
}

for (const [label, sdk] of SDKS) {
  for (const v of EMBEDDING_VENDORS) {
    t.test(`${label} through ${KIND[v]}: embeddings.create, base64 encoded by the gateway`, async (t) => {
      const answers: string[] = [];
      const recording = async (input: string | URL | Request, init?: RequestInit) => {
        const res = await fetch(input, init);
        answers.push(await res.clone().text());
        return res;
      };
      const client: OpenAI = new sdk.default({ apiKey: ADMIN_KEY, baseURL: `${up.url}/v1`, maxRetries: 0, fetch: recording });
      const model = CLIENT_MODEL[v];

      const two = ["alpha", "beta"];
      const [b64, asks1] = await up.during(v, () => client.embeddings.create({ model, input: two, dimensions: 8, encoding_format: "base64" }));
      checkAsk(t, v, asks1, { inputs: two, dimensions: 8 }, "encoding_format base64");
      if (v === "gemini")
        t.ok(
          asks1[0]?.body.requests.every((r: any) => Object.keys(r).sort().join() === "content,model,outputDimensionality"),
          "encoding_format base64: nothing else sent to Gemini",
        );
      t.equal(b64.model, model, "the client's model name echoed");
      t.same(
        b64.data.map((d) => [d.object, d.index, typeof d.embedding]),
        [
          ["embedding", 0, "string"],
          ["embedding", 1, "string"],
        ],
        "two embeddings, in order, as base64 strings",
      );
      t.same(
        b64.data.map((d) => fromBase64(d.embedding as unknown as string)),
        two.map((x) => fakeVector(v, x, 8)),
        "each the fake's vector as little-endian float32s",
      );
      t.equal(b64.usage.prompt_tokens, expectedTokens(v, two), "usage.prompt_tokens");
      t.equal(b64.usage.total_tokens, b64.usage.prompt_tokens, "total_tokens = prompt_tokens");

      const [dflt, asks2] = await up.during(v, () => client.embeddings.create({ model, input: FOX }));
      checkAsk(t, v, asks2, { inputs: [FOX] }, "no encoding_format");
      t.type(JSON.parse(answers.at(-1)!).data?.[0]?.embedding, "string", "no encoding_format: the SDK asked for base64 and got a string");
      t.same(Array.from(dflt.data[0]!.embedding), fakeVector(v, FOX, EMBEDDING_DEFAULT_SIZE[v]), "which it decodes to the fake's vector");

      const floats = await client.embeddings.create({ model, input: FOX, encoding_format: "float" });
      t.ok(Array.isArray(JSON.parse(answers.at(-1)!).data?.[0]?.embedding), "encoding_format float: numbers on the wire");
      t.same(floats.data[0]!.embedding, fakeVector(v, FOX, EMBEDDING_DEFAULT_SIZE[v]), "encoding_format float: the fake's vector");

      const ids = [
        [9906, 1917],
        [791, 4062, 14198, 39935],
      ];
      if (v === "openai") {
        const [tokens, asks3] = await up.during(v, () => client.embeddings.create({ model, input: ids, dimensions: 8 }));
        checkAsk(t, v, asks3, { inputs: ids, dimensions: 8 }, "token-id arrays");
        t.same(
          tokens.data.map((d) => Array.from(d.embedding)),
          ids.map((x) => fakeVector(v, x, 8)),
          "token-id arrays: the fake's vectors, in order",
        );
        t.equal(tokens.usage.prompt_tokens, fakeEmbeddingTokens(ids), "token-id arrays: usage as the fake reported it");
      } else {
        const [err, asks3] = await up.during(v, () => failure(client.embeddings.create({ model, input: ids })));
        t.ok(err instanceof sdk.BadRequestError, `token-id arrays: BadRequestError, Gemini embeds text only (${err?.constructor?.name}: ${err?.message})`);
        t.match(err, { status: 400, param: /^input/ }, "status 400, param input");
        t.equal(asks3.length, 0, "token-id arrays: nothing sent to Gemini");
      }
    });
  }
}
