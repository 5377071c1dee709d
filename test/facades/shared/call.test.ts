// connectionGone: one signal a keep-alive connection, fired only when the
// connection closes with a response unfinished. A bare fastify app with two
// routes: one answers at once, one holds its answer until the test lets it go.
import t from "tap";
import { getEventListeners } from "node:events";
import { connect, type Socket } from "node:net";
import Fastify from "fastify";
import { connectionGone, urlBaseOf } from "../../../src/facades/shared/call.js";

const app = Fastify();
const seen: AbortSignal[] = [];
let held: (() => void) | undefined;
let heldSignal: AbortSignal | undefined;
app.get("/now", (_req, reply) => {
  seen.push(connectionGone(reply));
  return reply.send("ok");
});
app.get("/base", (req, reply) => reply.send(urlBaseOf(req)));
app.get("/held", (_req, reply) => {
  heldSignal = connectionGone(reply);
  return new Promise<void>((resolve) => (held = resolve)).then(() => reply.send("late"));
});
await app.listen({ port: 0, host: "127.0.0.1" });
t.teardown(() => app.close());
const port = (app.server.address() as { port: number }).port;

/** Sends one keep-alive GET on the socket and resolves when its whole answer arrived. */
function get(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    const onData = (b: Buffer) => {
      text += b.toString("latin1");
      if (/\r\n\r\n(ok|late)$/.test(text)) {
        socket.off("data", onData);
        resolve(text);
      }
    };
    socket.on("data", onData);
    socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\nconnection: keep-alive\r\n\r\n`);
  });
}
const open = () =>
  new Promise<Socket>((resolve) => {
    const s = connect(port, "127.0.0.1", () => resolve(s));
  });
const tick = () => new Promise((r) => setTimeout(r, 20));

t.test("the requests of one connection share a signal that finished responses never fire", async (t) => {
  const s = await open();
  await get(s, "/now");
  await get(s, "/now");
  t.equal(seen.length, 2);
  t.equal(seen[0], seen[1], "one signal for the connection");
  s.end();
  await tick();
  t.equal(seen[0]!.aborted, false, "closing after the answers aborts nothing");
  const s2 = await open();
  await get(s2, "/now");
  t.not(seen[2], seen[0], "another connection, another signal");
  s2.destroy();
});

t.test("a request's abort listener comes and goes without emptying the connection signal's listeners", async (t) => {
  const s = await open();
  await get(s, "/now");
  const signal = seen.at(-1)!;
  const before = getEventListeners(signal, "abort").length;
  t.ok(before >= 1, "a listener stays on the signal");
  const mine = () => {};
  signal.addEventListener("abort", mine, { once: true });
  t.equal(getEventListeners(signal, "abort").length, before + 1);
  signal.removeEventListener("abort", mine);
  t.equal(getEventListeners(signal, "abort").length, before, "removing a request's listener leaves the one that stays");
  s.destroy();
});

t.test("a connection closed with a response unfinished aborts its signal", async (t) => {
  const s = await open();
  s.write(`GET /held HTTP/1.1\r\nhost: x\r\n\r\n`);
  while (!heldSignal) await tick();
  t.equal(heldSignal.aborted, false);
  s.destroy();
  await tick();
  t.equal(heldSignal.aborted, true, "the client left before the answer");
  held?.();
});

t.test("urlBaseOf: the origin from the Host header, only when it makes a valid one", async (t) => {
  const base = async (host: string) => (await app.inject({ method: "GET", url: "/base", headers: { host } })).body;
  // The same host twice (the remembered answer), another, a bad one, then the first again.
  t.equal(await base("gw.example:8080"), "http://gw.example:8080");
  t.equal(await base("gw.example:8080"), "http://gw.example:8080");
  t.equal(await base("[::1]:3000"), "http://[::1]:3000");
  t.equal(await base("evil.example/path?x"), "", "a Host that is no origin gives none");
  t.equal(await base("evil.example/path?x"), "", "and again, remembered");
  t.equal(await base("gw.example:8080"), "http://gw.example:8080");
});
