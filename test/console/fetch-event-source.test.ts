// The console's fetch-based EventSource against a plain HTTP server: headers on
// every connection, named events, reconnection with Last-Event-ID after the
// stream drops, and a failed connection (an HTTP error) closing it for good.
import t from "tap";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { FetchEventSource, type SourceEvent } from "../../console/src/lib/fetch-event-source.js";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void;

async function serve(handler: Handler) {
  let n = 0;
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    handler(req, res, n++);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  t.teardown(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`, seen, count: () => n };
}

function record(es: FetchEventSource, types: string[]) {
  const events: SourceEvent[] = [];
  for (const type of types) es.addEventListener(type, (e) => events.push({ ...e, state: es.readyState } as SourceEvent));
  return events;
}

async function until(pred: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

const sse = (res: http.ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" });

t.test("events, then a dropped stream is resumed with Last-Event-ID", async (t) => {
  const srv = await serve((_req, res, n) => {
    sse(res);
    if (n === 0) res.end("retry: 20\nid: 7\ndata: first\n\n");
    else res.write("event: custom\ndata: second\n\n");
  });
  const es = new FetchEventSource(srv.url, { headers: { authorization: "Bearer sk-x" } });
  t.teardown(() => es.close());
  t.equal(es.readyState, es.CONNECTING);
  const events = record(es, ["open", "message", "custom", "error"]);
  await until(() => events.some((e) => e.type === "custom"));
  t.match(events, [
    { type: "open" },
    { type: "message", data: "first", lastEventId: "7" },
    { type: "error", state: es.CONNECTING },
    { type: "open" },
    { type: "custom", data: "second", lastEventId: "7" },
  ]);
  t.equal(srv.seen[0]!.authorization, "Bearer sk-x");
  t.equal(srv.seen[1]!.authorization, "Bearer sk-x", "the header is sent again on reconnection");
  t.equal(srv.seen[0]!["last-event-id"], undefined);
  t.equal(srv.seen[1]!["last-event-id"], "7");
  t.equal(srv.seen[0]!.accept, "text/event-stream");
  es.close();
  t.equal(es.readyState, es.CLOSED);
  const count = srv.count();
  await new Promise((r) => setTimeout(r, 80));
  t.equal(srv.count(), count, "closed: no reconnection");
});

t.test("an HTTP error or a response that is not an event stream closes it for good", async (t) => {
  for (const [name, handler] of [
    ["401", (_q, res) => res.writeHead(401, { "content-type": "application/json" }).end('{"error":"no"}')],
    ["json", (_q, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}")],
  ] as [string, Handler][]) {
    const srv = await serve(handler);
    const es = new FetchEventSource(srv.url, { retryMs: 10 });
    const events = record(es, ["open", "error"]);
    await until(() => events.length > 0);
    t.match(events, [{ type: "error", state: es.CLOSED, status: name === "401" ? 401 : 200 }], name);
    await new Promise((r) => setTimeout(r, 60));
    t.equal(srv.count(), 1, `${name}: not retried`);
  }
});

t.test("a network error is retried until closed", async (t) => {
  const srv = await serve((_req, res) => res.destroy());
  const es = new FetchEventSource(srv.url, { retryMs: 10 });
  const events = record(es, ["error"]);
  await until(() => srv.count() >= 3);
  t.ok(
    events.every((e) => (e as { state?: number }).state === es.CONNECTING),
    "each failure reported while reconnecting",
  );
  es.close();
  const count = srv.count();
  await new Promise((r) => setTimeout(r, 60));
  t.ok(srv.count() <= count + 1, "stops after close");
});
