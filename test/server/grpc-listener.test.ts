// The h2c listener's bounds (limitSessions in src/server/grpc-listener.ts):
// connections past the session cap are closed at once, an idle or byte-less
// session is closed, a session whose stream stays silent is cut after a
// second idle period, and a call that keeps streaming is never cut.
import t from "tap";
import http2 from "node:http2";
import net from "node:net";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ChatService, Role } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { ADMIN_KEY, startServer } from "../helpers/app.js";

const SOON_MS = 10_000;

/** A TCP connection that sends nothing; `closed` settles when the server closes it. */
function silent(port: number): Promise<{ socket: net.Socket; closed: Promise<void>; isClosed(): boolean }> {
  return new Promise((resolve, reject) => {
    let done = false;
    const socket = net.connect(port, "127.0.0.1");
    const closed = new Promise<void>((r) => socket.on("close", () => ((done = true), r())));
    // Read (and drop) what the server sends, so its end is seen.
    socket.resume();
    socket.on("error", () => undefined);
    socket.once("connect", () => resolve({ socket, closed, isClosed: () => done }));
    socket.once("error", reject);
  });
}

/** "closed" when `p` settles within the bound, else "still open". */
function outcome(p: Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout;
  return Promise.race([p.then(() => "closed"), new Promise<string>((r) => (timer = setTimeout(() => r("still open"), SOON_MS)))]).finally(() => clearTimeout(timer));
}

t.test("past the session cap, a connection is closed at once", async (t) => {
  const s = await startServer({ grpc: true, config: { grpcMaxSessions: 3, grpcIdleTimeoutMs: 0 } });
  const conns: Awaited<ReturnType<typeof silent>>[] = [];
  t.teardown(() => {
    conns.forEach((c) => c.socket.destroy());
    return s.close();
  });
  for (let i = 0; i < 5; i++) conns.push(await silent(s.grpc!.port));
  t.equal(await outcome(Promise.all(conns.slice(3).map((c) => c.closed))), "closed", "the two past the cap are closed");
  t.same(
    conns.slice(0, 3).map((c) => c.isClosed()),
    [false, false, false],
    "the first three stay (no idle timeout here)",
  );
});

t.test("idle sessions are closed; a streaming call is not cut", async (t) => {
  const s = await startServer({ grpc: true, config: { grpcIdleTimeoutMs: 300, local: { chunkDelayMs: 40 } } as never });
  const sessions: http2.ClientHttp2Session[] = [];
  let raw: net.Socket | undefined;
  t.teardown(() => {
    raw?.destroy();
    sessions.forEach((c) => c.destroy());
    return s.close();
  });
  const url = `http://${s.grpcAddress}`;

  const byteless = await silent(s.grpc!.port);
  raw = byteless.socket;

  const idle = http2.connect(url);
  idle.on("error", () => undefined);
  sessions.push(idle);
  const idleGoaway = new Promise((r) => idle.once("goaway", r));

  // A call whose request never ends: its session gets GOAWAY, then is cut after a second silent period.
  const stuck = http2.connect(url);
  stuck.on("error", () => undefined);
  sessions.push(stuck);
  const stream = stuck.request(
    { ":method": "POST", ":path": "/omnigate.chat.v1.ChatService/StreamGenerate", "content-type": "application/grpc", te: "trailers", authorization: `Bearer ${ADMIN_KEY}` },
    { endStream: false },
  );
  stream.on("error", () => undefined);
  const stuckGoaway = new Promise((r) => stuck.once("goaway", r));

  const [a, b, c, d, e] = await Promise.all([
    outcome(byteless.closed),
    outcome(idleGoaway),
    outcome(new Promise((r) => idle.once("close", r))),
    outcome(stuckGoaway),
    outcome(new Promise((r) => stuck.once("close", r))),
  ]);
  t.equal(a, "closed", "a connection that never sends a byte");
  t.equal(b, "closed", "an idle session gets GOAWAY");
  t.equal(c, "closed", "and is closed");
  t.equal(d, "closed", "a session with a silent stream gets GOAWAY");
  t.equal(e, "closed", "and is cut after a second idle period");

  // 40 ms before each text chunk: many chunks stream far longer than the idle timeout, never idle that long.
  const words = Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ");
  const client = createClient(ChatService, createGrpcTransport({ baseUrl: url }));
  let text = "";
  let chunks = 0;
  let finished = false;
  const input = { model: "local-chat", turns: [{ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text: words } } }] }] };
  for await (const ev of client.streamGenerate({ input }, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })) {
    if (ev.event.case === "partDelta" && ev.event.value.delta.case === "text") {
      text += ev.event.value.delta.value;
      chunks++;
    }
    if (ev.event.case === "finish") finished = true;
  }
  t.equal(text, `You said: ${words}`, "the whole answer arrived");
  t.ok(finished, "with its finish event");
  t.ok(chunks * 40 > 2 * 300, `${chunks} chunks 40 ms apart: longer than both idle periods`);
});
