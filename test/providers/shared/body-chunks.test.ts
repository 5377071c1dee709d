// Reading upstream bodies without the stream's async iterator: every chunk in
// order, a pause while the reader is behind, errors and early closes thrown,
// and a reader that stops early destroys the body.
import t from "tap";
import { PassThrough } from "node:stream";
import { bodyChunks, sseMap, type SseEvent } from "../../../src/providers/shared/sse.js";
import { readBody, readText } from "../../../src/providers/shared/http.js";

t.test("chunks in order, the body paused while the reader is behind", async (t) => {
  const body = new PassThrough();
  for (let i = 0; i < 40; i++) body.write(`c${i};`);
  body.end();
  const it = bodyChunks(body)[Symbol.asyncIterator]();
  await new Promise((r) => setImmediate(r));
  t.ok(body.isPaused(), "paused with many chunks unread");
  let all = "";
  for (;;) {
    const r = await it.next();
    if (r.done) break;
    all += String(r.value);
  }
  t.equal(all, Array.from({ length: 40 }, (_, i) => `c${i};`).join(""));
});

t.test("an error and a close before the end reach the reader", async (t) => {
  const failing = new PassThrough();
  failing.write("a");
  setImmediate(() => failing.destroy(new Error("socket hang up")));
  const seen: string[] = [];
  const err = await (async () => {
    for await (const c of bodyChunks(failing)) seen.push(String(c));
  })().catch((e: unknown) => e as Error);
  t.same(seen, ["a"]);
  t.match(err, { message: "socket hang up" });
  const closed = new PassThrough();
  setImmediate(() => closed.destroy());
  const early = await (async () => {
    for await (const _ of bodyChunks(closed)) void _;
  })().catch((e: unknown) => e as Error & { code?: string });
  t.equal(early?.code, "ERR_STREAM_PREMATURE_CLOSE");
});

t.test("a reader that stops early destroys the body", async (t) => {
  const body = new PassThrough();
  body.write("x");
  for await (const _ of bodyChunks(body)) break;
  t.ok(body.destroyed);
});

t.test("SSE events across chunk boundaries, and a last event without its blank line", async (t) => {
  const body = new PassThrough();
  body.write('event: a\ndata: {"n"');
  body.write(":1}\n\ndata: two\n\n");
  body.end("data: last");
  const got = [];
  for await (const e of sseMap(body, "test", (e: SseEvent) => [e])) got.push(e);
  t.same(got, [
    { event: "a", data: '{"n":1}' },
    { event: undefined, data: "two" },
    { event: undefined, data: "last" },
  ]);
});

t.test("whole bodies: text, bytes, and the size limit", async (t) => {
  const text = new PassThrough();
  text.end("héllo");
  t.equal(await readText(text, 100), "héllo");
  const two = new PassThrough();
  two.write("ab");
  two.end("cd");
  t.equal((await readBody(two, 100)).toString(), "abcd");
  const big = new PassThrough();
  big.write("0123456789");
  const err = await readBody(big, 5).catch((e: unknown) => e as Error);
  t.match(err, { name: "BodyTooLargeError" });
  await new Promise((r) => setImmediate(r));
  t.ok(big.destroyed, "the rest is dropped");
});
