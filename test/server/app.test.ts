import t from "tap";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";
import { requestId } from "../../src/server/app.js";
import { redactUrl } from "../../src/server/logger.js";
import { serializeError } from "../../src/server/log-serializers.js";

let server: TestServer;
t.before(async () => {
  server = await startServer();
});
t.teardown(() => server?.close());

t.test("every response carries a request-id; a safe incoming one is kept", async (t) => {
  const a = await fetch(`${server.baseUrl}/healthz`);
  t.match(a.headers.get("request-id"), /^req_[0-9a-f]{24}$/);
  const b = await fetch(`${server.baseUrl}/healthz`, { headers: { "x-request-id": "trace-123" } });
  t.equal(b.headers.get("request-id"), "trace-123");
  const c = await fetch(`${server.baseUrl}/healthz`, { headers: { "request-id": "bad id with spaces" } });
  t.match(c.headers.get("request-id"), /^req_/);
  t.equal(requestId({ headers: { "request-id": "x".repeat(200) } }).startsWith("req_"), true, "overlong ids are replaced");
});

t.test("metrics count HTTP routes and core RPCs", async (t) => {
  await fetch(`${server.baseUrl}/healthz`);
  await fetch(`${server.baseUrl}/omnigate.model.v1.ModelService/ListModels`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: "{}",
  });
  const res = await fetch(`${server.baseUrl}/metrics`);
  t.match(res.headers.get("content-type"), /text\/plain/);
  const text = await res.text();
  t.match(text, /omnigate_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
  t.match(text, /omnigate_http_request_duration_seconds_bucket\{le="[\d.]+",method="GET",route="\/healthz"\}/);
  t.match(text, /omnigate_rpc_requests_total\{service="omnigate.model.v1.ModelService",method="ListModels",code="ok"\} 1/);
  t.match(text, /omnigate_rpc_duration_seconds_count\{service="omnigate.model.v1.ModelService",method="ListModels"\} 1/);
});

t.test("the app's logger, and the request loggers made from it, log errors with the gateway's serializer", async (t) => {
  const serializers = (l: object) => (l as Record<symbol, { err?: unknown }>)[Symbol.for("pino.serializers")];
  t.equal(serializers(server.app.log)?.err, serializeError);
  t.equal(serializers(server.app.log.child({ requestId: "r" }))?.err, serializeError);
});

t.test("unknown paths are 404", async (t) => {
  const res = await fetch(`${server.baseUrl}/no/such/path`);
  t.equal(res.status, 404);
});

t.test("credentials in query strings are redacted from logs", async (t) => {
  t.equal(redactUrl("/v1beta/models/x:generateContent?key=secret&alt=sse"), "/v1beta/models/x:generateContent?key=[redacted]&alt=sse");
  t.equal(redactUrl("/a?alt=sse&KEY=s"), "/a?alt=sse&KEY=[redacted]");
  t.equal(redactUrl("/plain"), "/plain");
});

t.test("readyz reports ready, then 503 while shutting down (last: it closes idle connections)", async (t) => {
  const ok = await fetch(`${server.baseUrl}/readyz`);
  t.equal(ok.status, 200);
  server.deps.lifecycle.shuttingDown = true;
  const down = await fetch(`${server.baseUrl}/readyz`);
  t.equal(down.status, 503);
  server.deps.lifecycle.shuttingDown = false;
});
