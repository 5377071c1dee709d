// The HTTP/1.1 listener under a flood of connections and slow clients
// (src/server/connection-limit.ts): idle connections past the cap are
// closed and health checks still answer, requests past the ordinary cap get
// the format's 503, a client slow to send its headers or its body is cut,
// an idle keep-alive connection is closed, and a long streamed answer is not.
import t from "tap";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { reserveConnections, serverTimeouts } from "../../src/server/connection-limit.js";
import { overloadedReply } from "../../src/server/bad-url.js";
import { ADMIN_KEY, startServer } from "../helpers/app.js";

/** Generous bound for anything the server should do "soon". */
const SOON_MS = 10_000;

interface Raw {
  socket: net.Socket;
  /** What the server sent, once it closed the connection. */
  closed: Promise<string>;
  isClosed(): boolean;
}

/** A TCP connection that sends `text` (nothing when empty) once connected. */
function raw(port: number, text = ""): Promise<Raw> {
  return new Promise((resolve, reject) => {
    let data = "";
    let done = false;
    const socket = net.connect(port, "127.0.0.1");
    const closed = new Promise<string>((r) => socket.on("close", () => ((done = true), r(data))));
    socket.on("data", (d) => (data += d));
    socket.on("error", () => undefined);
    socket.once("connect", () => {
      if (text) socket.write(text);
      resolve({ socket, closed, isClosed: () => done });
    });
    socket.once("error", reject);
  });
}

/** Resolves with `p`, or rejects after `ms`. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + SOON_MS;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${SOON_MS} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One request on a fresh connection. */
function request(port: number, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, method: opts.method ?? "GET", headers: opts.headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

t.test("sizes and Node's options", async (t) => {
  t.same([1, 2, 20, 100, 1000, 10_000].map(reserveConnections), [0, 1, 10, 16, 20, 200], "2%, at least 16, at most half");
  t.same(serverTimeouts({ headersTimeoutMs: 30_000, requestTimeoutMs: 300_000, keepAliveTimeoutMs: 72_000 }), {
    headersTimeout: 30_000,
    requestTimeout: 300_000,
    keepAliveTimeout: 72_000,
    connectionsCheckingInterval: 3000,
  });
  t.match(
    serverTimeouts({ headersTimeoutMs: 30_000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 5 }),
    { headersTimeout: 10_000, requestTimeout: 10_000, connectionsCheckingInterval: 1000 },
    "the headers are part of the request",
  );
  t.match(serverTimeouts({ headersTimeoutMs: 30_000, requestTimeoutMs: 0, keepAliveTimeoutMs: 5 }), { headersTimeout: 30_000, requestTimeout: 0, connectionsCheckingInterval: 3000 });
  t.match(serverTimeouts({ headersTimeoutMs: 0, requestTimeoutMs: 0, keepAliveTimeoutMs: 5 }), { connectionsCheckingInterval: 30_000 }, "none: Node's interval");
  t.match(serverTimeouts({ headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 5 }), { connectionsCheckingInterval: 100 });
});

t.test("the 503 is the format's", async (t) => {
  const msg = "The server has too many open connections; retry shortly.";
  t.same(overloadedReply("/v1/messages", "openai", "req_1"), { status: 529, body: { type: "error", error: { type: "overloaded_error", message: msg }, request_id: "req_1" } });
  t.same(overloadedReply("/v1/chat/completions", "openai", "req_1"), { status: 503, body: { error: { message: msg, type: "server_error", param: null, code: "overloaded" } } });
  t.match(overloadedReply("/v1beta/models/x:generateContent", "openai", "req_1"), { status: 503, body: { error: { code: 503, status: "UNAVAILABLE", message: msg } } });
  t.same(overloadedReply("/v1/video/generations", "openai", "req_1").body, { code: "overloaded", message: msg, param: "", type: "server_error" });
  t.same(overloadedReply("/ib/submit/imagine", "openai", "req_1"), { status: 503, body: { code: 23, description: msg, properties: {}, result: null } });
  t.same(overloadedReply("/trpc/x", "openai", "req_1"), { status: 503, body: { error: "Service Unavailable", message: msg, statusCode: 503 } });
});

t.test("idle connections past the cap: closed, health checks answer, the rest gets the format's 503", async (t) => {
  const max = 20; // 10 ordinary, 10 kept for health checks
  const s = await startServer({ config: { maxConnections: max } });
  const idle: Raw[] = [];
  t.teardown(() => {
    idle.forEach((c) => c.socket.destroy());
    return s.close();
  });
  const port = (s.app.server.address() as AddressInfo).port;
  for (let i = 0; i < 2 * max; i++) idle.push(await raw(port));
  await until(() => idle.filter((c) => c.isClosed()).length >= max, "the idle connections past the cap are closed");
  t.equal(idle.filter((c) => !c.isClosed()).length, max, "the cap holds");
  t.ok(
    idle.slice(0, max / 2).every((c) => !c.isClosed()),
    "ordinary connections are not evicted",
  );

  const health = await request(port, "/healthz");
  t.same([health.status, JSON.parse(health.body), health.headers.connection], [200, { status: "ok" }, "close"], "/healthz answers, on a connection then closed");
  const ready = await request(port, "/readyz");
  t.same([ready.status, JSON.parse(ready.body)], [200, { status: "ready" }]);

  const messages = await request(port, "/v1/messages", { method: "POST", headers: { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" }, body: "{}" });
  t.equal(messages.status, 529);
  t.match(JSON.parse(messages.body), { type: "error", error: { type: "overloaded_error" } }, "Anthropic's overloaded error");
  t.same([messages.headers.connection, messages.headers["retry-after"]], ["close", "1"]);
  const models = await request(port, "/v1/models", { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  t.equal(models.status, 503);
  t.match(JSON.parse(models.body), { error: { type: "server_error", code: "overloaded" } });

  for (const c of idle) c.socket.destroy();
  await until(() => idle.every((c) => c.isClosed()), "closed");
  // The server sees the closes a moment later: the ordinary slots come back.
  let after = 0;
  for (const end = Date.now() + SOON_MS; after !== 200 && Date.now() < end;) {
    after = (await request(port, "/v1/models", { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status;
  }
  t.equal(after, 200, "ordinary requests are served again");
});

t.test("when every reserve connection is busy, a new one is closed at once", async (t) => {
  const s = await startServer({ config: { maxConnections: 2 } }); // 1 ordinary, 1 reserve
  const opened: Raw[] = [];
  t.teardown(() => {
    opened.forEach((c) => c.socket.destroy());
    return s.close();
  });
  const port = (s.app.server.address() as AddressInfo).port;
  const ordinary = await raw(port);
  // The reserve connection asks a health path and then trickles its body: busy, not evictable.
  const busy = await raw(port, "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\na");
  opened.push(ordinary, busy);
  await new Promise((r) => setTimeout(r, 100));
  const late = await raw(port);
  opened.push(late);
  t.equal(await within(late.closed, SOON_MS, "the newcomer is closed"), "", "closed without an answer");
  t.notOk(ordinary.isClosed() || busy.isClosed(), "the others stay");
});

t.test("timeouts: slow headers and bodies are cut, keep-alive ends, a long stream is not cut", async (t) => {
  const s = await startServer({ config: { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, local: { chunkDelayMs: 40 } } as never });
  const opened: Raw[] = [];
  t.teardown(() => {
    opened.forEach((c) => c.socket.destroy());
    return s.close();
  });
  const port = (s.app.server.address() as AddressInfo).port;

  const silent = await raw(port);
  const partial = await raw(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n");
  const headers = `POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: ${ADMIN_KEY}\r\nanthropic-version: 2023-06-01\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n`;
  const trickle = await raw(port, headers + "{");
  opened.push(silent, partial, trickle);
  const drip = setInterval(() => trickle.socket.write(" "), 50);
  t.teardown(() => clearInterval(drip));
  const keepAlive = await raw(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  opened.push(keepAlive);
  const outcome = (c: Raw) => within(c.closed, SOON_MS, "closed").catch(() => "still open");
  const [a, b, c, d] = await Promise.all([silent, partial, trickle, keepAlive].map(outcome));
  clearInterval(drip);
  t.match(a, /^(HTTP\/1\.1 408 |$)/, "a connection that never sends a byte is closed");
  t.match(b, /^(HTTP\/1\.1 408 |$)/, "one that sends part of its headers is closed");
  t.match(c, /^(HTTP\/1\.1 408 |$)/, "one that trickles its body is closed");
  t.match(d, /^HTTP\/1\.1 200 [^]*"status":"ok"/, "an idle keep-alive connection is answered, then closed");

  // The local engine waits 40 ms before each text chunk, and echoes up to 400 characters: this lasts past the request timeout.
  const words = Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ");
  const res = await fetch(`${s.baseUrl}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({ model: "claude-sonnet-4-6", max_tokens: 4000, stream: true, messages: [{ role: "user", content: words }] }),
  });
  t.equal(res.status, 200);
  const text = await res.text();
  t.match(text, /event: message_stop/, "the stream ended with its last event");
  const deltas = [...text.matchAll(/"text_delta","text":"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
  t.equal(deltas.join(""), `You said: ${words}`, "the whole answer arrived");
  t.ok(deltas.length * 40 > 2 * 600, `${deltas.length} chunks 40 ms apart: it streamed for more than twice the request timeout`);
});
