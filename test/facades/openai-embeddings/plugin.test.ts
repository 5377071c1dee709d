// POST /v1/embeddings against the local engine over HTTP: float and base64
// answers (decoded and compared), dimensions, token-array input, OpenAI's
// error shapes with their param, key scopes, and the usage record.
import t from "tap";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";

let server: TestServer;
t.before(async () => {
  server = await startServer({ config: { prices: { chat: [{ model: "text-embedding-3-large", input: 0.13, output: 0, request: 0 }], images: [], imageBot: {}, video: [] } } });
});
t.teardown(() => server?.close());

async function post(body: unknown, key: string | null = ADMIN_KEY, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.baseUrl}/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

async function createKey(key: Record<string, unknown>): Promise<{ secret: string; id: string }> {
  const res = await fetch(`${server.baseUrl}/omnigate.admin.v1.AdminService/CreateKey`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ key: { name: "t", ...key } }),
  });
  const body = (await res.json()) as { secret: string; key: { id: string } };
  return { secret: body.secret, id: body.key.id };
}

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const decode = (b64: string) => {
  const buf = Buffer.from(b64, "base64");
  return Array.from({ length: buf.length / 4 }, (_, i) => buf.readFloatLE(i * 4));
};

t.test("float (the default): one embedding object per input, in order, with usage", async (t) => {
  const r = await post({ model: "text-embedding-3-small", input: ["The quick brown fox", "Lorem ipsum"] });
  t.equal(r.status, 200);
  t.match(r.body, { object: "list", model: "text-embedding-3-small", usage: { prompt_tokens: Number, total_tokens: Number } });
  t.same(
    r.body.data.map((d: any) => [d.object, d.index, d.embedding.length]),
    [
      ["embedding", 0, 1536],
      ["embedding", 1, 1536],
    ],
  );
  t.ok(Math.abs(norm(r.body.data[0].embedding) - 1) < 1e-5, "unit length");
  t.ok(r.body.usage.prompt_tokens > 0);
  t.equal(r.body.usage.total_tokens, r.body.usage.prompt_tokens);
  const again = await post({ model: "text-embedding-3-small", input: "The quick brown fox" });
  t.same(again.body.data[0].embedding, r.body.data[0].embedding, "a single string: the same vector as in the array");
});

t.test("base64: little-endian float32 that decodes to the float answer", async (t) => {
  const floats = await post({ model: "text-embedding-3-small", input: "hello world", dimensions: 64, encoding_format: "float" });
  const b64 = await post({ model: "text-embedding-3-small", input: "hello world", dimensions: 64, encoding_format: "base64" });
  t.equal(b64.status, 200);
  t.type(b64.body.data[0].embedding, "string");
  t.equal(Buffer.from(b64.body.data[0].embedding, "base64").length, 64 * 4);
  t.same(decode(b64.body.data[0].embedding), floats.body.data[0].embedding, "exactly the float vector");
});

t.test("dimensions and models", async (t) => {
  t.equal((await post({ model: "text-embedding-3-large", input: "x" })).body.data[0].embedding.length, 3072);
  t.equal((await post({ model: "text-embedding-3-large", input: "x", dimensions: 256 })).body.data[0].embedding.length, 256);
  t.equal((await post({ model: "gemini-embedding-001", input: "x", dimensions: 768 })).body.data[0].embedding.length, 768);
});

t.test("token arrays: one (integers) or several (arrays of integers)", async (t) => {
  const one = await post({ model: "text-embedding-3-small", input: [1, 2, 3] });
  t.equal(one.status, 200);
  t.equal(one.body.data.length, 1, "an array of integers is one input");
  t.equal(one.body.usage.prompt_tokens, 3, "its tokens counted as given");
  const two = await post({ model: "text-embedding-3-small", input: [[1, 2, 3], [4]] });
  t.equal(two.body.data.length, 2);
  t.same(two.body.data[0].embedding, one.body.data[0].embedding);
  t.equal(two.body.usage.prompt_tokens, 4);
});

t.test("errors in OpenAI's shape", async (t) => {
  const missing = await post({ model: "text-embedding-3-small", input: "x" }, null);
  t.equal(missing.status, 401);
  t.match(missing.body, { error: { type: "invalid_request_error", code: "invalid_api_key", param: null } });
  const wrong = await post({ model: "text-embedding-3-small", input: "x" }, "sk-wrong-0000000000");
  t.equal(wrong.status, 401);
  t.match(wrong.body.error, { code: "invalid_api_key", message: /Incorrect API key/ });
  const unknown = await post({ model: "claude-sonnet-4-6", input: "x" });
  t.equal(unknown.status, 404);
  t.match(unknown.body.error, { type: "invalid_request_error", code: "model_not_found", param: "model", message: /`claude-sonnet-4-6` does not exist/ });
  const cases: [string, unknown, string | null, RegExp | string][] = [
    ["no model", { input: "x" }, "model", "missing_required_parameter"],
    ["no input", { model: "text-embedding-3-small" }, "input", "missing_required_parameter"],
    ["input of the wrong type", { model: "text-embedding-3-small", input: { text: "x" } }, "input", "invalid_type"],
    ["a mixed array", { model: "text-embedding-3-small", input: ["a", 1] }, "input", "invalid_type"],
    ["an empty array", { model: "text-embedding-3-small", input: [] }, "input", /./],
    ["an empty string", { model: "text-embedding-3-small", input: "" }, "input", /./],
    ["an empty string among others", { model: "text-embedding-3-small", input: ["a", ""] }, "input[1]", /./],
    ["dimensions 0", { model: "text-embedding-3-small", input: "x", dimensions: 0 }, "dimensions", /./],
    ["dimensions past the model's", { model: "text-embedding-3-small", input: "x", dimensions: 2000 }, "dimensions", /./],
    ["dimensions on ada-002", { model: "text-embedding-ada-002", input: "x", dimensions: 8 }, "dimensions", "unsupported_parameter"],
    ["dimensions not an integer", { model: "text-embedding-3-small", input: "x", dimensions: "8" }, "dimensions", "invalid_type"],
    ["an unknown encoding_format", { model: "text-embedding-3-small", input: "x", encoding_format: "hex" }, "encoding_format", "invalid_value"],
    ["too many inputs", { model: "text-embedding-3-small", input: Array.from({ length: 2049 }, () => "x") }, "input", /./],
    ["not JSON", "{", null, "invalid_json"],
  ];
  for (const [name, body, param, code] of cases) {
    const r = await post(body);
    t.equal(r.status, 400, `${name}: 400`);
    t.match(r.body, { error: { type: "invalid_request_error", param, code, message: String } }, `${name}: param ${param}`);
  }
  const msg = await post({ model: "text-embedding-3-small", input: ["a", ""] });
  t.match(msg.body.error.message, /^Invalid 'input\[1\]': /, "the message names the client's field");
  const rateLimited = await post({ model: "text-embedding-3-small", input: "#fault:rate_limit" });
  t.equal(rateLimited.status, 429);
  t.match(rateLimited.body.error, { type: "requests", code: "rate_limit_exceeded" });
  t.equal(rateLimited.headers.get("retry-after"), "1");
  const overloaded = await post({ model: "text-embedding-3-small", input: "#fault:overloaded" });
  t.equal(overloaded.status, 503);
  t.match(overloaded.body.error, { type: "server_error" });
  const internal = await post({ model: "text-embedding-3-small", input: "#fault:internal" });
  t.equal(internal.status, 500);
  t.notMatch(JSON.stringify(internal.body), /fault injection/, "internal text stays inside");
});

t.test("key scopes: the embeddings format and model globs", async (t) => {
  const embeddingsOnly = await createKey({ formats: ["embeddings"], models: ["text-embedding-*"] });
  t.equal((await post({ model: "text-embedding-3-small", input: "x" }, embeddingsOnly.secret)).status, 200);
  const other = await post({ model: "gemini-embedding-001", input: "x" }, embeddingsOnly.secret);
  t.equal(other.status, 403, "a model outside the key's globs");
  t.match(other.body.error, { type: "invalid_request_error" });
  const messagesOnly = await createKey({ formats: ["messages"] });
  t.equal((await post({ model: "text-embedding-3-small", input: "x" }, messagesOnly.secret)).status, 403, "a key without the embeddings format");
});

t.test("one usage record per call: format, model, channel, tokens, credits", async (t) => {
  const key = await createKey({});
  const r = await post({ model: "text-embedding-3-large", input: ["one two three", "four"] }, key.secret);
  t.equal(r.status, 200);
  const rid = r.headers.get("request-id")!;
  let row;
  for (let i = 0; i < 200 && !row; i++) {
    row = (await server.deps.storage.usage.query({ keyId: key.id })).rows.find((x) => x.requestId === rid);
    if (!row) await new Promise((res) => setTimeout(res, 10));
  }
  t.match(row, { format: "embeddings", model: "text-embedding-3-large", channel: "local", inputTokens: r.body.usage.prompt_tokens, outputTokens: 0, status: "ok" });
  t.ok(Math.abs(row!.credits - (r.body.usage.prompt_tokens * 0.13) / 1e6) < 1e-12, `priced as chat input (${row!.credits})`);
});

t.test("the catalog lists the embedding models", async (t) => {
  const res = await fetch(`${server.baseUrl}/omnigate.model.v1.ModelService/ListModels`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ capability: "CAPABILITY_EMBEDDING" }),
  });
  const body = (await res.json()) as { models: { id: string; embeddingDimensions?: number; channels: string[] }[] };
  const small = body.models.find((m) => m.id === "text-embedding-3-small");
  t.match(small, { embeddingDimensions: 1536, channels: ["local"] });
  t.ok(
    body.models.some((m) => m.id === "gemini-embedding-001"),
    "gemini-embedding-001 too",
  );
  t.notOk(
    body.models.some((m) => m.id === "claude-sonnet-4-6"),
    "no chat model",
  );
  const openai = await fetch(`${server.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  t.ok(
    ((await openai.json()) as { data: { id: string }[] }).data.some((m) => m.id === "text-embedding-3-small"),
    "GET /v1/models lists them",
  );
});
