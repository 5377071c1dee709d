// The stored-response routes (GET and DELETE /v1/responses/{id}, GET
// /v1/responses/{id}/input_items) on a bare fastify app: the real service on
// SQLite behind the real pipeline, a fake key check, app.inject for the wire
// shapes and the openai SDK over a loopback listener for what clients read.
import t from "tap";
import fastify, { type FastifyInstance } from "fastify";
import OpenAI from "openai";
import type { AddressInfo } from "node:net";
import { rmSync } from "node:fs";
import type { JsonObject } from "@bufbuild/protobuf";
import { StoredResponseService } from "../../../gen/omnigate/response/v1/response_pb.js";
import type { Authenticator } from "../../../src/core/auth/authenticator.js";
import type { CallInit, Principal } from "../../../src/core/call/call.js";
import { localClient } from "../../../src/core/call/client.js";
import { createPipeline } from "../../../src/core/call/pipeline.js";
import type { CoreClient } from "../../../src/core/call/service.js";
import { storedResponseService } from "../../../src/core/response/stored-response-service.js";
import type { CoreClients } from "../../../src/core/routes.js";
import { admission } from "../../../src/core/tenancy/admission.js";
import { budgets } from "../../../src/core/tenancy/budget.js";
import { memoryLimiter } from "../../../src/core/tenancy/limiter.js";
import { meters } from "../../../src/core/tenancy/meters.js";
import { EMPTY_PRICES } from "../../../src/core/tenancy/prices.js";
import { settlement } from "../../../src/core/tenancy/settlement.js";
import { inputItemsToStore, responseStore, RESPONSES_FORMAT, storedRoutes } from "../../../src/facades/openai-responses/stored.js";
import { errorDetail } from "../../../src/core/errors.js";
import { ConnectError } from "@connectrpc/connect";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import type { KeyStore } from "../../../src/storage/types.js";
import { tempDir } from "../../helpers/app.js";
import { principal } from "../../core/tenancy/fakes.js";

const KEYS: Record<string, Principal> = {
  "sk-a": principal({ keyId: "key_a" }),
  "sk-b": principal({ keyId: "key_b", admin: true }),
  "sk-chat-only": principal({ keyId: "key_c", formats: ["openai-chat"] }),
};

let app: FastifyInstance;
let responses: CoreClient<typeof StoredResponseService>;
let cleanup: () => Promise<void>;

t.before(async () => {
  const dir = tempDir("omnigate-stored-routes-");
  const storage = openSqliteStorage(dir);
  // "sk-slow" is a key the cache does not know: it is verified asynchronously.
  const auth = {
    cached: (k: string) => (k === "sk-slow" ? undefined : (KEYS[k] ?? null)),
    verify: async (k: string) => (k === "sk-slow" ? KEYS["sk-a"] : undefined),
    invalidate: () => undefined,
  } as unknown as Authenticator;
  const keys = { reserveCredits: async () => true, adjustSpent: async () => undefined } as unknown as KeyStore;
  const tenancy = { limiter: memoryLimiter(), budgets: budgets(keys), prices: EMPTY_PRICES, meters: meters() };
  const pipeline = createPipeline({ auth, admission: admission(tenancy), settlement: settlement(tenancy) });
  responses = localClient(StoredResponseService, storedResponseService({ store: storage.responses, retentionMs: 86_400_000, maxBytes: 1 << 20, now: Date.now }), pipeline);
  app = fastify({ logger: false });
  await app.register(storedRoutes({ core: { clients: { responses } as CoreClients }, auth }), { prefix: "/v1/responses" });
  await app.ready();
  cleanup = async () => {
    await app.close();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  };
});
t.teardown(() => cleanup());

const as = (key: string): CallInit => ({ apiKey: key, format: RESPONSES_FORMAT, requestId: "r", urlBase: "", signal: new AbortController().signal });
const auth = (key = "sk-a") => ({ authorization: `Bearer ${key}` });
const notFound = (id: string) => ({ error: { message: `Response with id '${id}' not found.`, type: "invalid_request_error", param: null, code: null } });

const RESPONSE: JsonObject = {
  id: "resp_r1",
  object: "response",
  created_at: 1_764_000_000,
  status: "completed",
  model: "gpt-x",
  output: [{ id: "msg_o1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Hello", annotations: [], logprobs: [] }] }],
  usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 },
  previous_response_id: null,
  metadata: {},
};

t.before(async () => {
  const input = inputItemsToStore([
    { role: "developer", content: "Be brief." },
    { type: "message", role: "user", content: [{ type: "input_text", text: "one" }], id: "msg_in1" },
    { role: "assistant", content: "earlier" },
    { type: "function_call_output", call_id: "c1", output: "42" },
    { type: "message", role: "user", content: [{ type: "input_text", text: "five" }] },
  ]);
  await responses.saveResponse({ id: "resp_r1", model: "gpt-x", status: "completed", response: RESPONSE, input, output: RESPONSE.output as JsonObject[] }, as("sk-a"));
});

t.test("inputItemsToStore (pure)", async (t) => {
  t.same(inputItemsToStore("Hi"), [{ type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] }], "a string input is one user message");
  t.same(
    inputItemsToStore([
      { role: "assistant", content: "A" },
      { type: "message", role: "user", content: "U" },
      { type: "reasoning", id: "rs_1", summary: [] },
    ]),
    [
      { role: "assistant", type: "message", content: [{ type: "output_text", text: "A" }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "U" }] },
      { type: "reasoning", id: "rs_1", summary: [] },
    ],
    "string contents become a text part; other items stay as they are",
  );
});

t.test("responseStore: what a POST saves and continues from", async (t) => {
  const store = responseStore(responses);
  const first: JsonObject = {
    id: "resp_p1",
    object: "response",
    created_at: 1_764_000_000,
    status: "completed",
    model: "gpt-x",
    output: [{ id: "msg_p1", type: "message", role: "assistant", content: [] }],
  };
  await store.save({ input: "Hi" }, first, as("sk-a"));
  const saved = await responses.getResponse({ id: "resp_p1" }, as("sk-a"));
  t.same(saved.response?.response, first);
  t.same({ model: saved.response?.model, status: saved.response?.status, created: Number(saved.response?.createTime?.seconds) }, { model: "gpt-x", status: "completed", created: 1_764_000_000 });
  const second: JsonObject = { id: "resp_p2", status: "completed", model: "gpt-x", output: [{ id: "msg_p2", type: "message" }] };
  const sealed: JsonObject = { id: "rs_p2", type: "reasoning", summary: [], encrypted_content: "og1.x" };
  await store.save({ input: [{ role: "user", content: "Again" }], previous_response_id: "resp_p1" }, second, as("sk-a"), [sealed, { id: "msg_p2", type: "message" }]);
  const items = await store.context("resp_p2", as("sk-a"));
  t.same(
    items.map((i) => [i.type, i.role ?? "", (i.id as string).replace(/^msg_[0-9a-f]{48}$/, "msg_new")]),
    [
      ["message", "user", "msg_new"],
      ["message", "assistant", "msg_p1"],
      ["message", "user", "msg_new"],
      ["reasoning", "", "rs_p2"],
      ["message", "", "msg_p2"],
    ],
    "the first exchange, then the second, with the output given for the context",
  );
  const e = await store.context("resp_p2", as("sk-b")).catch((err: unknown) => err);
  t.ok(e instanceof ConnectError);
  t.same(
    { reason: errorDetail(e as ConnectError)?.reason, field: errorDetail(e as ConnectError)?.field, message: (e as ConnectError).rawMessage },
    { reason: "previous_response_not_found", field: "previous_response_id", message: "Previous response with id 'resp_p2' not found." },
    "another key's: not found, named as the client named it",
  );
  await t.rejects(store.context("resp_p2", as("sk-wrong")), { code: 16 }, "other errors pass as they are");
});

t.test("the key comes first, in OpenAI's shape", async (t) => {
  const none = await app.inject({ method: "GET", url: "/v1/responses/resp_r1" });
  t.equal(none.statusCode, 401);
  t.match(none.json(), { error: { type: "invalid_request_error", code: "invalid_api_key", param: null, message: /didn't provide an API key/ } });
  t.ok(none.headers["x-request-id"], "x-request-id on every answer");
  for (const [method, url] of [
    ["GET", "/v1/responses/resp_r1"],
    ["DELETE", "/v1/responses/resp_r1"],
    ["GET", "/v1/responses/resp_r1/input_items"],
  ] as const) {
    const r = await app.inject({ method, url, headers: auth("sk-wrong") });
    t.equal(r.statusCode, 401, `${method} ${url}`);
    t.equal(r.json().error.code, "invalid_api_key");
  }
  const slow = await app.inject({ method: "GET", url: "/v1/responses/resp_r1", headers: auth("sk-slow") });
  t.equal(slow.statusCode, 200, "a key verified asynchronously");
  const scoped = await app.inject({ method: "GET", url: "/v1/responses/resp_r1", headers: auth("sk-chat-only") });
  t.equal(scoped.statusCode, 403, "a key scoped to other formats");
  t.equal(scoped.json().error.code, "format_not_allowed");
});

t.test("GET /v1/responses/{id}", async (t) => {
  const r = await app.inject({ method: "GET", url: "/v1/responses/resp_r1", headers: auth() });
  t.equal(r.statusCode, 200);
  t.match(r.headers["content-type"], /^application\/json/);
  t.same(r.json(), RESPONSE, "the Response object as the client got it");
  t.ok(r.headers["x-request-id"]);
  const other = await app.inject({ method: "GET", url: "/v1/responses/resp_r1", headers: auth("sk-b") });
  t.equal(other.statusCode, 404, "another key's response is not there");
  t.same(other.json(), notFound("resp_r1"), "OpenAI's 404, exactly");
  const missing = await app.inject({ method: "GET", url: "/v1/responses/resp_x", headers: auth() });
  t.same({ status: missing.statusCode, body: missing.json() }, { status: 404, body: notFound("resp_x") });
  const odd = await app.inject({ method: "GET", url: "/v1/responses/" + encodeURIComponent("not an id"), headers: auth() });
  t.same({ status: odd.statusCode, body: odd.json() }, { status: 404, body: notFound("not an id") });
  const streamed = await app.inject({ method: "GET", url: "/v1/responses/resp_r1?stream=true", headers: auth() });
  t.equal(streamed.statusCode, 400, "no stored response can be streamed again");
  t.equal(streamed.json().error.param, "stream");
  t.equal((await app.inject({ method: "GET", url: "/v1/responses/resp_r1?include[]=message.output_text.logprobs", headers: auth() })).statusCode, 200, "include is accepted");
});

t.test("GET /v1/responses/{id}/input_items", async (t) => {
  const list = async (query = "", key = "sk-a") => app.inject({ method: "GET", url: `/v1/responses/resp_r1/input_items${query}`, headers: auth(key) });
  const all = (await list("?order=asc")).json();
  t.equal(all.object, "list");
  t.equal(all.data.length, 5);
  const ids = all.data.map((i: JsonObject) => i.id as string);
  t.equal(ids[1], "msg_in1", "a given id is kept");
  for (const i of [0, 2, 4]) t.match(ids[i], /^msg_[0-9a-f]{48}$/, "messages get msg_ ids");
  t.match(ids[3], /^item_[0-9a-f]{48}$/);
  t.same(all.data[0], { id: ids[0], role: "developer", type: "message", content: [{ type: "input_text", text: "Be brief." }] }, "a message with a string content is listed with a text part");
  t.same({ first: all.first_id, last: all.last_id, more: all.has_more }, { first: ids[0], last: ids[4], more: false });

  const desc = (await list()).json();
  t.same(
    desc.data.map((i: JsonObject) => i.id),
    [...ids].reverse(),
    "desc by default",
  );
  const page = (await list(`?limit=2&after=${ids[3]}`)).json();
  t.same({ data: page.data.map((i: JsonObject) => i.id), first: page.first_id, last: page.last_id, more: page.has_more }, { data: [ids[2], ids[1]], first: ids[2], last: ids[1], more: true });
  const last = (await list(`?order=asc&limit=2&after=${ids[3]}`)).json();
  t.same({ data: last.data.map((i: JsonObject) => i.id), more: last.has_more }, { data: [ids[4]], more: false });
  const empty = (await list(`?order=asc&after=${ids[4]}`)).json();
  t.same(empty, { object: "list", data: [], first_id: null, last_id: null, has_more: false }, "an empty page names no ids");

  for (const [query, param, code] of [
    ["?limit=0", "limit", "integer_below_min_value"],
    ["?limit=101", "limit", "integer_above_max_value"],
    ["?limit=abc", "limit", "invalid_type"],
    ["?limit=1&limit=2", "limit", "invalid_type"],
    ["?order=up", "order", "invalid_value"],
    ["?after=msg_nope", "after", "invalid_value"],
  ] as const) {
    const r = await list(query);
    t.equal(r.statusCode, 400, query);
    t.match(r.json(), { error: { type: "invalid_request_error", param, code } }, query);
  }
  const other = await list("", "sk-b");
  t.same({ status: other.statusCode, body: other.json() }, { status: 404, body: notFound("resp_r1") }, "another key's: 404");
});

t.test("DELETE /v1/responses/{id}", async (t) => {
  await responses.saveResponse({ id: "resp_del", model: "m", status: "completed", response: { id: "resp_del" }, input: [], output: [] }, as("sk-a"));
  const other = await app.inject({ method: "DELETE", url: "/v1/responses/resp_del", headers: auth("sk-b") });
  t.same({ status: other.statusCode, body: other.json() }, { status: 404, body: notFound("resp_del") }, "another key cannot delete it");
  const r = await app.inject({ method: "DELETE", url: "/v1/responses/resp_del", headers: auth() });
  t.equal(r.statusCode, 200);
  t.same(r.json(), { id: "resp_del", object: "response", deleted: true });
  t.equal((await app.inject({ method: "GET", url: "/v1/responses/resp_del", headers: auth() })).statusCode, 404, "gone");
  const again = await app.inject({ method: "DELETE", url: "/v1/responses/resp_del", headers: auth() });
  t.same({ status: again.statusCode, body: again.json() }, { status: 404, body: notFound("resp_del") });
});

t.test("the openai SDK reads them", async (t) => {
  const server = fastify({ logger: false });
  // The same routes on a listener of their own: the SDK needs a socket.
  await server.register(storedRoutes({ core: { clients: { responses } as CoreClients }, auth: { cached: (k: string) => KEYS[k] ?? null } as unknown as Authenticator }), {
    prefix: "/v1/responses",
  });
  await server.listen({ port: 0, host: "127.0.0.1" });
  t.teardown(() => server.close());
  const client = (key = "sk-a") => new OpenAI({ apiKey: key, baseURL: `http://127.0.0.1:${(server.server.address() as AddressInfo).port}/v1`, maxRetries: 0 });

  const got = await client().responses.retrieve("resp_r1");
  t.equal(got.id, "resp_r1");
  t.equal(got.output_text, "Hello", "the SDK's output_text");
  const items: string[] = [];
  for await (const item of client().responses.inputItems.list("resp_r1", { limit: 2, order: "asc" })) items.push(item.id);
  t.equal(items.length, 5, "the SDK pages through every item (after = the last id)");
  t.equal(items[1], "msg_in1");

  const nf = await client("sk-b")
    .responses.retrieve("resp_r1")
    .catch((e: unknown) => e);
  t.ok(nf instanceof OpenAI.NotFoundError, "another key's: NotFoundError");
  t.equal((nf as InstanceType<typeof OpenAI.NotFoundError>).message, "404 Response with id 'resp_r1' not found.");

  await responses.saveResponse({ id: "resp_sdk", model: "m", status: "completed", response: { id: "resp_sdk" }, input: [], output: [] }, as("sk-a"));
  // Typed void in the SDK, which hands back the parsed body all the same.
  t.same((await client().responses.delete("resp_sdk")) as unknown, { id: "resp_sdk", object: "response", deleted: true }, "delete resolves");
  t.ok(
    (await client()
      .responses.delete("resp_sdk")
      .catch((e: unknown) => e)) instanceof OpenAI.NotFoundError,
  );
});
