// /v1/responses in the whole gateway: registered beside the other formats,
// scoped by its own format name, and a WebSocket upgrade on it answered 426
// (Codex then falls back to HTTP at once) on a real listening server.
import t from "tap";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";

let server: TestServer;
t.before(async () => {
  server = await startServer();
});
t.teardown(() => server.close());

/** Sends `request` on a raw socket and reads until the server closes it. */
function raw(request: string): Promise<{ text: string; closed: boolean }> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), "127.0.0.1", () => s.write(request));
    let text = "";
    s.setEncoding("utf8");
    s.on("data", (d: string) => (text += d));
    s.on("error", reject);
    s.on("close", () => resolve({ text, closed: true }));
    s.setTimeout(5000, () => {
      s.destroy();
      resolve({ text, closed: false });
    });
  });
}

const upgrade = (path: string) =>
  `GET ${path} HTTP/1.1\r\nhost: localhost\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n` +
  `openai-beta: responses_websockets=2026-02-06\r\nauthorization: Bearer ${ADMIN_KEY}\r\nx-request-id: req_ws_1\r\n\r\n`;

t.test("a WebSocket upgrade on /v1/responses is a 426 with connection: close", async (t) => {
  for (const path of ["/v1/responses", "/v1/responses?x=1"]) {
    const r = await raw(upgrade(path));
    t.ok(r.closed, "the server closes the connection");
    t.match(r.text, /^HTTP\/1\.1 426 Upgrade Required\r\n/, path);
    t.match(r.text, /\r\nconnection: close\r\n/i);
    t.match(r.text, /\r\nx-request-id: req_ws_1\r\n/i);
    t.match(JSON.parse(r.text.split("\r\n\r\n")[1]!), { error: { type: "invalid_request_error", code: "websocket_not_supported" } });
  }
  const other = await raw(upgrade("/v1/chat/completions"));
  t.same(other, { text: "", closed: true }, "other paths are dropped, as before");
  const ok = await fetch(`${server.baseUrl}/healthz`);
  t.equal(ok.status, 200, "the server goes on serving");
});

t.test("the sealing secret is kept in the data dir when none is configured", async (t) => {
  t.equal(readFileSync(path.join(server.dataDir, "seal-secret"), "utf8").trim(), server.deps.sealSecret);
});

t.test("POST /v1/responses through the whole gateway", async (t) => {
  const post = (body: unknown, key = ADMIN_KEY) =>
    fetch(`${server.baseUrl}/v1/responses`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  const res = await post({ model: "claude-sonnet-4-6", input: "Say hello", store: false });
  t.equal(res.status, 200);
  const body = (await res.json()) as { object: string; status: string; output: { type: string }[] };
  t.match(body, { object: "response", status: "completed" });
  t.equal(body.output.at(-1)?.type, "message");
  const stream = await post({ model: "claude-sonnet-4-6", input: "Say hello", stream: true, store: false });
  t.equal(stream.status, 200);
  const text = await stream.text();
  t.match(text, /^event: response\.created\n/);
  t.match(text, /event: response\.completed\n[^\n]*\n\n$/);
  const created = await fetch(`${server.baseUrl}/omnigate.admin.v1.AdminService/CreateKey`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ key: { name: "chat only", formats: ["openai-chat"] } }),
  });
  const { secret } = (await created.json()) as { secret: string };
  const scoped = await post({ model: "claude-sonnet-4-6", input: "hi" }, secret);
  t.equal(scoped.status, 403, "a key scoped to other formats");
  t.match(await scoped.json(), { error: { type: "invalid_request_error", message: /openai-responses/ } });
});
