// Compressed request bodies on the facades (src/server/request-encoding.ts):
// gzip, deflate and br are read as the body they compress, under the body
// limit as decompressed; a body that does not decompress or an encoding not
// known is each format's invalid-body 400; multipart is left as it came; and
// Connect, which compresses on the same header itself, is outside the scope.
import t from "tap";
import { connect } from "node:net";
import { gzipSync, brotliCompressSync, deflateSync } from "node:zlib";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ChatService, Role } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { decoderFor } from "../../src/server/request-encoding.js";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";

t.test("decoderFor", async (t) => {
  t.equal(decoderFor(undefined), null);
  t.equal(decoderFor(""), null);
  t.equal(decoderFor(" Identity "), null);
  for (const e of ["gzip", "x-gzip", "GZIP", "deflate", "br"]) t.ok(decoderFor(e), e);
  t.equal(decoderFor("compress"), undefined);
  t.equal(decoderFor("gzip, br"), undefined, "stacked encodings are not taken");
});

let server: TestServer;
t.before(async () => {
  server = await startServer({ config: { bodyLimitBytes: 1024 * 1024 } as never });
});
t.teardown(() => server.close());

const anthropic = { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" };
const google = { "x-goog-api-key": ADMIN_KEY, "content-type": "application/json" };
const bearer = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
const messageBody = Buffer.from(JSON.stringify({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content: "hi there" }] }));
const geminiBody = Buffer.from(JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi there" }] }] }));

async function post(path: string, headers: Record<string, string>, body: Buffer, encoding?: string) {
  const res = await fetch(server.baseUrl + path, { method: "POST", headers: { ...headers, ...(encoding ? { "content-encoding": encoding } : {}) }, body, signal: AbortSignal.timeout(20_000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

t.test("gzip, deflate and br bodies are read as the body they compress", async (t) => {
  for (const [enc, z] of [
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ] as const) {
    const m = await post("/v1/messages", anthropic, z(messageBody), enc);
    t.equal(m.status, 200, `messages, ${enc}`);
    t.match(m.body, { type: "message", content: [{ type: "text", text: "You said: hi there" }] });
    const g = await post("/v1beta/models/gemini-2.5-flash:generateContent", google, z(geminiBody), enc);
    t.match([g.status, g.body], [200, { candidates: [{ content: { parts: [{ text: "You said: hi there" }] } }] }], `generate-content, ${enc}`);
  }
  const ib = await post("/ib/submit/imagine", bearer, gzipSync(Buffer.from(JSON.stringify({ prompt: "a lighthouse" }))), "gzip");
  t.match([ib.status, ib.body], [200, { code: 1 }], "image-bot");
  const plain = await post("/v1/messages", anthropic, messageBody, "identity");
  t.equal(plain.status, 200, "identity is no encoding");
});

t.test("the body limit counts the bytes after decompression", async (t) => {
  // About 2 MB of JSON in about 2 KB of gzip, against a 1 MB limit.
  const bomb = gzipSync(Buffer.from(JSON.stringify({ ...JSON.parse(messageBody.toString()), metadata: { user_id: "x".repeat(2_000_000) } })));
  t.ok(bomb.length < (1024 * 1024) / 100, "the compressed body is small");
  const m = await post("/v1/messages", anthropic, bomb, "gzip");
  t.match([m.status, m.body], [413, { type: "error", error: { type: "request_too_large" } }]);
  const g = await post("/v1beta/models/gemini-2.5-flash:generateContent", google, bomb, "gzip");
  t.match([g.status, g.body], [413, { error: { code: 413 } }]);
  const ib = await post("/ib/submit/imagine", bearer, bomb, "gzip");
  t.match([ib.status, ib.body], [400, { code: 21, description: /too large/ }]);
});

t.test("a body that does not decompress, or an unknown encoding: the format's invalid-body 400, naming why", async (t) => {
  const m = await post("/v1/messages", anthropic, Buffer.from("not gzip at all"), "gzip");
  t.match([m.status, m.body], [400, { type: "error", error: { type: "invalid_request_error", message: /not valid gzip data/ } }]);
  const g = await post("/v1beta/models/gemini-2.5-flash:generateContent", google, Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01]), "gzip");
  t.match([g.status, g.body], [400, { error: { code: 400, status: "INVALID_ARGUMENT", message: /not valid gzip data/ } }], "a truncated gzip stream");
  const unknown = await post("/v1/messages", anthropic, messageBody, "compress");
  t.match([unknown.status, unknown.body], [400, { error: { message: /Unsupported Content-Encoding 'compress'.*gzip, deflate, br/ } }]);
  const video = await post("/v1/video/generations", bearer, Buffer.from("zz"), "br");
  t.match([video.status, video.body], [400, { code: "invalid_json", type: "invalid_request_error" }]);
});

t.test("a compressed multipart body is left as it came: a 400, not a stall", async (t) => {
  const form = new FormData();
  form.append("model", "dall-e-2");
  // Larger than a stream's buffer: two readers of one request would have stalled on it.
  form.append("image", new Blob([Buffer.alloc(600_000, 7)], { type: "image/png" }), "a.png");
  const req = new Request("http://x/", { method: "POST", body: form });
  const raw = Buffer.from(await req.arrayBuffer());
  const r = await post("/v1/images/variations", { authorization: `Bearer ${ADMIN_KEY}`, "content-type": req.headers.get("content-type")! }, gzipSync(raw), "gzip");
  t.match([r.status, r.body], [400, { error: { type: "invalid_request_error" } }]);
});

t.test("Connect compresses on the same header and is outside the scope", async (t) => {
  const transport = createConnectTransport({
    baseUrl: server.baseUrl,
    httpVersion: "1.1",
    sendCompression: { name: "gzip", compress: async (b) => new Uint8Array(gzipSync(b)) as Uint8Array<ArrayBuffer>, decompress: async (b) => b as Uint8Array<ArrayBuffer> },
    compressMinBytes: 1,
  });
  const chat = createClient(ChatService, transport);
  const one = await chat.generate(
    { input: { model: "local-chat", turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "compressed" } } }] }] } },
    { headers: { authorization: `Bearer ${ADMIN_KEY}` } },
  );
  const part = one.candidates[0]?.parts[0]?.kind;
  t.equal(part?.case === "text" ? part.value.text : "", "You said: compressed", "a gzip-compressed Connect request is read once, by Connect");
});

t.test("a client that goes away halfway through a compressed body leaves the gateway serving", async (t) => {
  const gz = gzipSync(Buffer.from(JSON.stringify({ ...JSON.parse(messageBody.toString()), metadata: { user_id: "y".repeat(200_000) } })));
  const { port } = new URL(server.baseUrl);
  await new Promise<void>((resolve) => {
    const sock = connect(Number(port), "127.0.0.1", () => {
      sock.write(
        `POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: ${ADMIN_KEY}\r\nanthropic-version: 2023-06-01\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${gz.length}\r\n\r\n`,
      );
      sock.write(gz.subarray(0, Math.floor(gz.length / 2)), () => setTimeout(() => sock.destroy(), 50));
    });
    sock.on("close", () => resolve());
    sock.on("error", () => undefined);
  });
  await new Promise((r) => setTimeout(r, 100));
  const after = await post("/v1/messages", anthropic, gzipSync(messageBody), "gzip");
  t.equal(after.status, 200, "the next compressed request is served");
});
