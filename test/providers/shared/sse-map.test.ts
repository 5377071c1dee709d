// The one async step a streamed upstream answer takes per item: SSE events
// mapped to items as they are asked for (sseMap), and a source opened on the
// first next() (openOnFirstNext). What a chain of async generators did, these
// must do too: order, errors, and the body dropped whenever reading stops.
import t from "tap";
import { PassThrough } from "node:stream";
import { Code, ConnectError } from "@connectrpc/connect";
import { sseMap, type SseEvent } from "../../../src/providers/shared/sse.js";
import { fromItems, openOnFirstNext } from "../../../src/core/iter.js";
import { errorDetail } from "../../../src/core/errors.js";

const tick = () => new Promise((r) => setImmediate(r));

async function drain<T>(it: AsyncIterable<T>): Promise<{ items: T[]; err: unknown }> {
  const items: T[] = [];
  try {
    for await (const x of it) items.push(x);
    return { items, err: undefined };
  } catch (err) {
    return { items, err };
  }
}

t.test("sseMap: none, one or several items an event, in order, across chunks", async (t) => {
  const body = new PassThrough();
  body.write("data: a\n\ndata: skip\n\ndata: b");
  body.write("c\n\n");
  body.end("data: d");
  const map = (e: SseEvent) => (e.data === "skip" ? [] : e.data === "bc" ? ["b", "c"] : [e.data]);
  t.same((await drain(sseMap(body, "x", map))).items, ["a", "b", "c", "d"]);
});

t.test("sseMap: events are mapped only when their items are asked for", async (t) => {
  const body = new PassThrough();
  body.end("data: 1\n\ndata: 2\n\ndata: 3\n\n");
  const mapped: string[] = [];
  const it = sseMap(body, "x", (e) => (mapped.push(e.data), [e.data]));
  t.same(await it.next(), { done: false, value: "1" });
  t.same(mapped, ["1"], "the second event is not mapped before it is asked for");
  t.same(await it.next(), { done: false, value: "2" });
  t.same(mapped, ["1", "2"]);
});

t.test("sseMap: what map throws comes after the items before it, as it is, and drops the body", async (t) => {
  const body = new PassThrough();
  body.write("data: 1\n\ndata: bad\n\ndata: 3\n\n");
  const boom = new ConnectError("not json", Code.Internal);
  const { items, err } = await drain(
    sseMap(body, "x", (e) => {
      if (e.data === "bad") throw boom;
      return [e.data];
    }),
  );
  t.same(items, ["1"]);
  t.equal(err, boom, "not wrapped as a transport error");
  await tick();
  t.ok(body.destroyed, "the rest of the body is dropped");
});

t.test("sseMap: a broken body is a ConnectError after the events read before it", async (t) => {
  const body = new PassThrough();
  body.write("data: 1\n\n");
  setImmediate(() => body.destroy(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })));
  const { items, err } = await drain(sseMap(body, "x", (e) => [e.data]));
  t.same(items, ["1"]);
  t.ok(err instanceof ConnectError);
  t.equal(errorDetail(err as ConnectError)?.reason, "upstream_stream_truncated");
});

t.test("sseMap: a reader that stops early, or closes before reading, drops the body", async (t) => {
  const early = new PassThrough();
  early.write("data: 1\n\ndata: 2\n\n");
  for await (const _ of sseMap(early, "x", (e) => [e.data])) break;
  await tick();
  t.ok(early.destroyed, "stopped after one item");

  const unread = new PassThrough();
  unread.write("data: 1\n\n");
  const it = sseMap(unread, "x", (e) => [e.data]);
  t.same(await it.return!(), { done: true, value: undefined });
  await tick();
  t.ok(unread.destroyed, "closed before the first next()");
  t.same(await it.next(), { done: true, value: undefined }, "and done after");
});

t.test("openOnFirstNext: opens on the first next() only, then passes the source's items", async (t) => {
  let opened = 0;
  const it = openOnFirstNext(async () => {
    opened++;
    return fromItems(["a", "b"]);
  });
  await tick();
  t.equal(opened, 0, "nothing is opened before a next()");
  t.same((await drain(it)).items, ["a", "b"]);
  t.equal(opened, 1);
});

t.test("openOnFirstNext: return() before opening does not open; during opening it closes the source", async (t) => {
  let opened = 0;
  const never = openOnFirstNext(async () => {
    opened++;
    return fromItems([1]);
  });
  t.same(await never.return!(), { done: true, value: undefined });
  t.same(await never.next(), { done: true, value: undefined });
  t.equal(opened, 0);

  const body = new PassThrough();
  body.write("data: 1\n\n");
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const it = openOnFirstNext(async () => {
    await gate;
    return sseMap(body, "x", (e) => [e.data]);
  });
  const first = it.next();
  const closing = it.return!();
  release();
  // The next() that was waiting beside the return() settles (done), it does not hang.
  t.same(await first, { done: true, value: undefined });
  t.same(await closing, { done: true, value: undefined });
  await tick();
  t.ok(body.destroyed, "the source opened meanwhile is closed, its body dropped");
});

t.test("sseMap and bodyChunks: a return() beside a waiting next() ends both, the body dropped", async (t) => {
  const body = new PassThrough();
  const it = sseMap(body, "x", (e) => [e.data]);
  const waiting = it.next();
  await tick();
  await it.return!();
  t.same(await waiting, { done: true, value: undefined });
  t.ok(body.destroyed);
});

t.test("openOnFirstNext: a failed opening rejects the next() that started it, then it is done", async (t) => {
  const refused = new ConnectError("upstream said no", Code.PermissionDenied);
  const it = openOnFirstNext<number>(() => Promise.reject(refused));
  await t.rejects(it.next(), refused);
  t.same(await it.next(), { done: true, value: undefined });
});

t.test("sseMap: an event or comment longer than the limit is a malformed answer that drops the body", async (t) => {
  for (const [what, lines] of [
    ["one endless data line", ["data: ", "x".repeat(40), "x".repeat(40), "x".repeat(40)]],
    [
      "many data lines without the blank one",
      ["data: 1\n", "data: 2\n", "data: 3\n", "data: 4\n", "data: 5\n", "data: 6\n", "data: 7\n", "data: 8\n", "data: 9\n", "data: 10\n", "data: 11\n", "data: 12\n", "data: 13\n", "data: 14\n"],
    ],
    ["an endless comment", [": ", "y".repeat(50), "y".repeat(50)]],
  ] as const) {
    const body = new PassThrough();
    body.write("data: first\n\n");
    for (const l of lines) body.write(l);
    const { items, err } = await drain(sseMap(body, "x", (e) => [e.data], 100));
    t.same(items, ["first"], `${what}: the events before it arrive`);
    t.ok(err instanceof ConnectError && err.code === Code.Internal, `${what}: ${String(err)}`);
    t.equal(err instanceof ConnectError ? errorDetail(err)?.reason : undefined, "upstream_protocol_error");
    await tick();
    t.ok(body.destroyed, `${what}: the body is dropped`);
  }
  // Many events and comments that are each short pass, however long the stream.
  const body = new PassThrough();
  for (let i = 0; i < 50; i++) body.write(`: ping\n\ndata: ${i}\n\n`);
  body.end();
  t.equal((await drain(sseMap(body, "x", (e) => [e.data], 100))).items.length, 50);
});
