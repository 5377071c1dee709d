// The routed stream after its first event: the stream guard and the fallback
// stream are plain iterators (one async step per event), so what async
// generators gave for free is tested here: a return() beside a running next()
// waits for it and then closes the source, an abort ends the stream at the next
// event, the watch sees every event and ends exactly once, and the chat service
// records a stream's usage with the status it ended with.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { StreamGenerateResponseSchema, ChatInputSchema, ChatService, CountTokensResponseSchema, GenerateResponseSchema, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { serve } from "../call/harness.js";
import { guardStream } from "../../../src/core/chat/stream-guard.js";
import { chatService } from "../../../src/core/chat/chat-service.js";
import { streamWithFallback, type FallbackWatch } from "../../../src/core/routing/retry.js";
import type { ChatRoute, ChatRouting } from "../../../src/core/routing/chat-routing.js";
import type { UsageRecord } from "../../../src/storage/types.js";

const ev = (e: unknown) => create(StreamGenerateResponseSchema, { event: e } as never);
const start = ev({ case: "start", value: { id: "s" } });
const text = ev({ case: "partStart", value: { index: 0, part: { kind: { case: "text", value: {} } } } });
const delta = (v: string) => ev({ case: "partDelta", value: { index: 0, delta: { case: "text", value: v } } });
const stop = ev({ case: "partStop", value: { index: 0 } });
const finish = ev({ case: "finish", value: { finishReason: 1 } });
const usage = ev({ case: "usage", value: { inputTokens: 3n, outputTokens: 4n } });
const good = [start, text, delta("a"), delta("b"), stop, finish, usage];

/** A source that logs reads and closing, and can hold a read until released. */
function source(events: StreamGenerateResponse[], log: string[], opts: { holdAt?: number; failAt?: number } = {}) {
  let i = 0;
  let release: (() => void) | undefined;
  const it: AsyncIterableIterator<StreamGenerateResponse> & { release(): void } = {
    async next() {
      const at = i++;
      if (at === opts.holdAt) await new Promise<void>((r) => (release = r));
      if (at === opts.failAt) {
        log.push("failed");
        throw new ConnectError("upstream broke", Code.Unavailable);
      }
      if (at >= events.length) return { done: true, value: undefined };
      log.push(`read ${at}`);
      return { done: false, value: events[at]! };
    },
    async return() {
      log.push("closed");
      return { done: true, value: undefined };
    },
    release: () => release?.(),
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}

const routing = (reports: string[]): ChatRouting => ({
  resolve: () => [],
  policy: { retries: () => 0, maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0 },
  report: (r, ok, err) => reports.push(`${r.channel} ${ok ? "ok" : `failed ${err?.code}`}`),
});
const route = (s: AsyncIterable<StreamGenerateResponse>): ChatRoute => ({ channel: "c1", upstreamModel: "m", provider: { stream: () => s } as never });
const cases = (evs: StreamGenerateResponse[]) => evs.map((e) => e.event.case);

function watchLog(): { watch: FallbackWatch; seen: string[]; ends: string[] } {
  const seen: string[] = [];
  const ends: string[] = [];
  return {
    seen,
    ends,
    watch: {
      each: (e) => void seen.push(e.event.case ?? ""),
      end: (how) => void ends.push(how.completed ? "completed" : how.error ? `failed ${how.error.code}` : "stopped"),
    },
  };
}

async function drain(it: AsyncIterator<StreamGenerateResponse>) {
  const out: StreamGenerateResponse[] = [];
  try {
    for (;;) {
      const r = await it.next();
      if (r.done) return { out };
      out.push(r.value);
    }
  } catch (err) {
    return { out, err: err as ConnectError };
  }
}

t.test("the guard: return() beside a running next() waits for it, then closes the source", async (t) => {
  const log: string[] = [];
  const src = source(good, log, { holdAt: 1 });
  const g = guardStream(src);
  t.equal((await g.next()).value?.event.case, "start");
  const pending = g.next();
  const closing = g.return(undefined);
  await new Promise((r) => setImmediate(r));
  t.same(log, ["read 0"], "nothing closed while the read runs");
  src.release();
  t.equal((await pending).value?.event.case, "partStart", "the running read delivers its event");
  t.same(await closing, { done: true, value: undefined });
  t.same(log, ["read 0", "read 1", "closed"], "then the source is closed");
  t.same(await g.next(), { done: true, value: undefined }, "and the guard stays finished");
});

t.test("the guard: a source that fails is not closed again; repairs come before its error", async (t) => {
  const log: string[] = [];
  const { out, err } = await drain(guardStream(source(good, log, { failAt: 3 })));
  t.same(cases(out), ["start", "partStart", "partDelta", "partStop"], "the open text part is closed first");
  t.equal(err?.code, Code.Unavailable);
  t.same(log, ["read 0", "read 1", "read 2", "failed"], "no close after the failure");
});

t.test("fallback: the watch sees each event in order and the end once", async (t) => {
  const log: string[] = [];
  const reports: string[] = [];
  const w = watchLog();
  const s = streamWithFallback(routing(reports), [route(source(good, log))], new AbortController().signal, (r) => r.provider.stream(undefined as never, undefined as never), w.watch);
  const { out, err } = await drain(s);
  t.notOk(err);
  t.same(cases(out), cases(good));
  t.same(w.seen, cases(good), "each event went through the watch");
  t.same(w.ends, ["completed"]);
  t.same(reports, ["c1 ok"], "the route was reported once it gave its first event");
  t.same(await s.next(), { done: true, value: undefined });
  t.same(w.ends, ["completed"], "still one end");
});

t.test("fallback: after an abort the next event ends the stream with Canceled and closes the source", async (t) => {
  const log: string[] = [];
  const ac = new AbortController();
  const w = watchLog();
  const reports: string[] = [];
  const s = streamWithFallback(routing(reports), [route(source(good, log))], ac.signal, (r) => r.provider.stream(undefined as never, undefined as never), w.watch);
  t.equal((await s.next()).value?.event.case, "start");
  ac.abort();
  const err = await s.next().then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  t.equal(err?.code, Code.Canceled);
  t.same(log, ["read 0", "read 1", "closed"], "the source was closed");
  t.same(w.ends, ["failed " + Code.Canceled]);
  t.same(reports, ["c1 ok"], "a cancellation does not count against the route");
  t.same(await s.next(), { done: true, value: undefined });
});

t.test("fallback: a failure after the first event is reported against the route and ends once", async (t) => {
  const log: string[] = [];
  const reports: string[] = [];
  const w = watchLog();
  const s = streamWithFallback(routing(reports), [route(source(good, log, { failAt: 3 }))], new AbortController().signal, (r) => r.provider.stream(undefined as never, undefined as never), w.watch);
  const { out, err } = await drain(s);
  t.equal(err?.code, Code.Unavailable);
  t.same(cases(out), ["start", "partStart", "partDelta", "partStop"], "the guard's repair came before the error");
  t.same(reports, ["c1 ok", `c1 failed ${Code.Unavailable}`]);
  t.same(w.ends, [`failed ${Code.Unavailable}`]);
});

t.test("fallback: return() before any next() opens nothing; after the first event it closes the source", async (t) => {
  const log: string[] = [];
  const w = watchLog();
  let opened = 0;
  const open = (r: ChatRoute) => {
    opened++;
    return r.provider.stream(undefined as never, undefined as never);
  };
  const never = streamWithFallback(routing([]), [route(source(good, log))], new AbortController().signal, open, w.watch);
  t.same(await never.return(undefined), { done: true, value: undefined });
  t.same(await never.next(), { done: true, value: undefined });
  t.equal(opened, 0, "nothing was opened");
  t.same(w.ends, [], "and nothing ended");

  const held = source(good, log, { holdAt: 1 });
  const s = streamWithFallback(routing([]), [route(held)], new AbortController().signal, open, w.watch);
  t.equal((await s.next()).value?.event.case, "start");
  const pending = s.next();
  const closing = s.return(undefined);
  await new Promise((r) => setImmediate(r));
  t.same(w.ends, [], "the stop waits for the running read");
  t.same(log, ["read 0"]);
  held.release();
  t.equal((await pending).value?.event.case, "partStart", "the running read delivers its event");
  t.same(await closing, { done: true, value: undefined });
  t.same(log, ["read 0", "read 1", "closed"], "then the source is closed");
  t.same(w.ends, ["stopped"], "and the stream ends once, stopped by its reader");
  t.same(await s.next(), { done: true, value: undefined });
});

t.test("a chat stream through the pipeline is recorded with how it ended", async (t) => {
  const records: UsageRecord[] = [];
  const store = { record: async (r: UsageRecord) => void records.push(r), query: async () => ({ rows: [], totals: {} }) } as never;
  const run = async (src: AsyncIterable<StreamGenerateResponse>, stopAfter?: number, ac = new AbortController()) => {
    const rt: ChatRouting = { ...routing([]), resolve: () => [route(src)] };
    const chat = serve(ChatService, chatService({ routing: rt }), { usage: store });
    const input = create(ChatInputSchema, { model: "m", turns: [{ role: 1, parts: [{ kind: { case: "text", value: { text: "hi" } } }] }] } as never);
    const it = chat.streamGenerate({ input }, { signal: ac.signal })[Symbol.asyncIterator]();
    if (stopAfter === undefined) return drain(it);
    for (let i = 0; i < stopAfter; i++) await it.next();
    ac.abort();
    await it.return!();
    return { out: [] };
  };
  await run(source(good, []));
  t.match(records.at(-1), { status: "ok", inputTokens: 3, outputTokens: 4, channel: "c1" }, "a completed stream: ok, with its usage");
  await run(source(good, [], { failAt: 3 }));
  t.equal(records.at(-1)?.status, `error:${Code.Unavailable}`, "a failed one: its error");
  const log: string[] = [];
  await run(source(good, log), 2);
  t.equal(records.at(-1)?.status, "canceled", "a reader that went away: canceled");
  t.same(log, ["read 0", "read 1", "closed"], "and the source was closed");
  t.equal(records.length, 3, "one record a stream");
});

t.test("an answer or event the neutral model cannot hold is the upstream's malformed answer, on that route", async (t) => {
  const reports: string[] = [];
  const input = create(ChatInputSchema, { model: "m", turns: [{ role: 1, parts: [{ kind: { case: "text", value: { text: "hi" } } }] }] } as never);
  const provider = {
    // A message id that is a number, as an upstream might send it.
    generate: async () => ({ ...create(GenerateResponseSchema, { candidates: [{ parts: [{ kind: { case: "text", value: { text: "a" } } }] }] }), id: 42 }),
    countTokens: async () => ({ ...create(CountTokensResponseSchema), inputTokens: 3 }),
    stream: () => source([start, text, ev({ case: "partDelta", value: { index: 0, delta: { case: "text", value: { t: "a" } } } }), stop, finish], []),
  };
  const rt: ChatRouting = { ...routing(reports), resolve: () => [{ channel: "c1", upstreamModel: "m", provider: provider as never }] };
  const chat = serve(ChatService, chatService({ routing: rt }));
  const failed = async (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e as ConnectError,
    );

  const unary = await failed(chat.generate({ input }));
  t.equal(unary?.rawMessage, "the upstream sent a malformed answer");
  t.equal(unary?.code, Code.Internal);
  t.match((unary?.cause as Error).message, /^id: a number where a string belongs$/);
  t.notOk(reports.includes("c1 ok"), "the route is not reported as having served it");

  const counted = await failed(chat.countTokens({ input }));
  t.match((counted?.cause as Error).message, /^inputTokens: a number where a bigint belongs$/);

  const { out, err } = await drain(chat.streamGenerate({ input })[Symbol.asyncIterator]());
  t.same(cases(out).slice(0, 2), ["start", "partStart"], "the events before it went out");
  t.equal(err?.rawMessage, "the upstream stream was malformed");
  t.match((err?.cause as Error).message, /^partDelta\.text: an object where a string belongs$/);
});
