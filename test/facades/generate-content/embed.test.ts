// Gemini's :embedContent and :batchEmbedContents on the generate-content
// facade, against the local engine: both GenAI SDK generations'
// models.embedContent (which call :batchEmbedContents, on /v1beta and /v1),
// the REST shapes, and errors as google.rpc.Status naming the wire field.
import t from "tap";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";
import { apiError, SDKS, statusOf, violations } from "./sdks.js";

let server: TestServer;
t.before(async () => {
  server = await startServer();
});
t.teardown(() => server?.close());

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const MODEL = "gemini-embedding-001";

async function post(path: string, body: unknown, key: string | null = ADMIN_KEY) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { "x-goog-api-key": key } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, rid: res.headers.get("request-id")!, body: (await res.json()) as any };
}

for (const sdk of SDKS) {
  t.test(`${sdk.name}: models.embedContent, one and several`, async (t) => {
    const ai = sdk.client(server.baseUrl, ADMIN_KEY);
    const one = await ai.models.embedContent({ model: MODEL, contents: "The quick brown fox", config: { outputDimensionality: 256, taskType: "RETRIEVAL_QUERY" } });
    t.equal(one.embeddings?.length, 1);
    const v = one.embeddings![0]!.values!;
    t.equal(v.length, 256);
    t.ok(Math.abs(norm(v) - 1) < 1e-5, "unit length");
    const many = await ai.models.embedContent({ model: MODEL, contents: ["alpha", "The quick brown fox", "beta"], config: { outputDimensionality: 256 } });
    t.equal(many.embeddings?.length, 3);
    t.same(many.embeddings![1]!.values, v, "the same text gives the same vector");
    t.notSame(many.embeddings![0]!.values, many.embeddings![2]!.values);
    const full = await ai.models.embedContent({ model: MODEL, contents: "x" });
    t.equal(full.embeddings![0]!.values!.length, 3072, "gemini-embedding-001's own size");
    const err = await apiError(ai.models.embedContent({ model: "claude-sonnet-4-6", contents: "x" }));
    t.equal(err.status, 404, "a model nothing serves: 404");
    const bad = await apiError(ai.models.embedContent({ model: "text-embedding-004", contents: "x", config: { outputDimensionality: 5000 } }));
    t.equal(bad.status, 400);
    t.same(
      violations(statusOf(bad).details).map((x) => x.field),
      ["requests[0].outputDimensionality"],
      "the violation names the wire field",
    );
  });
}

t.test("REST :embedContent: one content, with title and task type", async (t) => {
  const r = await post(`/v1beta/models/${MODEL}:embedContent`, {
    model: `models/${MODEL}`,
    content: { parts: [{ text: "Paris is the capital of France" }] },
    task_type: "RETRIEVAL_DOCUMENT",
    title: "Capitals",
    output_dimensionality: 128,
  });
  t.equal(r.status, 200);
  t.equal(r.body.embedding.values.length, 128, "snake_case keys are read too");
  const plain = await post(`/v1beta/models/${MODEL}:embedContent`, { content: { parts: [{ text: "Paris is the capital of France" }] }, outputDimensionality: 128 });
  t.notSame(plain.body.embedding.values, r.body.embedding.values, "the title counts");
  const row = (await server.deps.storage.usage.query({})).rows.find((x) => x.requestId === r.rid);
  t.match(row, { format: "generate-content", model: MODEL, channel: "local", status: "ok" }, "a usage record");
  t.ok(row!.inputTokens > 0);
});

t.test("REST :batchEmbedContents", async (t) => {
  const r = await post(`/v1beta/models/${MODEL}:batchEmbedContents`, {
    requests: [
      { model: `models/${MODEL}`, content: { parts: [{ text: "a" }] }, outputDimensionality: 8 },
      { model: `models/${MODEL}`, content: { parts: [{ text: "b" }] }, outputDimensionality: 8 },
    ],
  });
  t.equal(r.status, 200);
  t.equal(r.body.embeddings.length, 2);
  t.equal(r.body.embeddings[1].values.length, 8);
});

t.test("errors as google.rpc.Status naming the wire field", async (t) => {
  const cases: [string, string, unknown, number, string][] = [
    ["no content", "embedContent", {}, 400, "content"],
    ["an empty text", "embedContent", { content: { parts: [{ text: "" }] } }, 400, "content"],
    ["a non-text part", "embedContent", { content: { parts: [{ inlineData: { mimeType: "image/png", data: "AAAA" } }] } }, 400, "content.parts[0]"],
    ["outputDimensionality 0", "embedContent", { content: { parts: [{ text: "x" }] }, outputDimensionality: 0 }, 400, "outputDimensionality"],
    ["a batch's empty text", "batchEmbedContents", { requests: [{ content: { parts: [{ text: "a" }] } }, { content: { parts: [{ text: "" }] } }] }, 400, "requests[1].content"],
    ["no requests", "batchEmbedContents", { requests: [] }, 400, "requests"],
    ["another model", "batchEmbedContents", { requests: [{ model: "models/text-embedding-004", content: { parts: [{ text: "a" }] } }] }, 400, "requests[0].model"],
    [
      "differing task types",
      "batchEmbedContents",
      {
        requests: [
          { content: { parts: [{ text: "a" }] }, taskType: "RETRIEVAL_QUERY" },
          { content: { parts: [{ text: "b" }] }, taskType: "RETRIEVAL_DOCUMENT" },
        ],
      },
      400,
      "requests[1].taskType",
    ],
    [
      "differing sizes",
      "batchEmbedContents",
      {
        requests: [
          { content: { parts: [{ text: "a" }] }, outputDimensionality: 8 },
          { content: { parts: [{ text: "b" }] }, outputDimensionality: 9 },
        ],
      },
      400,
      "requests[1].outputDimensionality",
    ],
  ];
  for (const [name, action, body, status, field] of cases) {
    const r = await post(`/v1beta/models/${MODEL}:${action}`, body);
    t.equal(r.status, status, `${name}: ${status}`);
    t.equal(r.body.error?.status, "INVALID_ARGUMENT", `${name}: INVALID_ARGUMENT`);
    t.same(
      violations(r.body.error?.details).map((x) => x.field),
      [field],
      `${name}: names ${field}`,
    );
  }
  const noKey = await post(`/v1beta/models/${MODEL}:embedContent`, { content: { parts: [{ text: "x" }] } }, null);
  t.equal(noKey.status, 401);
  const wrongKey = await post(`/v1beta/models/${MODEL}:embedContent`, { content: { parts: [{ text: "x" }] } }, "AIza-wrong");
  t.equal(wrongKey.status, 400);
  t.match(wrongKey.body.error.details, [{ reason: "API_KEY_INVALID" }]);
});

t.test("GET models/{embedding model}: its methods are the embedding ones", async (t) => {
  const res = await fetch(`${server.baseUrl}/v1beta/models/${MODEL}`, { headers: { "x-goog-api-key": ADMIN_KEY } });
  t.equal(res.status, 200);
  t.match(await res.json(), { name: `models/${MODEL}`, supportedGenerationMethods: ["embedContent", "batchEmbedContents"] });
});

t.test("GET models lists the embedding models beside the chat ones, each with its methods", async (t) => {
  const res = await fetch(`${server.baseUrl}/v1beta/models?pageSize=1000`, { headers: { "x-goog-api-key": ADMIN_KEY } });
  t.equal(res.status, 200);
  const models = ((await res.json()) as { models: { name: string; supportedGenerationMethods: string[] }[] }).models;
  const embedding = models.find((m) => m.name === `models/${MODEL}`);
  t.same(embedding?.supportedGenerationMethods, ["embedContent", "batchEmbedContents"], "an embedding model");
  t.ok(
    models.some((m) => m.supportedGenerationMethods.includes("generateContent")),
    "and chat models",
  );
  t.notOk(
    models.some((m) => m.supportedGenerationMethods.length === 0),
    "no model without a method (images, video are not listed)",
  );
});
