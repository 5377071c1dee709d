// Browser pages calling the wire formats (src/server/cors.ts): the preflight
// the SDKs' headers cause is answered, every answer (streams included) names
// the origin a page may read it from and exposes the request id, a narrowed
// origin list is kept to, an empty one turns it off, and tRPC stays
// same-origin.
import t from "tap";
import { ADMIN_KEY, startServer } from "../helpers/app.js";
import { configSchema, loadConfig } from "../../src/config.js";

const ORIGIN = "https://app.example.com";
const messagesBody = JSON.stringify({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content: "hi" }] });
const anthropic = { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json", origin: ORIGIN };

const preflight = (base: string, path: string, headers: string, origin = ORIGIN) =>
  fetch(base + path, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": headers } });

t.test("any origin by default", async (t) => {
  const s = await startServer();
  t.teardown(() => s.close());

  const pre = await preflight(s.baseUrl, "/v1/messages", "anthropic-version,x-api-key,content-type,anthropic-dangerous-direct-browser-access,x-stainless-os");
  t.equal(pre.status, 204, "the Anthropic SDK's preflight");
  t.equal(pre.headers.get("access-control-allow-origin"), "*");
  t.match(pre.headers.get("access-control-allow-methods"), /POST/);
  t.equal(pre.headers.get("access-control-allow-headers"), "anthropic-version,x-api-key,content-type,anthropic-dangerous-direct-browser-access,x-stainless-os", "the headers asked for");
  t.equal(pre.headers.get("access-control-max-age"), "600");

  const gpre = await preflight(s.baseUrl, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "x-goog-api-key,content-type");
  t.same([gpre.status, gpre.headers.get("access-control-allow-origin")], [204, "*"], "the GenAI SDK's");

  const res = await fetch(`${s.baseUrl}/v1/messages`, { method: "POST", headers: anthropic, body: messagesBody });
  t.equal(res.status, 200);
  t.equal(res.headers.get("access-control-allow-origin"), "*");
  t.match(res.headers.get("access-control-expose-headers"), /request-id/, "a page may read the request id");
  await res.text();

  const stream = await fetch(`${s.baseUrl}/v1/messages`, { method: "POST", headers: anthropic, body: JSON.stringify({ ...JSON.parse(messagesBody), stream: true }) });
  t.equal(stream.headers.get("content-type"), "text/event-stream; charset=utf-8");
  t.equal(stream.headers.get("access-control-allow-origin"), "*", "a stream, whose headers are written by hand, carries it too");
  await stream.text();

  const err = await fetch(`${s.baseUrl}/v1/messages`, { method: "POST", headers: { ...anthropic, "x-api-key": "sk-wrong-0123456789" }, body: messagesBody });
  t.same([err.status, err.headers.get("access-control-allow-origin")], [401, "*"], "an error too, so the page can read why");

  const images = await fetch(`${s.baseUrl}/v1/images/generations`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json", origin: ORIGIN },
    body: "{",
  });
  t.same([images.status, images.headers.get("access-control-allow-origin")], [400, "*"]);

  const models = await preflight(s.baseUrl, "/v1/models", "x-api-key,anthropic-version");
  t.same([models.status, models.headers.get("access-control-allow-origin")], [204, "*"], "a shared /v1 path without a scope of its own");
  const modelsGet = await fetch(`${s.baseUrl}/v1/models`, { headers: { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01", origin: ORIGIN } });
  t.same([modelsGet.status, modelsGet.headers.get("access-control-allow-origin")], [200, "*"]);
  await modelsGet.text();
  const unknown = await fetch(`${s.baseUrl}/v1/assistants`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json", origin: ORIGIN },
    body: "{}",
  });
  t.same([unknown.status, unknown.headers.get("access-control-allow-origin")], [404, "*"], "a path nothing serves: the page can read the 404");
  await unknown.text();

  const trpc = await preflight(s.baseUrl, "/trpc/admin.keys.list", "authorization");
  t.equal(trpc.headers.get("access-control-allow-origin"), null, "tRPC stays same-origin");
});

t.test("a list of origins is kept to; none turns it off", async (t) => {
  const narrow = await startServer({ config: { corsOrigins: [ORIGIN, "http://localhost:5173"] } as never });
  t.teardown(() => narrow.close());
  const ok = await preflight(narrow.baseUrl, "/v1/messages", "x-api-key");
  t.equal(ok.headers.get("access-control-allow-origin"), ORIGIN);
  const other = await preflight(narrow.baseUrl, "/v1/messages", "x-api-key", "https://evil.example");
  t.equal(other.headers.get("access-control-allow-origin"), null, "another origin is not named");

  const off = await startServer({ config: { corsOrigins: [] } as never });
  t.teardown(() => off.close());
  const res = await fetch(`${off.baseUrl}/v1/messages`, { method: "POST", headers: anthropic, body: messagesBody });
  t.equal(res.status, 200);
  t.equal(res.headers.get("access-control-allow-origin"), null);
  await res.text();
});

t.test("configuration", async (t) => {
  t.same(configSchema.parse({}).corsOrigins, ["*"]);
  t.same(configSchema.parse({ corsOrigins: ["https://a.example:8443"] }).corsOrigins, ["https://a.example:8443"]);
  t.same(loadConfig({ OMNIGATE_CORS_ORIGINS: " https://a.example , http://localhost:5173 " }).corsOrigins, ["https://a.example", "http://localhost:5173"], "the environment: comma-separated");
  t.same(loadConfig({ OMNIGATE_CORS_ORIGINS: "none" }).corsOrigins, [], "none: off");
  t.same(loadConfig({ OMNIGATE_CORS_ORIGINS: "" }).corsOrigins, ["*"], "empty is unset, as for every variable");
  t.throws(() => loadConfig({ OMNIGATE_CORS_ORIGINS: "https://a.example/x" }), /OMNIGATE_CORS_ORIGINS|corsOrigins/);
  for (const bad of ["https://a.example/path", "a.example", "ftp://a.example", ""]) t.notOk(configSchema.safeParse({ corsOrigins: [bad] }).success, `refused: ${JSON.stringify(bad)}`);
});

t.test("a path nobody serves gets the same answer whatever its body or content type", async (t) => {
  const s = await startServer();
  t.teardown(() => s.close());
  const answer = async (path: string, init: RequestInit) => {
    const res = await fetch(s.baseUrl + path, init);
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null, allowOrigin: res.headers.get("access-control-allow-origin") };
  };
  const json = { "content-type": "application/json" };
  for (const path of ["/v1/assistants", "/v1/models", "/nowhere"]) {
    const plain = await answer(path, { method: "OPTIONS" });
    t.equal(plain.status, 404, `OPTIONS ${path}`);
    t.same(await answer(path, { method: "OPTIONS", headers: json }), plain, `OPTIONS ${path} with a JSON content type and no body: the same 404`);
  }
  const pre = { origin: ORIGIN, "access-control-request-method": "POST" };
  t.same(await answer("/v1/assistants", { method: "OPTIONS", headers: { ...pre, ...json } }), { status: 204, body: null, allowOrigin: "*" }, "a preflight with a content type is a preflight");
  t.same(
    await answer("/v1/assistants", { method: "POST", headers: { ...json, authorization: `Bearer ${ADMIN_KEY}` }, body: "" }),
    await answer("/v1/assistants", { method: "POST", headers: { ...json, authorization: `Bearer ${ADMIN_KEY}` }, body: "{}" }),
    "an empty body: the same 404 as a valid one",
  );
  const other = await answer("/healthz", { method: "POST", headers: json, body: "{" });
  t.equal(other.status, 404, "a route without that method is a path nobody serves too");
});
