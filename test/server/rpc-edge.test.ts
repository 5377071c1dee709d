// The Connect, gRPC-Web and gRPC edges: a call without a valid key is refused
// from its headers before any of its body is read; bodies are bounded after
// decompression; only gzip and br are accepted.
import t from "tap";
import http from "node:http";
import http2 from "node:http2";
import path from "node:path";
import { gzipSync, deflateSync } from "node:zlib";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { ChatService, Role } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { ModelService } from "../../gen/omnigate/model/v1/model_pb.js";
import { unauthenticatedAnswer } from "../../src/server/rpc-edge.js";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";

const LIMIT = 64 * 1024;
let server: TestServer;
t.before(async () => {
  server = await startServer({ grpc: true, config: { bodyLimitBytes: LIMIT } });
});
t.teardown(() => server?.close());

const LIST = "/omnigate.model.v1.ModelService/ListModels";
const GENERATE = "/omnigate.chat.v1.ChatService/Generate";

/** Sends a request's headers and only `sent` bytes of the body it declares, and resolves with the answer. */
function h1Partial(path: string, headers: Record<string, string>, sent: Buffer): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const url = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method: "POST", headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) });
        req.destroy();
      });
    });
    req.on("error", reject);
    req.write(sent);
  });
}

/** The same on the h2c listener: headers and a piece of the body, the stream left open. */
function h2Partial(path: string, headers: Record<string, string>, sent: Buffer): Promise<{ headers: http2.IncomingHttpHeaders; trailers: http2.IncomingHttpHeaders; body: Buffer }> {
  const session = http2.connect(`http://${server.grpcAddress}`);
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":method": "POST", ":path": path, ...headers });
    let head: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on("response", (h) => (head = h));
    stream.on("trailers", (h) => (trailers = h));
    stream.on("data", (c: Buffer) => chunks.push(c));
    // The answer is complete when the server ends its side (ours is left open, as a client still sending would).
    stream.on("end", () => {
      stream.destroy();
      session.close();
      resolve({ headers: head, trailers, body: Buffer.concat(chunks) });
    });
    stream.on("error", reject);
    stream.write(sent);
  });
}

const envelopeHeader = (length: number) => {
  const b = Buffer.alloc(5);
  b.writeUInt32BE(length, 1);
  return b;
};

t.test("without a key, a call is refused before its body arrives", async (t) => {
  // Each request declares 100 MB and sends 10 bytes: an answer can only come from the headers.
  const big = String(100 * 1024 * 1024);
  const connect = await h1Partial(LIST, { "content-type": "application/json", "content-length": big }, Buffer.from('{"a":"aaaa'));
  t.equal(connect.status, 401);
  t.same(JSON.parse(connect.body.toString()), { code: "unauthenticated", message: "missing API key" });

  const wrong = await h1Partial(LIST, { "content-type": "application/proto", "content-length": big, authorization: "Bearer sk-nope" }, Buffer.alloc(10));
  t.equal(wrong.status, 401);
  t.same(JSON.parse(wrong.body.toString()), { code: "unauthenticated", message: "invalid API key" });

  const gzipped = await h1Partial(LIST, { "content-type": "application/json", "content-encoding": "gzip", "content-length": big }, Buffer.alloc(10));
  t.equal(gzipped.status, 401, "a compressed body is not inflated either");

  const web = await h1Partial(LIST, { "content-type": "application/grpc-web+proto", "content-length": big }, envelopeHeader(90 * 1024 * 1024));
  t.equal(web.status, 200);
  t.equal(web.body[0], 0x80, "gRPC-Web: a trailer frame");
  t.match(web.body.subarray(5).toString(), /grpc-status: 16\r\ngrpc-message: missing%20API%20key\r\n/);

  const stream = await h1Partial("/omnigate.chat.v1.ChatService/StreamGenerate", { "content-type": "application/connect+json", "content-length": big }, envelopeHeader(90 * 1024 * 1024));
  t.equal(stream.status, 200);
  t.equal(stream.body[0], 0x02, "Connect streaming: an end-of-stream frame");
  t.same(JSON.parse(stream.body.subarray(5).toString()), { error: { code: "unauthenticated", message: "missing API key" } });

  const h2 = await h2Partial(GENERATE, { "content-type": "application/grpc+proto", te: "trailers" }, envelopeHeader(90 * 1024 * 1024));
  t.equal(h2.headers[":status"], 200);
  t.equal(h2.trailers["grpc-status"], "16", "gRPC on h2c: the status in trailers");
  t.equal(h2.trailers["grpc-message"], "missing%20API%20key");

  const h2connect = await h2Partial(LIST, { "content-type": "application/json" }, Buffer.from("{"));
  t.equal(h2connect.headers[":status"], 401, "Connect on h2c: 401");
});

const transports: [string, () => Transport][] = [
  ["Connect over HTTP/1.1", () => createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" })],
  ["gRPC-Web over HTTP/1.1", () => createGrpcWebTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" })],
  ["Connect over h2c", () => createConnectTransport({ baseUrl: `http://${server.grpcAddress}`, httpVersion: "2" })],
  ["gRPC over h2c", () => createGrpcTransport({ baseUrl: `http://${server.grpcAddress}` })],
];

t.test("clients read the early refusal as Unauthenticated, unary and streaming", async (t) => {
  const input = { model: "local-chat", turns: [{ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text: "hi" } } }] }] };
  for (const [name, make] of transports) {
    const tr = make();
    const unary = await createClient(ModelService, tr)
      .listModels({}, { headers: { authorization: "Bearer sk-wrong" } })
      .catch((e: unknown) => ConnectError.from(e));
    t.equal((unary as ConnectError).code, Code.Unauthenticated, `${name}: unary`);
    t.equal((unary as ConnectError).rawMessage, "invalid API key", `${name}: unary message`);
    const streamed = await (async () => {
      for await (const _ of createClient(ChatService, tr).streamGenerate({ input }, {}));
    })().catch((e: unknown) => ConnectError.from(e));
    t.equal((streamed as ConnectError).code, Code.Unauthenticated, `${name}: streaming`);
  }
});

t.test("a stock grpc-js client reads the refusal", async (t) => {
  const def = protoLoader.loadSync(["omnigate/model/v1/model.proto"], { includeDirs: [path.resolve(import.meta.dirname, "../../proto")] });
  const pkg = grpc.loadPackageDefinition(def) as any;
  const client = new pkg.omnigate.model.v1.ModelService(server.grpcAddress, grpc.credentials.createInsecure());
  t.teardown(() => client.close());
  const err = await new Promise<grpc.ServiceError>((resolve) => client.listModels({}, new grpc.Metadata(), (e: grpc.ServiceError) => resolve(e)));
  t.equal(err.code, grpc.status.UNAUTHENTICATED);
  t.equal(err.details, "missing API key");
});

t.test("with a key, bodies are bounded after decompression", async (t) => {
  const auth = { authorization: `Bearer ${ADMIN_KEY}` };
  const over = await h1Partial(LIST, { ...auth, "content-type": "application/json", "content-length": String(LIMIT + 1) }, Buffer.from("{"));
  t.equal(over.status, 429, "a declared length over the limit is refused before it is read");
  t.equal(JSON.parse(over.body.toString()).code, "resource_exhausted");

  const bomb = gzipSync(Buffer.from(`{"pageToken":"${"a".repeat(LIMIT * 4)}"}`));
  t.ok(bomb.length < LIMIT, "the compressed body is under the limit");
  const res = await fetch(server.baseUrl + LIST, { method: "POST", headers: { ...auth, "content-type": "application/json", "content-encoding": "gzip" }, body: bomb });
  t.equal(res.status, 429);
  t.match(((await res.json()) as { message: string }).message, /readMaxBytes/);

  const h2 = await h2Partial(GENERATE, { ...auth, "content-type": "application/grpc+proto", te: "trailers" }, envelopeHeader(100 * 1024 * 1024));
  t.equal(h2.trailers["grpc-status"] ?? h2.headers["grpc-status"], String(grpc.status.RESOURCE_EXHAUSTED), "gRPC: a message declared over the limit is refused from its envelope");

  const deflated = await fetch(server.baseUrl + LIST, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json", "content-encoding": "deflate" },
    body: deflateSync(Buffer.from("{}")),
  });
  t.equal(deflated.status, 501, "an encoding the edge does not accept is refused");
  t.equal(((await deflated.json()) as { code: string }).code, "unimplemented");

  const ok = await fetch(server.baseUrl + LIST, { method: "POST", headers: { ...auth, "content-type": "application/json", "content-encoding": "gzip" }, body: gzipSync(Buffer.from("{}")) });
  t.equal(ok.status, 200, "gzip within the limit is served");
});

t.test("unauthenticatedAnswer: one shape per protocol", async (t) => {
  t.equal(unauthenticatedAnswer(undefined, "m", false).status, 401, "a GET (no content type) is Connect unary");
  t.match(unauthenticatedAnswer("application/grpc", "m", false).headers, { "grpc-status": "16", "grpc-message": "m" }, "gRPC over HTTP/1.1: trailers-only in the headers");
  t.match(unauthenticatedAnswer("application/grpc+json; charset=utf-8", "m", true).trailers, { "grpc-status": "16" });
  t.equal(unauthenticatedAnswer("application/grpc-web-text", "m", false).body[0], 0x80);
});
