// GET /v1/models without anthropic-version (or Gemini credentials) answers in
// the OpenAI shape; the openai SDK is the client.
import t from "tap";
import OpenAI from "openai";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Capability, ModelSchema } from "../../../gen/omnigate/model/v1/model_pb.js";
import { fromCoreModel } from "../../../src/facades/openai-models/translate.js";
import { LOCAL_LISTED_CHAT_MODELS } from "../../../src/server/deps.js";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";

let server: TestServer;
t.before(async () => {
  server = await startServer();
});
t.teardown(() => server.close());

const client = (key = ADMIN_KEY) => new OpenAI({ baseURL: server.baseUrl + "/v1", apiKey: key, maxRetries: 0 });

t.test("fromCoreModel (pure)", async (t) => {
  const m = create(ModelSchema, { id: "x", ownedBy: "acme", createTime: timestampFromMs(1_700_000_000_000) });
  t.same(fromCoreModel(m), { id: "x", object: "model", created: 1_700_000_000, owned_by: "acme", capabilities: [] });
  const e = create(ModelSchema, { id: "e", capabilities: [Capability.EMBEDDING], embeddingDimensions: 1536 });
  t.same(fromCoreModel(e), { id: "e", object: "model", created: 0, owned_by: "omnigate", capabilities: ["embedding"], embedding_dimensions: 1536 });
  t.equal(fromCoreModel(create(ModelSchema, { id: "y" })).owned_by, "omnigate");
});

t.test("models.list() through the openai SDK", async (t) => {
  const page = await client().models.list();
  const ids = page.data.map((m) => m.id);
  for (const id of LOCAL_LISTED_CHAT_MODELS) t.ok(ids.includes(id), `lists ${id}`);
  for (const m of page.data) {
    t.equal(m.object, "model");
    t.type(m.created, "number");
    t.type(m.owned_by, "string");
  }
});

t.test("the raw list shape", async (t) => {
  const res = await fetch(server.baseUrl + "/v1/models", { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  t.equal(res.status, 200);
  const body = (await res.json()) as { object: string; data: Record<string, unknown>[] };
  t.equal(body.object, "list");
  t.same(Object.keys(body.data[0]!).sort(), ["capabilities", "created", "id", "object", "owned_by"]);
  const chat = body.data.find((m) => m.id === "gemini-2.5-flash");
  t.same(chat?.capabilities, ["chat"], "a chat model says so");
  const embed = body.data.find((m) => m.id === "text-embedding-3-small");
  t.match(embed, { capabilities: ["embedding"], embedding_dimensions: 1536 }, "an embedding model says so, with its size");
});

t.test("models.retrieve()", async (t) => {
  const m = await client().models.retrieve("gemini-2.5-flash");
  t.same({ id: m.id, object: m.object, owned_by: m.owned_by }, { id: "gemini-2.5-flash", object: "model", owned_by: "omnigate-local" });
});

t.test("errors in the OpenAI shape with the SDK's classes", async (t) => {
  const nf = await client()
    .models.retrieve("no-such-model")
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  t.ok(nf instanceof OpenAI.NotFoundError);
  t.equal((nf as InstanceType<typeof OpenAI.NotFoundError>).code, "model_not_found");
  t.equal((nf as InstanceType<typeof OpenAI.NotFoundError>).param, "model");
  const auth = await client("sk-wrong")
    .models.list()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  t.ok(auth instanceof OpenAI.AuthenticationError);
  t.equal((auth as InstanceType<typeof OpenAI.AuthenticationError>).code, "invalid_api_key");
  const res = await fetch(server.baseUrl + "/v1/models");
  t.equal(res.status, 401);
  const body = (await res.json()) as { error: Record<string, unknown> };
  t.same(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
});
