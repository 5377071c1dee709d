// The Messages edge at the HTTP level, where no SDK would send what we test:
// malformed bodies, missing headers, unknown routes, the SSE bytes, and the
// abort of the core call when the client goes away.
import t, { type Test } from "tap";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";
import { apiKeyOf, betasOf } from "../../../src/facades/messages/plugin.js";
import { MODEL } from "./sdks.js";

let server: TestServer;
let small: TestServer;
let slow: TestServer;
t.before(async () => {
  server = await startServer();
  small = await startServer({ config: { bodyLimitBytes: 2048 } });
  slow = await startServer({ config: { local: { chunkDelayMs: 40 } } as never });
});
t.teardown(async () => {
  await Promise.all([server.close(), small.close(), slow.close()]);
});

const HEADERS = { "content-type": "application/json", "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01" };
const BODY = { model: MODEL, max_tokens: 50, messages: [{ role: "user", content: "hi" }] };

async function post(base: string, path: string, body: unknown, headers: Record<string, string> | Headers = HEADERS) {
  const res = await fetch(base + path, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  return {
    res,
    text,
    json: (() => {
      try {
        return JSON.parse(text) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    })(),
  };
}

/** The Anthropic error envelope, with the same request id in body and header. */
function isError(t: Test, r: Awaited<ReturnType<typeof post>>, status: number, type: string) {
  t.equal(r.res.status, status, "status");
  t.match(r.res.headers.get("content-type"), /^application\/json/);
  t.same(Object.keys(r.json ?? {}).sort(), ["error", "request_id", "type"]);
  t.equal(r.json?.type, "error");
  t.equal((r.json?.error as { type?: string } | undefined)?.type, type);
  t.type((r.json?.error as { message?: string } | undefined)?.message, "string");
  t.equal(r.json?.request_id, r.res.headers.get("request-id"));
}

t.test("key and beta header parsing (pure)", async (t) => {
  t.equal(apiKeyOf({ "x-api-key": "k1" }), "k1");
  t.equal(apiKeyOf({ authorization: "Bearer k2" }), "k2");
  t.equal(apiKeyOf({ "x-api-key": "k1", authorization: "Bearer k2" }), "k1", "x-api-key wins");
  t.equal(apiKeyOf({ "x-api-key": " " }), undefined);
  t.equal(apiKeyOf({ authorization: "Basic abc" }), undefined);
  t.same(betasOf({ "anthropic-beta": "a, b,,c" }), ["a", "b", "c"]);
  t.same(betasOf({ "anthropic-beta": ["a", "b,c"] } as never), ["a", "b", "c"]);
  t.same(betasOf({}), []);
});

t.test("malformed JSON -> 400", async (t) => {
  const r = await post(server.baseUrl, "/v1/messages", '{"model": "x", ');
  isError(t, r, 400, "invalid_request_error");
  t.match((r.json!.error as { message: string }).message, /parsing the body/);
});

t.test("wrong content-type -> 400", async (t) => {
  isError(t, await post(server.baseUrl, "/v1/messages", JSON.stringify(BODY), { ...HEADERS, "content-type": "text/plain" }), 400, "invalid_request_error");
  isError(t, await post(server.baseUrl, "/v1/messages", "a=b", { ...HEADERS, "content-type": "application/x-www-form-urlencoded" }), 400, "invalid_request_error");
});

t.test("empty body and non-object bodies -> 400", async (t) => {
  isError(t, await post(server.baseUrl, "/v1/messages", ""), 400, "invalid_request_error");
  isError(t, await post(server.baseUrl, "/v1/messages", "[1,2]"), 400, "invalid_request_error");
  isError(t, await post(server.baseUrl, "/v1/messages", "null"), 400, "invalid_request_error");
  isError(t, await post(server.baseUrl, "/v1/messages/count_tokens", '"text"'), 400, "invalid_request_error");
});

t.test("missing headers", async (t) => {
  const noKey = await post(server.baseUrl, "/v1/messages", BODY, { "content-type": "application/json", "anthropic-version": "2023-06-01" });
  isError(t, noKey, 401, "authentication_error");
  const noVersion = await post(server.baseUrl, "/v1/messages", BODY, { "content-type": "application/json", "x-api-key": ADMIN_KEY });
  isError(t, noVersion, 400, "invalid_request_error");
  t.match((noVersion.json!.error as { message: string }).message, /anthropic-version/);
  isError(t, await post(server.baseUrl, "/v1/messages", BODY, { ...HEADERS, "x-api-key": "sk-wrong" }), 401, "authentication_error");
});

t.test("Bearer auth, any version, ?beta=true and repeated anthropic-beta headers", async (t) => {
  const h = new Headers({ "content-type": "application/json", authorization: `Bearer ${ADMIN_KEY}`, "anthropic-version": "2026-10-21" });
  h.append("anthropic-beta", "a-2025-01-01");
  h.append("anthropic-beta", "b-2025-01-01,c-2025-01-01");
  const r = await post(server.baseUrl, "/v1/messages?beta=true", BODY, h);
  t.equal(r.res.status, 200);
  t.equal(r.json?.type, "message");
});

t.test("unknown routes under /v1/messages -> 404 in the Anthropic shape", async (t) => {
  isError(t, await post(server.baseUrl, "/v1/messages/batches/nope", BODY), 404, "not_found_error");
  const get = await fetch(server.baseUrl + "/v1/messages", { headers: HEADERS });
  const body = (await get.json()) as { type: string; error: { type: string } };
  t.equal(get.status, 404);
  t.equal(body.error.type, "not_found_error");
});

t.test("oversize body -> 413 request_too_large", async (t) => {
  const r = await post(small.baseUrl, "/v1/messages", { ...BODY, messages: [{ role: "user", content: "x".repeat(10_000) }] });
  isError(t, r, 413, "request_too_large");
});

t.test("the stream is decided by the body, not by Accept", async (t) => {
  const sse = await post(server.baseUrl, "/v1/messages", { ...BODY, stream: true }, { ...HEADERS, accept: "application/json" });
  t.equal(sse.res.status, 200);
  t.match(sse.res.headers.get("content-type"), /^text\/event-stream/);
  t.match(sse.res.headers.get("request-id"), /^req_/);
  t.equal(sse.res.headers.get("x-accel-buffering"), "no", "proxies in front are told not to buffer the stream");
  const frames = sse.text.split("\n\n").filter(Boolean);
  t.ok(frames.length >= 7);
  for (const f of frames) t.match(f, /^event: (\w+)\ndata: \{"type":"\1"/, "every frame has an event line naming its type");
  t.match(frames[0], /^event: message_start/);
  t.match(frames.at(-1), /^event: message_stop/);
  const json = await post(server.baseUrl, "/v1/messages", BODY, { ...HEADERS, accept: "text/event-stream" });
  t.match(json.res.headers.get("content-type"), /^application\/json/);
  t.equal(json.json?.type, "message");
  const metrics = await (await fetch(server.baseUrl + "/metrics")).text();
  t.match(metrics, /omnigate_http_requests_total\{method="POST",route="\/v1\/messages",status="200"\} [1-9]/, "the streamed response is counted like any other");
  t.match(metrics, /omnigate_rpc_requests_total\{service="omnigate.chat.v1.ChatService",method="StreamGenerate",code="ok"\} [1-9]/, "so is its core call");
});

t.test("count_tokens", async (t) => {
  const r = await post(server.baseUrl, "/v1/messages/count_tokens", { model: MODEL, messages: BODY.messages });
  t.equal(r.res.status, 200);
  t.same(Object.keys(r.json ?? {}), ["input_tokens"]);
  const m = await post(server.baseUrl, "/v1/messages", BODY);
  t.equal(r.json?.input_tokens, (m.json?.usage as { input_tokens: number } | undefined)?.input_tokens);
});

t.test("a client that goes away mid-stream aborts the core call", async (t) => {
  const ac = new AbortController();
  const long = Array.from({ length: 120 }, (_, i) => `word${i}`).join(" ");
  const res = await fetch(slow.baseUrl + "/v1/messages", {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({ ...BODY, max_tokens: 4000, stream: true, messages: [{ role: "user", content: long }] }),
    signal: ac.signal,
  });
  t.equal(res.status, 200);
  const rid = res.headers.get("request-id")!;
  const reader = res.body!.getReader();
  await reader.read();
  ac.abort();
  await reader.read().catch(() => undefined);
  // The core records the call when it ends; had it not been aborted it would
  // run for seconds and end with its final usage (output tokens > 0).
  let row;
  for (let i = 0; i < 400 && !row; i++) {
    row = (await slow.deps.storage.usage.query({ format: "messages" })).rows.find((r) => r.requestId === rid);
    if (!row) await new Promise((r) => setTimeout(r, 25));
  }
  t.ok(row, "the core call ended");
  t.equal(row?.outputTokens, 0, "it ended before the answer was complete");
});
