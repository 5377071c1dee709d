// The shared upstream HTTP layer: SSE parsing over Node streams, retry-after,
// paths, error mapping, pools and the log.
import t, { type Test } from "tap";
import { Readable } from "node:stream";
import { Code, ConnectError } from "@connectrpc/connect";
import { eventJson, sseMap, type SseEvent } from "../../../src/providers/shared/sse.js";
import { retryAfterMs, transportError, upstreamHttpError } from "../../../src/providers/shared/http-errors.js";
import { exchangeJson, postJson, upstreamPath, readJson } from "../../../src/providers/shared/http.js";
import { upstreamPools } from "../../../src/providers/shared/pools.js";
import { jsonLogger } from "../../../src/providers/shared/log.js";
import { errorDetail } from "../../../src/core/errors.js";
import { startFakeUpstream, type Reply } from "../../fixtures/fake-upstream.js";
import { testUpstream } from "../../fixtures/upstream.js";

const asItem = (e: SseEvent) => [e];

/** Upstreams with the given first-byte and chunk-gap limits, each on a channel (and pool) of its own, closed at the test's end. */
function timedUpstreams(t: Test, base: string, prefix: string) {
  const ups: ReturnType<typeof testUpstream>[] = [];
  t.teardown(() => Promise.all(ups.map((u) => u.pools.close())));
  return (firstByteMs: number, chunkGapMs: number) => {
    const u = testUpstream("openai", base, { firstByteMs, chunkGapMs, channel: `${prefix}-${firstByteMs}-${chunkGapMs}-${ups.length}` });
    ups.push(u);
    return u;
  };
}

async function events(chunks: (string | Buffer)[]) {
  const out: { event: string | undefined; data: string }[] = [];
  for await (const e of sseMap(Readable.from(chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : c))), "x", asItem)) out.push(e);
  return out;
}

t.test("SSE: line endings, comments, multi-line data, splits anywhere, UTF-8 split across chunks, no final blank line", async (t) => {
  const euro = Buffer.from("data: 5€\n\n");
  t.same(await events(["event: a\r\ndata: 1\r\n\r\n", ": comment\n", "data: x\ndata: y\n\n", "da", 'ta: {"k"', ":1}\n", "\n", euro.subarray(0, 8), euro.subarray(8), "event: last\ndata: end"]), [
    { event: "a", data: "1" },
    { event: undefined, data: "x\ny" },
    { event: undefined, data: '{"k":1}' },
    { event: undefined, data: "5€" },
    { event: "last", data: "end" },
  ]);
});

t.test("SSE: an event's JSON, with unpaired surrogates made U+FFFD", async (t) => {
  t.same(eventJson({ event: undefined, data: '{"delta":{"text":"cut \\ud83d"}}' }), { delta: { text: "cut \ufffd" } });
  t.same(eventJson({ event: undefined, data: '{"t":"\\ud83d\\ude00"}' }), { t: "\ud83d\ude00" }, "a pair stays");
  t.equal(eventJson({ event: undefined, data: "[DONE]" }), undefined, "not JSON");
});

t.test("SSE: a broken body is a ConnectError", async (t) => {
  const body = new Readable({
    read() {
      this.push("data: 1\n\n");
      this.destroy(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
    },
  });
  const seen: string[] = [];
  const err = await (async () => {
    for await (const e of sseMap(body, "x", asItem)) seen.push(e.data);
  })().then(
    () => undefined,
    (e: unknown) => e,
  );
  t.same(seen, ["1"]);
  t.equal(errorDetail(err as never)?.reason, "upstream_stream_truncated");
});

t.test("SSE: an event the translator cannot read is the upstream's malformed answer; its own errors pass as they are", async (t) => {
  const run = async (map: (e: SseEvent) => SseEvent[]) => {
    const seen: string[] = [];
    const err = await (async () => {
      for await (const e of sseMap(Readable.from([Buffer.from("data: 1\n\ndata: 2\n\ndata: 3\n\n")]), "gemini", map)) seen.push(e.data);
    })().then(
      () => undefined,
      (e: unknown) => e as ConnectError,
    );
    return { seen, err };
  };
  const typeError = await run((e) => {
    if (e.data === "2") (JSON.parse("null") as string).startsWith("x");
    return [e];
  });
  t.same(typeError.seen, ["1"]);
  t.equal(typeError.err?.code, Code.Internal);
  t.equal(errorDetail(typeError.err!)?.reason, "upstream_protocol_error", "a TypeError in the translator");
  t.match(typeError.err?.message, /the gemini upstream sent a malformed answer/);
  const own = await run((e) => {
    if (e.data === "2") throw new ConnectError("refused", Code.InvalidArgument);
    return [e];
  });
  t.equal(own.err?.code, Code.InvalidArgument, "the translator's own ConnectError");
});

t.test("retry-after forms", async (t) => {
  const now = Date.UTC(2026, 0, 1);
  t.equal(retryAfterMs({ "retry-after": "7" }), 7000);
  t.equal(retryAfterMs({ "retry-after": "1.5" }), 1500);
  t.equal(retryAfterMs({ "retry-after-ms": "250", "retry-after": "7" }), 250);
  t.equal(retryAfterMs({ "retry-after": new Date(now + 30_000).toUTCString() }, now), 30_000);
  t.equal(retryAfterMs({ "retry-after": "soon" }), undefined);
  t.equal(retryAfterMs({}), undefined);
});

t.test("status and transport error mapping", async (t) => {
  const table: [number, Code, string][] = [
    [400, Code.InvalidArgument, "upstream_invalid_request"],
    [401, Code.Internal, "upstream_auth"],
    [403, Code.Internal, "upstream_auth"],
    [404, Code.NotFound, "upstream_model_not_found"],
    [408, Code.DeadlineExceeded, "upstream_timeout"],
    [413, Code.InvalidArgument, "request_too_large"],
    [422, Code.InvalidArgument, "upstream_invalid_request"],
    [429, Code.ResourceExhausted, "rate_limited"],
    [500, Code.Internal, "upstream_error"],
    [502, Code.Unavailable, "upstream_error"],
    [503, Code.Unavailable, "overloaded"],
    [504, Code.DeadlineExceeded, "upstream_timeout"],
    [529, Code.Unavailable, "overloaded"],
  ];
  for (const [status, code, reason] of table) {
    const e = upstreamHttpError({ status, vendor: "v", body: "secret body sk-123" });
    t.same([e.code, errorDetail(e)?.reason], [code, reason], String(status));
    t.notMatch(e.message, /secret|sk-123/);
  }
  const tt: [unknown, string, Code, string][] = [
    [{ code: "UND_ERR_HEADERS_TIMEOUT" }, "connect", Code.DeadlineExceeded, "upstream_timeout"],
    [{ code: "UND_ERR_BODY_TIMEOUT" }, "body", Code.DeadlineExceeded, "upstream_timeout"],
    [{ code: "UND_ERR_CONNECT_TIMEOUT" }, "connect", Code.Unavailable, "upstream_unavailable"],
    [{ code: "ECONNREFUSED" }, "connect", Code.Unavailable, "upstream_unavailable"],
    [{ code: "UND_ERR_ABORTED" }, "connect", Code.Canceled, "canceled"],
    [{ code: "ECONNRESET" }, "body", Code.Unavailable, "upstream_stream_truncated"],
  ];
  for (const [err, phase, code, reason] of tt) {
    const e = transportError(err, "v", phase as "connect" | "body");
    t.same([e.code, errorDetail(e)?.reason], [code, reason]);
  }
});

t.test("paths under a base URL", async (t) => {
  t.equal(upstreamPath(new URL("http://h/v1"), "/chat/completions"), "/v1/chat/completions");
  t.equal(upstreamPath(new URL("http://h/v1/"), "/chat/completions"), "/v1/chat/completions");
  t.equal(upstreamPath(new URL("http://h"), "/v1/messages"), "/v1/messages");
  t.equal(upstreamPath(new URL("http://h/v1beta"), "/models/m:x", { alt: "sse" }), "/v1beta/models/m:x?alt=sse");
});

t.test("postJson: one pool per channel, keep-alive reuse, headers, unreachable upstream", async (t) => {
  const fake = await startFakeUpstream(() => ({ json: { ok: true } }));
  t.teardown(() => fake.close());
  const pools = upstreamPools();
  t.teardown(() => pools.close());
  t.equal(pools.get("a", fake.url, { connectTimeoutMs: 1000, connections: 2 }), pools.get("a", fake.url, { connectTimeoutMs: 1000, connections: 2 }), "created once");
  const up = testUpstream("openai", `${fake.url}/v1`, { pools, headers: { authorization: "Bearer k", "x-extra": "1" } });
  for (let i = 0; i < 3; i++) {
    const res = await postJson(up, "/x", { i }, { signal: new AbortController().signal, requestId: "r", parseError: () => ({}) });
    t.same(await readJson(up, res), { ok: true });
  }
  t.same(
    fake.requests.map((r) => [r.path, r.body.i, r.headers["x-extra"], r.headers["content-type"]]),
    [
      ["/v1/x", 0, "1", "application/json"],
      ["/v1/x", 1, "1", "application/json"],
      ["/v1/x", 2, "1", "application/json"],
    ],
  );
  const down = testUpstream("openai", "http://127.0.0.1:9/v1", { channel: "down" });
  t.teardown(() => down.pools.close());
  const err = await postJson(down, "/x", {}, { signal: new AbortController().signal, requestId: "r", parseError: () => ({}) }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.equal(errorDetail(err as never)?.reason, "upstream_unavailable");
});

t.test("the JSON logger honours its level", async (t) => {
  const lines: string[] = [];
  const log = jsonLogger("warn", (l) => lines.push(l));
  log.debug({ a: 1 }, "hidden");
  log.warn({ err: new Error("boom"), channel: "c" }, "shown");
  t.equal(lines.length, 1);
  t.match(JSON.parse(lines[0]!), { level: 40, msg: "shown", channel: "c", err: { type: "Error", message: "boom" } });
  const silent: string[] = [];
  jsonLogger("silent", (l) => silent.push(l)).warn({}, "x");
  t.equal(silent.length, 0);
});

t.test("exchangeJson: whole answers, error statuses, limits, timeouts, aborts and broken bodies", async (t) => {
  const big = "x".repeat(70 * 1024);
  const fake = await startFakeUpstream((req): Reply => {
    switch (req.path) {
      case "/v1/ok":
        return { json: { ok: true, got: req.body } };
      case "/v1/chunked":
        return { chunks: ['{"a":', '"b"}'], headers: { "content-type": "application/json" } };
      case "/v1/string":
        return { json: "just a string" };
      case "/v1/surrogate":
        // Half an emoji, escaped: JSON can carry it, the neutral model cannot.
        return { text: '{"text":"cut \\ud83d","\\udc00":"\\ud83d\\ude00"}', headers: { "content-type": "application/json" } };
      case "/v1/notjson":
        return { text: "<html>" };
      case "/v1/429":
        return { status: 429, headers: { "retry-after": "7" }, json: { error: { type: "rate_limit_error" } } };
      case "/v1/bigerror":
        return { status: 500, text: big };
      case "/v1/slow":
        // Well past the 200 ms allowed.
        return { delayMs: 1500, json: {} };
      case "/v1/hang":
        return { hang: true };
      case "/v1/broken":
        return { chunks: ['{"a":', '"b', '"}'], chunkDelayMs: 20, breakAfter: 1 };
      default:
        return { status: 404, json: {} };
    }
  });
  t.teardown(() => fake.close());
  const up = testUpstream("openai", `${fake.url}/v1`, { headers: { authorization: "Bearer k" }, firstByteMs: 200, chunkGapMs: 200 });
  t.teardown(() => up.pools.close());
  const seen: unknown[] = [];
  const call = (path: string, signal = new AbortController().signal) =>
    exchangeJson(
      up,
      path,
      { q: 1 },
      { signal, requestId: "r", headers: { "x-call": "1" }, parseError: (status, body) => (seen.push([status, body]), status === 429 ? { vendorType: "rate_limit_error" } : {}) },
    );
  const fail = (p: Promise<unknown>): Promise<ConnectError> =>
    p.then(
      () => {
        throw new Error("should have failed");
      },
      (e: unknown) => e as ConnectError,
    );

  t.same(await call("/ok"), { ok: true, got: { q: 1 } });
  const rec = fake.requests.at(-1)!;
  t.equal(rec.headers.authorization, "Bearer k");
  t.equal(rec.headers["x-call"], "1");
  t.equal(rec.headers["content-type"], "application/json");
  t.same(await call("/chunked"), { a: "b" }, "a body in several chunks");
  t.same(await call("/surrogate"), { text: "cut \ufffd", "\ufffd": "\ud83d\ude00" }, "an unpaired surrogate is U+FFFD, a pair stays");

  for (const p of ["/string", "/notjson"]) {
    const e = await fail(call(p));
    t.equal(errorDetail(e)?.reason, "upstream_protocol_error", `${p}: not a JSON object`);
  }
  const limited = await fail(call("/429"));
  t.equal(limited.code, Code.ResourceExhausted);
  t.equal(errorDetail(limited)?.retryAfter?.seconds, 7n, "retry-after from the headers");
  t.same(seen.at(-1), [429, { error: { type: "rate_limit_error" } }], "the vendor parser saw the error body");
  const bigErr = await fail(call("/bigerror"));
  t.equal(bigErr.code, Code.Internal, "an error body over its limit still maps by status");
  t.same(seen.at(-1), [500, undefined], "and the parser gets no body");
  t.equal((await fail(call("/slow"))).code, Code.DeadlineExceeded, "first byte too late");
  t.equal(errorDetail(await fail(call("/hang")))?.metadata.phase, "chunk_gap", "headers, then nothing");
  t.equal(errorDetail(await fail(call("/broken")))?.reason, "upstream_stream_truncated", "the connection broke mid-body");
  t.equal(errorDetail(await fail(call("/missing")))?.reason, "upstream_model_not_found");

  const before = new AbortController();
  before.abort();
  t.equal((await fail(call("/ok", before.signal))).code, Code.Canceled, "aborted before it started");
  const during = new AbortController();
  const pending = call("/slow", during.signal);
  setTimeout(() => during.abort(), 50);
  t.equal((await fail(pending)).code, Code.Canceled, "aborted while waiting");
  await fake.nextAbort().catch(() => undefined);

  // A translator that cannot read the answer (a field of another type than the vendor documents): the upstream's malformed answer.
  const untranslated = await fail(exchangeJson(up, "/ok", {}, { signal: new AbortController().signal, requestId: "r", parseError: () => ({}) }, (b) => (b as { ok: string }).ok.startsWith("x")));
  t.equal(untranslated.code, Code.Internal);
  t.equal(errorDetail(untranslated)?.reason, "upstream_protocol_error", "a TypeError in the translator");
  const refused = await fail(
    exchangeJson(up, "/ok", {}, { signal: new AbortController().signal, requestId: "r", parseError: () => ({}) }, () => {
      throw new ConnectError("refused", Code.InvalidArgument);
    }),
  );
  t.equal(refused.code, Code.InvalidArgument, "the translator's own ConnectError as it is");

  const down = testUpstream("openai", "http://127.0.0.1:9/v1", { channel: "down2" });
  t.teardown(() => down.pools.close());
  const err = await fail(exchangeJson(down, "/x", {}, { signal: new AbortController().signal, requestId: "r", parseError: () => ({}) }));
  t.equal(errorDetail(err)?.reason, "upstream_unavailable");
});

t.test("exchangeJson times the first byte and each chunk gap itself; 0 is no limit", async (t) => {
  const fake = await startFakeUpstream((req): Reply => {
    switch (req.path) {
      case "/v1/late":
        return { delayMs: 300, json: { late: true } };
      case "/v1/drip":
        // Four gaps of 80 ms: 320 ms in all, each gap under the 200 ms allowed.
        return { chunks: ['{"a":', '"b"', ',"c":1', "}"], chunkDelayMs: 80, headers: { "content-type": "application/json" } };
      case "/v1/hang":
        return { hang: true };
      default:
        return { status: 404, json: {} };
    }
  });
  t.teardown(() => fake.close());
  type Outcome = { ok?: unknown; err?: ConnectError };
  const call = (up: ReturnType<typeof testUpstream>, path: string): Promise<Outcome> =>
    exchangeJson(up, path, {}, { signal: new AbortController().signal, requestId: "r", parseError: () => ({}) }).then(
      (v) => ({ ok: v }),
      (e: unknown) => ({ err: e as ConnectError }),
    );
  const up = timedUpstreams(t, `${fake.url}/v1`, "timers");

  const slowStart = await call(up(100, 5000), "/late");
  t.equal(slowStart.err?.code, Code.DeadlineExceeded, "the first byte is timed with its own limit");
  t.equal(errorDetail(slowStart.err!)?.metadata.phase, "first_byte");
  const stalled = await call(up(5000, 150), "/hang");
  t.equal(stalled.err?.code, Code.DeadlineExceeded, "after the headers, the chunk gap's limit applies");
  t.equal(errorDetail(stalled.err!)?.metadata.phase, "chunk_gap");
  t.same((await call(up(200, 200), "/drip")).ok, { a: "b", c: 1 }, "each chunk restarts the gap");
  t.same((await call(up(5000, 200), "/drip")).ok, { a: "b", c: 1 }, "also when the first byte has another limit");
  t.same((await call(up(0, 0), "/late")).ok, { late: true }, "0: no first-byte limit");
  t.same((await call(up(0, 200), "/drip")).ok, { a: "b", c: 1 }, "0 for the first byte, a limit for the gaps");
  const noFirstByteLimit = await call(up(0, 150), "/hang");
  t.equal(errorDetail(noFirstByteLimit.err!)?.metadata.phase, "chunk_gap", "the gap limit still applies");
  t.same((await call(up(2 ** 40, 2 ** 40), "/late")).ok, { late: true }, "a limit past a timer's range is no limit, not an instant one");
});

t.test("postJson (streams) times the first byte and each chunk gap itself, not while the reader has paused it", async (t) => {
  const big = "x".repeat(8 * 1024);
  const fake = await startFakeUpstream((req): Reply => {
    switch (req.path) {
      case "/v1/late":
        return { delayMs: 300, chunks: ["data: 1\n\n"] };
      case "/v1/stall":
        // Headers and one event, then nothing.
        return { chunks: ["data: 1\n\n", "data: 2\n\n"], chunkDelayMs: 5000 };
      case "/v1/drip":
        return { chunks: ["data: 1\n\n", "data: 2\n\n", "data: 3\n\n", "data: 4\n\n"], chunkDelayMs: 80 };
      case "/v1/big":
        // Far more than the body buffers: the reader's pause reaches the socket.
        return { chunks: Array.from({ length: 40 }, (_, i) => `data: ${i} ${big}\n\n`) };
      case "/v1/long":
        return { chunks: Array.from({ length: 50 }, (_, i) => `data: ${i}\n\n`), chunkDelayMs: 20 };
      default:
        return { status: 404, json: {} };
    }
  });
  t.teardown(() => fake.close());
  const up = timedUpstreams(t, `${fake.url}/v1`, "stream-timers");
  const open = (u: ReturnType<typeof testUpstream>, path: string, signal = new AbortController().signal) => postJson(u, path, {}, { signal, requestId: "r", parseError: () => ({}) });
  const drain = async (u: ReturnType<typeof testUpstream>, path: string): Promise<{ data?: string[]; err?: ConnectError }> => {
    const data: string[] = [];
    try {
      const res = await open(u, path);
      for await (const e of sseMap(res.body, "openai", asItem)) data.push(e.data.split(" ")[0]!);
      return { data };
    } catch (err) {
      return { err: err as ConnectError };
    }
  };

  const late = await drain(up(100, 5000), "/late");
  t.equal(late.err?.code, Code.DeadlineExceeded, "first byte too late");
  t.equal(errorDetail(late.err!)?.metadata.phase, "first_byte");
  const stalled = await drain(up(5000, 150), "/stall");
  t.equal(stalled.err?.code, Code.DeadlineExceeded, "after the headers and an event, silence past the gap limit");
  t.equal(errorDetail(stalled.err!)?.metadata.phase, "chunk_gap");
  t.same((await drain(up(200, 200), "/drip")).data, ["1", "2", "3", "4"], "each chunk restarts the gap");
  t.same((await drain(up(0, 0), "/late")).data, ["1"], "0: no limits");

  // The reader takes the headers, then reads nothing for four gap limits while the upstream has far more to send.
  const paused = await open(up(5000, 100), "/big");
  await new Promise((r) => setTimeout(r, 400));
  const seen: string[] = [];
  for await (const e of sseMap(paused.body, "openai", asItem)) seen.push(e.data.split(" ")[0]!);
  t.equal(seen.length, 40, "a reader that paused is not an upstream that stalled: every event arrives");

  // The reader lets go early: the upstream exchange stops.
  const res = await open(up(5000, 5000), "/long");
  const it = sseMap(res.body, "openai", asItem);
  t.equal((await it.next()).value?.data, "0");
  const aborted = fake.nextAbort();
  await it.return!();
  await aborted;
  t.pass("dropping the body aborted the upstream request");

  // The caller's signal, before the headers and during the body.
  const before = new AbortController();
  before.abort();
  t.equal(((await open(up(5000, 5000), "/late", before.signal).catch((e: unknown) => e)) as ConnectError).code, Code.Canceled, "aborted before it started");
  const during = new AbortController();
  const started = await open(up(5000, 5000), "/long", during.signal);
  const chunks = sseMap(started.body, "openai", asItem);
  await chunks.next();
  during.abort();
  const after = await chunks.next().then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  t.equal(after?.code, Code.Canceled, "aborted mid-body: the reader's next read fails as cancelled");
});
