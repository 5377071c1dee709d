// A URL the router cannot take (a % that does not decode, a path segment over
// maxParamLength) is answered in the format of the path's owner, not with
// fastify's own body: the table (pure), then through a running gateway.
import t from "tap";
import { badUrlMessage, badUrlReply, unknownUrlReply } from "../../src/server/bad-url.js";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";

const MSG = "Invalid URL: 'x' is not a valid URL path.";

t.test("the table: the prefix picks the format, /v1 alone goes by the caller's wire", async (t) => {
  const anthropic = { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: MSG }, request_id: "req_1" } };
  const openai = { status: 400, body: { error: { message: MSG, type: "invalid_request_error", param: null, code: "invalid_url" } } };
  const google = (b: { status: number; body: unknown }) => {
    t.equal(b.status, 400);
    t.match(b.body, { error: { code: 400, status: "INVALID_ARGUMENT", message: MSG } });
  };
  t.same(badUrlReply("/v1/messages/%ZZ", "openai", "req_1", MSG), anthropic, "/v1/messages is Anthropic's whatever the headers");
  t.same(badUrlReply("/v1/images/%ZZ", "gemini", "req_1", MSG), openai);
  t.same(badUrlReply("/v1/videos/%ZZ?limit=1", "openai", "req_1", MSG), openai);
  t.same(badUrlReply("/v1/video/generations/%ZZ", "openai", "req_1", MSG), { status: 400, body: { code: "invalid_url", message: MSG, param: "", type: "invalid_request_error" } });
  t.same(badUrlReply("/ib/task/%ZZ/fetch", "openai", "req_1", MSG), { status: 400, body: { code: 21, description: MSG, properties: {}, result: null } });
  t.same(badUrlReply("/mj/task/%ZZ/fetch", "openai", "req_1", MSG).body, { code: 21, description: MSG, properties: {}, result: null });
  google(badUrlReply("/v1beta/models/%ZZ", "openai", "req_1", MSG));
  google(badUrlReply("/v1/models/%ZZ", "gemini", "req_1", MSG));
  t.same(badUrlReply("/v1/models/%ZZ", "anthropic", "req_1", MSG), anthropic);
  t.same(badUrlReply("/v1/models/%ZZ", "openai", "req_1", MSG), openai);
  t.same(badUrlReply("/v1", "openai", "req_1", MSG), openai);
  t.same(badUrlReply("/v1messages/%ZZ", "anthropic", "req_1", MSG).body, { error: "Bad Request", message: MSG, statusCode: 400 }, "a prefix is a whole path segment");
  t.same(badUrlReply("/trpc/%ZZ", "openai", "req_1", MSG), { status: 400, body: { error: "Bad Request", message: MSG, statusCode: 400 } }, "no format owns it: a plain 400");
});

t.test("unknown paths: the 404 of the format whose client sent it", async (t) => {
  t.same(unknownUrlReply("/v1/chat/completions?x=1", "openai", "req_1", "POST"), {
    status: 404,
    body: { error: { message: "Invalid URL (POST /v1/chat/completions)", type: "invalid_request_error", param: null, code: "unknown_url" } },
  });
  t.same(unknownUrlReply("/v1/complete", "anthropic", "req_1", "POST"), {
    status: 404,
    body: { type: "error", error: { type: "not_found_error", message: "Invalid URL (POST /v1/complete)" }, request_id: "req_1" },
  });
  t.match(unknownUrlReply("/v1/models/x:embedContent", "gemini", "req_1", "POST"), { status: 404, body: { error: { code: 404, status: "NOT_FOUND" } } });
  t.same(unknownUrlReply("/v1/video/generations/x/y", "openai", "req_1", "GET").body, {
    code: "unknown_url",
    message: "Invalid URL (GET /v1/video/generations/x/y)",
    param: "",
    type: "not_found_error",
  });
  t.same(unknownUrlReply("/nowhere", "openai", "req_1", "GET"), { status: 404, body: { error: "Not Found", message: "Invalid URL (GET /nowhere)", statusCode: 404 } });
  t.equal(
    (unknownUrlReply("/v1/" + "x".repeat(500), "openai", "req_1", "GET").body as { error: { message: string } }).error.message.length,
    "Invalid URL (GET )".length + 200,
    "a long path is cut short",
  );
});

t.test("the message", async (t) => {
  t.match(badUrlMessage("FST_ERR_BAD_URL", "/v1/videos/%ZZ"), /^Invalid URL: '\/v1\/videos\/%ZZ' is not a valid URL path/);
  t.match(badUrlMessage("FST_ERR_MAX_PARAM_LENGTH", "/ib/task/" + "9".repeat(6000)), /^Invalid URL: a path segment of '\/ib\/task\/9{191}\.\.\.' is too long\.$/, "a long path is cut short");
  t.equal(badUrlMessage("FST_ERR_ASYNC_CONSTRAINT", "/x"), undefined, "not a URL problem: left to fastify");
  t.equal(badUrlMessage(undefined, "/x"), undefined);
});

let server: TestServer;
t.before(async () => {
  server = await startServer();
});
t.teardown(() => server.close());

t.test("through the gateway: each format's client reads its own error", async (t) => {
  const get = async (path: string, headers: Record<string, string>) => {
    const res = await fetch(server.baseUrl + path, { headers });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, requestId: res.headers.get("request-id") };
  };
  const bearer = { authorization: `Bearer ${ADMIN_KEY}` };
  const long = "9".repeat(5001);

  const ib = await get("/ib/task/%ZZ/fetch", bearer);
  t.same([ib.status, ib.body.code, ib.body.result], [400, 21, null]);
  t.match(ib.body.description, /not a valid URL path/);
  const ibLong = await get(`/ib/task/${long}/fetch`, bearer);
  t.same([ibLong.status, ibLong.body.code], [400, 21], "a segment over 5,000 characters");
  t.match(ibLong.body.description, /too long/);

  const videos = await get("/v1/videos/%ZZ", bearer);
  t.equal(videos.status, 400);
  t.match(videos.body, { error: { type: "invalid_request_error", param: null, code: "invalid_url", message: /not a valid URL path/ } });
  const task = await get("/v1/video/generations/%ZZ", bearer);
  t.same(Object.keys(task.body).sort(), ["code", "message", "param", "type"]);

  const images = await get("/v1/images/%E0%A4%A", bearer);
  t.match([images.status, images.body], [400, { error: { code: "invalid_url" } }]);

  const gemini = await get("/v1beta/models/%E0%A4%A", { "x-goog-api-key": ADMIN_KEY });
  t.match([gemini.status, gemini.body], [400, { error: { code: 400, status: "INVALID_ARGUMENT" } }]);
  const geminiV1 = await get("/v1/models/%ZZ", { "x-goog-api-key": ADMIN_KEY });
  t.match(geminiV1.body, { error: { code: 400, status: "INVALID_ARGUMENT" } }, "/v1/models with a Gemini key: Google's shape");

  const anthropic = await get("/v1/models/%ZZ", { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01" });
  t.match([anthropic.status, anthropic.body], [400, { type: "error", error: { type: "invalid_request_error" } }]);
  t.equal(anthropic.body.request_id, anthropic.requestId, "the body's request id is the response header's");
  const messages = await get("/v1/messages/%ZZ", {});
  t.match(messages.body, { type: "error", error: { type: "invalid_request_error" } });

  const openai = await get("/v1/models/%ZZ", bearer);
  t.match(openai.body, { error: { code: "invalid_url" } });
});

t.test("through the gateway: a path nobody owns", async (t) => {
  const send = async (method: string, path: string, headers: Record<string, string>) => {
    const res = await fetch(server.baseUrl + path, { method, headers: { ...headers, "content-type": "application/json" }, ...(method === "POST" ? { body: "{}" } : {}) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const chat = await send("POST", "/v1/assistants", { authorization: `Bearer ${ADMIN_KEY}` });
  t.match(chat, { status: 404, body: { error: { code: "unknown_url", message: "Invalid URL (POST /v1/assistants)" } } }, "the OpenAI SDK's Assistants path: OpenAI's 404");
  const models = await send("POST", "/v1/models", { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01" });
  t.match(models, { status: 404, body: { type: "error", error: { type: "not_found_error" } } });
  const embed = await send("POST", "/v1/models/imagen-4:predict", { "x-goog-api-key": ADMIN_KEY });
  t.match(embed, { status: 404, body: { error: { code: 404, status: "NOT_FOUND" } } });
  const elsewhere = await send("GET", "/nowhere", {});
  t.match(elsewhere, { status: 404, body: { error: "Not Found", statusCode: 404 } });
});
