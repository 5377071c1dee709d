// src/server/write-coalescer.ts: a socket's last uncork sends at the end of
// the loop's turn, and nothing is held past it. Real TCP pairs on loopback.
import t, { type Test } from "tap";
import { once } from "node:events";
import net, { type Socket } from "node:net";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { setImmediate as turn } from "node:timers/promises";
import { request } from "undici";
import { MAX_HELD, writeCoalescer } from "../../src/server/write-coalescer.js";
import { upstreamPools } from "../../src/providers/shared/pools.js";
import { startServer } from "../helpers/app.js";

/** A connected pair: `client` (ours) and what the server side has read so far. */
async function pair(t: Test): Promise<{ client: Socket; received: () => string; ended: Promise<unknown> }> {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const accepted = once(server, "connection");
  const client = net.connect((server.address() as AddressInfo).port, "127.0.0.1");
  const [peer] = (await accepted) as [Socket];
  let data = "";
  peer.setEncoding("utf8");
  peer.on("data", (d: string) => (data += d));
  const ended = once(peer, "end");
  if (client.connecting) await once(client, "connect");
  t.teardown(() => {
    client.destroy();
    peer.destroy();
    server.close();
  });
  return { client, received: () => data, ended };
}

/** Waits until the peer has read `want` (loopback delivers within a few ms), or gives up after 2 s. */
async function until(received: () => string, want: string): Promise<string> {
  for (let i = 0; i < 200 && received() !== want; i++) await new Promise((r) => setTimeout(r, 10));
  return received();
}

t.test("the last uncork is held until the turn's end, then sent", async (t) => {
  const { client, received } = await pair(t);
  const w = writeCoalescer();
  w.attach(client);
  client.cork();
  client.write("head,");
  client.write("body");
  client.uncork();
  t.equal(client.writableCorked, 1, "still corked right after the uncork");
  t.equal(client.writableLength, 9, "both writes held in the socket's buffer");
  await turn();
  t.equal(client.writableCorked, 0, "uncorked by the end of the turn");
  t.equal(await until(received, "head,body"), "head,body");
});

t.test("a socket that is not attached sends at once", async (t) => {
  const { client } = await pair(t);
  writeCoalescer();
  client.cork();
  client.write("x");
  client.uncork();
  t.equal(client.writableCorked, 0);
});

t.test("nested corks unwind as always; only the last uncork waits", async (t) => {
  const { client, received } = await pair(t);
  const w = writeCoalescer();
  w.attach(client);
  client.cork();
  client.cork();
  client.write("a");
  client.uncork();
  t.equal(client.writableCorked, 1, "the inner uncork counted down at once");
  client.uncork();
  t.equal(client.writableCorked, 1, "the outer one held");
  await turn();
  t.equal(await until(received, "a"), "a");
});

t.test("several messages and sockets of one turn leave in order at its end", async (t) => {
  const one = await pair(t);
  const two = await pair(t);
  const w = writeCoalescer();
  w.attach(one.client);
  w.attach(two.client);
  for (const [s, text] of [
    [one.client, "1a"],
    [two.client, "2a"],
    [one.client, "1b"],
  ] as const) {
    s.cork();
    s.write(text);
    s.uncork();
  }
  // A write with no cork of its own while the socket is held joins the held ones, in order.
  one.client.write("1c");
  t.equal(one.client.writableCorked, 1);
  await turn();
  t.equal(one.client.writableCorked, 0);
  t.equal(two.client.writableCorked, 0);
  t.equal(await until(one.received, "1a1b1c"), "1a1b1c");
  t.equal(await until(two.received, "2a"), "2a");
});

t.test("the socket that makes MAX_HELD held sends them all at once", async (t) => {
  const pairs = [];
  for (let i = 0; i < MAX_HELD; i++) pairs.push(await pair(t));
  const w = writeCoalescer();
  for (const p of pairs) w.attach(p.client);
  pairs.forEach((p, i) => {
    p.client.cork();
    p.client.write(`m${i}`);
    p.client.uncork();
    t.equal(p.client.writableCorked, i === MAX_HELD - 1 ? 0 : 1, `socket ${i} after its uncork`);
  });
  t.same(
    pairs.map((p) => p.client.writableCorked),
    pairs.map(() => 0),
    "none held",
  );
  for (const [i, p] of pairs.entries()) t.equal(await until(p.received, `m${i}`), `m${i}`);
  // The turn's own flush still comes, with nothing left to send.
  await turn();
});

t.test("end() while held sends the data, then the end", async (t) => {
  const { client, received, ended } = await pair(t);
  const w = writeCoalescer();
  w.attach(client);
  client.cork();
  client.write("last");
  client.uncork();
  client.end();
  await ended;
  t.equal(received(), "last");
});

t.test("end() of a corked socket that is not held finishes (Node's end uncorks, then finishes)", async (t) => {
  const { client, received, ended } = await pair(t);
  const w = writeCoalescer();
  w.attach(client);
  client.cork();
  client.write("corked");
  client.end("+tail");
  await ended;
  t.equal(received(), "corked+tail");
});

t.test("destroy() of a held socket sends what it holds first", async (t) => {
  const { client, received } = await pair(t);
  const w = writeCoalescer();
  w.attach(client);
  client.cork();
  client.write("answer");
  client.uncork();
  client.write("error page");
  client.destroy();
  t.equal(await until(received, "answererror page"), "answererror page");
});

t.test("a destroyed socket's uncork goes to Node as is", async (t) => {
  const { client } = await pair(t);
  const w = writeCoalescer();
  w.attach(client);
  client.cork();
  client.destroy();
  t.doesNotThrow(() => client.uncork());
  t.equal(client.writableCorked, 0);
  await turn();
});

t.test("flush() sends what is held without waiting for the turn", async (t) => {
  const { client, received } = await pair(t);
  const w = writeCoalescer();
  w.attach(client);
  client.cork();
  client.write("now");
  client.uncork();
  w.flush();
  t.equal(client.writableCorked, 0);
  t.equal(await until(received, "now"), "now");
});

t.test("an HTTP server's answers and an upstream pool's requests go through it", async (t) => {
  const w = writeCoalescer();
  // Counted per side: the server alone opens two sockets for four requests over two connections.
  const attached = { server: 0, pool: 0 };
  const attach = (side: keyof typeof attached) => (s: Socket) => {
    attached[side]++;
    w.attach(s);
  };
  const upstream = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => res.end(JSON.stringify({ echoed: body })));
  });
  upstream.on("connection", attach("server"));
  upstream.listen(0, "127.0.0.1");
  await once(upstream, "listening");
  const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const pools = upstreamPools({ onSocket: attach("pool") });
  t.teardown(async () => {
    await pools.close();
    upstream.close();
  });
  const pool = pools.get("test", origin, { connectTimeoutMs: 1000, connections: 2 });
  const answers = await Promise.all(
    ["a", "b", "c", "d"].map(async (x) => {
      const r = await request(`${origin}/`, { dispatcher: pool, method: "POST", body: x });
      return (await r.body.json()) as { echoed: string };
    }),
  );
  t.same(
    answers.map((a) => a.echoed),
    ["a", "b", "c", "d"],
  );
  t.ok(attached.server >= 1 && attached.pool >= 1, `both sides' sockets attached (${JSON.stringify(attached)})`);
});

t.test("the gateway's HTTP connections are attached unless coalesceWrites is off", async (t) => {
  for (const coalesceWrites of [true, false]) {
    const server = await startServer({ config: { coalesceWrites } });
    t.teardown(() => server.close());
    let accepted: Socket | undefined;
    server.app.server.on("connection", (s: Socket) => (accepted = s));
    const res = await fetch(`${server.baseUrl}/healthz`);
    t.equal(res.status, 200);
    await res.text();
    t.equal(server.deps.writes !== undefined, coalesceWrites, `writes with coalesceWrites ${coalesceWrites}`);
    t.equal(accepted !== undefined && Object.hasOwn(accepted, "uncork"), coalesceWrites, `socket attached with coalesceWrites ${coalesceWrites}`);
  }
});
