// /v1/embeddings (and Gemini's embedContent) served by upstream channels: a
// fake OpenAI-compatible server and a fake Gemini server configured as
// channels. What they are sent, what the client gets back, the usage
// records, and that embedding-only channels leave chat on the local engine.
import t from "tap";
import { ADMIN_KEY, ONE_ATTEMPT, startServer, testChannel, type TestServer } from "../../helpers/app.js";
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "../../fixtures/fake-upstream.js";

const b64 = (values: number[]) => Buffer.from(new Float32Array(values).buffer).toString("base64");

let openaiReply: (r: Recorded) => Reply = () => ({});
let geminiReply: (r: Recorded) => Reply = () => ({});
let oa: FakeUpstream;
let gm: FakeUpstream;
let server: TestServer;
t.before(async () => {
  oa = await startFakeUpstream((r) => openaiReply(r));
  gm = await startFakeUpstream((r) => geminiReply(r));
  server = await startServer({
    config: {
      upstream: ONE_ATTEMPT,
      channels: [
        { ...testChannel("oa", "openai", `${oa.url}/v1`, ["text-embedding-3-*"]), modelMap: { "my-embedder": "text-embedding-3-small" } },
        testChannel("gm", "gemini", gm.url, ["gemini-embedding-*"]),
      ],
    } as never,
  });
});
t.teardown(async () => {
  await server?.close();
  await oa?.close();
  await gm?.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${ADMIN_KEY}` }) {
  const res = await fetch(server.baseUrl + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, rid: res.headers.get("request-id")!, body: (await res.json()) as any };
}

async function usageRow(rid: string) {
  for (let i = 0; i < 200; i++) {
    const row = (await server.deps.storage.usage.query({})).rows.find((x) => x.requestId === rid);
    if (row) return row;
    await new Promise((res) => setTimeout(res, 10));
  }
  return undefined;
}

t.test("an OpenAI channel: the request it gets, its base64 answer decoded for the client", async (t) => {
  openaiReply = () => ({
    json: {
      object: "list",
      data: [
        { object: "embedding", index: 0, embedding: b64([0.6, 0.8]) },
        { object: "embedding", index: 1, embedding: [1, 0] },
      ],
      model: "text-embedding-3-small",
      usage: { prompt_tokens: 9, total_tokens: 9 },
    },
  });
  const r = await post("/v1/embeddings", { model: "text-embedding-3-small", input: ["a", "b"], dimensions: 2, user: "u-7", some_new_field: { x: 1 } });
  t.equal(r.status, 200);
  const sent = oa.requests.at(-1)!;
  t.equal(sent.path, "/v1/embeddings");
  t.equal(sent.headers.authorization, "Bearer key-oa", "the channel's key, not the client's");
  t.same(sent.body, { some_new_field: { x: 1 }, model: "text-embedding-3-small", input: ["a", "b"], dimensions: 2, user: "u-7" }, "unknown fields pass through");
  t.same(
    r.body.data.map((d: any) => d.embedding),
    [
      [Math.fround(0.6), Math.fround(0.8)],
      [1, 0],
    ],
  );
  t.same(r.body.usage, { prompt_tokens: 9, total_tokens: 9 }, "the upstream's usage");
  t.match(await usageRow(r.rid), { format: "embeddings", model: "text-embedding-3-small", channel: "oa", inputTokens: 9, status: "ok" });

  openaiReply = () => ({ json: { data: [{ index: 0, embedding: b64([0.6, 0.8]) }], usage: { prompt_tokens: 1 } } });
  const asB64 = await post("/v1/embeddings", { model: "my-embedder", input: "a", encoding_format: "base64" });
  t.equal(oa.requests.at(-1)!.body.model, "text-embedding-3-small", "modelMap renames the model upstream");
  t.equal(oa.requests.at(-1)!.body.encoding_format, undefined, "the client's encoding is the gateway's business");
  t.equal(asB64.body.data[0].embedding, b64([0.6, 0.8]), "re-encoded as base64 for the client");
  t.equal(asB64.body.model, "my-embedder", "the client's model name");
});

t.test("an OpenAI channel's failures in OpenAI's shape, without its words", async (t) => {
  openaiReply = () => ({ status: 401, json: { error: { message: "Incorrect API key provided: key-oa", type: "invalid_request_error", code: "invalid_api_key" } } });
  const auth = await post("/v1/embeddings", { model: "text-embedding-3-small", input: "a" });
  t.equal(auth.status, 500, "the gateway's credentials are not the client's fault");
  t.notMatch(JSON.stringify(auth.body), /key-oa/);
  t.match(await usageRow(auth.rid), { channel: "oa", status: /^error:/ });
  openaiReply = () => ({ status: 429, headers: { "retry-after": "3" }, json: { error: { message: "slow down", type: "requests", code: "rate_limit_exceeded" } } });
  const limited = await post("/v1/embeddings", { model: "text-embedding-3-small", input: "a" });
  t.equal(limited.status, 429);
  t.match(limited.body.error, { code: "rate_limit_exceeded" });
});

t.test("a Gemini channel from the OpenAI facade: batchEmbedContents, usage counted by the gateway", async (t) => {
  geminiReply = (r) => ({ json: { embeddings: r.body.requests.map((_: unknown, i: number) => ({ values: [i, 1] })) } });
  const r = await post("/v1/embeddings", { model: "gemini-embedding-001", input: ["alpha beta", "gamma"], dimensions: 2 });
  t.equal(r.status, 200);
  const sent = gm.requests.at(-1)!;
  t.equal(sent.path, "/v1beta/models/gemini-embedding-001:batchEmbedContents");
  t.equal(sent.headers["x-goog-api-key"], "key-gm");
  t.same(sent.body, {
    requests: [
      { content: { parts: [{ text: "alpha beta" }] }, model: "models/gemini-embedding-001", outputDimensionality: 2 },
      { content: { parts: [{ text: "gamma" }] }, model: "models/gemini-embedding-001", outputDimensionality: 2 },
    ],
  });
  t.same(
    r.body.data.map((d: any) => d.embedding),
    [
      [0, 1],
      [1, 1],
    ],
  );
  t.equal(r.body.usage.prompt_tokens, 3, "Gemini reports none: the gateway's tokenizer counts");
  t.match(await usageRow(r.rid), { model: "gemini-embedding-001", channel: "gm", inputTokens: 3 });
  const tokens = await post("/v1/embeddings", { model: "gemini-embedding-001", input: [1, 2, 3] });
  t.equal(tokens.status, 400, "Gemini cannot take token arrays");
  t.match(tokens.body.error, { param: "input", code: "unsupported_parameter" });
});

t.test("Gemini's embedContent on the generate-content facade, served by the OpenAI channel", async (t) => {
  openaiReply = () => ({ json: { data: [{ index: 0, embedding: [0.5, 0.5] }], usage: { prompt_tokens: 2 } } });
  const r = await post(
    "/v1beta/models/text-embedding-3-small:embedContent",
    { content: { parts: [{ text: "hello" }] }, outputDimensionality: 2, taskType: "RETRIEVAL_QUERY" },
    { "x-goog-api-key": ADMIN_KEY },
  );
  t.equal(r.status, 200);
  t.same(r.body, { embedding: { values: [0.5, 0.5] } });
  t.same(oa.requests.at(-1)!.body, { model: "text-embedding-3-small", input: "hello", dimensions: 2 }, "the task type has no OpenAI field");
  t.match(await usageRow(r.rid), { format: "generate-content", model: "text-embedding-3-small", channel: "oa", inputTokens: 2 });
});

t.test("with channels configured, the local engine serves no embedding model; chat stays local", async (t) => {
  const r = await post("/v1/embeddings", { model: "text-embedding-ada-002", input: "a" });
  t.equal(r.status, 404);
  t.match(r.body.error, { code: "model_not_found", param: "model" });
  const chat = await post("/v1/messages", { model: "claude-sonnet-4-6", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }, { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01" });
  t.equal(chat.status, 200, "embedding-only channels are not chat channels");
  const models = await fetch(`${server.baseUrl}/omnigate.model.v1.ModelService/ListModels`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ capability: "CAPABILITY_EMBEDDING" }),
  });
  t.same(
    ((await models.json()) as { models?: { id: string; channels: string[] }[] }).models?.map((m) => [m.id, m.channels]),
    [["my-embedder", ["oa"]]],
    "the channels' concrete embedding names (globs cannot be listed), none of the local engine's",
  );
});
