// The openai SDK's embeddings.create against the gateway's local engine: it
// asks for base64 unless told otherwise and decodes it, so both encodings
// must give the same vectors; its error classes come from the status.
import t from "tap";
import OpenAI from "openai";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";

let server: TestServer;
let client: OpenAI;
const bodies: string[] = [];
t.before(async () => {
  server = await startServer();
  const recording: typeof fetch = async (url, init) => {
    bodies.push(String(init?.body ?? ""));
    return fetch(url, init);
  };
  client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${server.baseUrl}/v1`, maxRetries: 0, fetch: recording });
});
t.teardown(() => server?.close());

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

t.test("the default (base64, decoded by the SDK) and float give the same vectors", async (t) => {
  const b64 = await client.embeddings.create({ model: "text-embedding-3-small", input: ["The quick brown fox", "jumps"] });
  t.equal(JSON.parse(bodies.at(-1)!).encoding_format, "base64", "the SDK asked for base64");
  const floats = await client.embeddings.create({ model: "text-embedding-3-small", input: ["The quick brown fox", "jumps"], encoding_format: "float" });
  t.equal(b64.data.length, 2);
  t.equal(b64.data[0]!.embedding.length, 1536);
  t.same(
    b64.data.map((d) => d.embedding),
    floats.data.map((d) => d.embedding),
    "decoded base64 = floats",
  );
  t.ok(Math.abs(norm(b64.data[1]!.embedding) - 1) < 1e-5);
  t.equal(b64.model, "text-embedding-3-small");
  t.equal(b64.usage.prompt_tokens, floats.usage.prompt_tokens);
  t.ok(b64.usage.prompt_tokens > 0);
});

t.test("dimensions and token input", async (t) => {
  const r = await client.embeddings.create({ model: "text-embedding-3-large", input: [[101, 202, 303]], dimensions: 32 });
  t.equal(r.data[0]!.embedding.length, 32);
  t.equal(r.usage.prompt_tokens, 3);
});

t.test("errors: the SDK's classes", async (t) => {
  const fail = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e,
    );
  const notFound = await fail(client.embeddings.create({ model: "no-such-embedder", input: "x" }));
  t.ok(notFound instanceof OpenAI.NotFoundError, "an unknown model: NotFoundError");
  t.match(notFound, { status: 404, code: "model_not_found", param: "model" });
  const bad = await fail(client.embeddings.create({ model: "text-embedding-3-small", input: "x", dimensions: -1 }));
  t.ok(bad instanceof OpenAI.BadRequestError, "dimensions -1: BadRequestError");
  t.match(bad, { status: 400, param: "dimensions" });
  const auth = await fail(new OpenAI({ apiKey: "sk-nope-000000000000", baseURL: `${server.baseUrl}/v1`, maxRetries: 0 }).embeddings.create({ model: "text-embedding-3-small", input: "x" }));
  t.ok(auth instanceof OpenAI.AuthenticationError, "a bad key: AuthenticationError");
  t.match(auth, { status: 401, code: "invalid_api_key" });
});
