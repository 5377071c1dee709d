// Channel routing and the retry/fallover policy, with stub providers.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ChatInputSchema, GenerateResponseSchema, Role, StreamGenerateResponseSchema, type ChatInput, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { configSchema, type ChannelConfig } from "../../../src/config.js";
import { channelChatRouting, weightedOrder, type ChatRoute } from "../../../src/core/routing/chat-routing.js";
import { backoffDelay, isFallover, isRetryable, streamWithFallback, unaryWithFallback } from "../../../src/core/routing/retry.js";
import { coreError, errorDetail } from "../../../src/core/errors.js";
import { upstreamHttpError } from "../../../src/providers/shared/http-errors.js";
import { responseToEvents } from "../../../src/core/chat/stream.js";
import type { ChatProvider } from "../../../src/core/ports.js";

const upstream = { ...configSchema.parse({}).upstream, backoffMs: 1, maxBackoffMs: 20, cooldownAfterFailures: 2, cooldownMs: 60_000 };
const channel = (name: string, provider: ChannelConfig["provider"], extra: Partial<ChannelConfig> = {}): ChannelConfig => ({
  name,
  provider,
  baseUrl: "http://127.0.0.1:1",
  apiKey: "",
  models: ["*"],
  modelMap: {},
  priority: 0,
  weight: 1,
  enabled: true,
  ...extra,
});

/** A provider whose calls follow a script: an error to throw, or "ok". */
function stub(kind: string, script: (ConnectError | "ok")[] = []): ChatProvider & { calls: number } {
  const p = {
    kind,
    calls: 0,
    async generate(input: ChatInput) {
      const step = script[p.calls++] ?? "ok";
      if (step !== "ok") throw step;
      return create(GenerateResponseSchema, { id: `${kind}-${p.calls}`, model: input.model, candidates: [{ index: 0, parts: [{ kind: { case: "text", value: { text: kind } } }], finishReason: 1 }] });
    },
    async *stream(input: ChatInput) {
      yield* responseToEvents(await p.generate(input));
    },
    async countTokens() {
      throw new Error("unused");
    },
  };
  return p;
}

const input = create(ChatInputSchema, { model: "m", turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "q" } } }] }] });
const signal = () => new AbortController().signal;
const err429 = () => upstreamHttpError({ status: 429, vendor: "x" });
const err503 = () => upstreamHttpError({ status: 503, vendor: "x" });

t.test("priority first, weight among equals, modelMap, disabled channels and non-matching models", async (t) => {
  const channels = [
    { config: channel("low", "openai", { priority: 0 }), provider: stub("low") },
    { config: channel("high-a", "openai", { priority: 5, weight: 1, modelMap: { m: "up-m" } }), provider: stub("a") },
    { config: channel("high-b", "openai", { priority: 5, weight: 3 }), provider: stub("b") },
    { config: channel("off", "openai", { priority: 9, enabled: false }), provider: stub("off") },
    { config: channel("other", "openai", { priority: 9, models: ["gpt-*"] }), provider: stub("other") },
  ];
  const seq = [0.9, 0.0];
  const r = channelChatRouting({ channels, upstream, rng: () => seq.shift() ?? 0 });
  const routes = r.resolve("m");
  t.same(
    routes.map((x) => x.channel),
    ["high-b", "high-a", "low"],
    "rng 0.9 of total 4 picks b (weight 3) first",
  );
  t.same(
    routes.map((x) => x.upstreamModel),
    ["m", "up-m", "m"],
  );
  t.same(r.resolve("gpt-4o").map((x) => x.channel)[0], "other");
  t.same(
    weightedOrder(
      ["a", "b", "c"],
      (x) => (x === "c" ? 0 : 1),
      () => 0.99,
    ),
    ["b", "a", "c"],
  );
});

t.test("a conversation carrying a vendor's signatures prefers that vendor's channels", async (t) => {
  const channels = [
    { config: channel("oa", "openai", { priority: 9 }), provider: stub("oa") },
    { config: channel("an", "anthropic", { priority: 0 }), provider: stub("an") },
  ];
  const r = channelChatRouting({ channels, upstream, rng: () => 0 });
  t.same(
    r.resolve("m", input).map((x) => x.channel),
    ["oa", "an"],
  );
  const signed = create(ChatInputSchema, {
    model: "m",
    turns: [
      { role: Role.USER, parts: [{ kind: { case: "text", value: { text: "q" } } }] },
      { role: Role.ASSISTANT, parts: [{ kind: { case: "thinking", value: { text: "t" } }, signature: { issuer: "anthropic", value: "S" } }] },
      { role: Role.USER, parts: [{ kind: { case: "text", value: { text: "more" } } }] },
    ],
  });
  t.same(
    r.resolve("m", signed).map((x) => x.channel),
    ["an", "oa"],
  );
});

t.test("which failures retry, which fall over", async (t) => {
  t.ok(isRetryable(err429()));
  t.ok(isRetryable(err503()));
  t.ok(isRetryable(upstreamHttpError({ status: 500, vendor: "x" })));
  t.ok(isRetryable(upstreamHttpError({ status: 504, vendor: "x" })));
  t.notOk(isRetryable(upstreamHttpError({ status: 400, vendor: "x" })));
  t.notOk(isFallover(upstreamHttpError({ status: 400, vendor: "x" })));
  t.notOk(isRetryable(upstreamHttpError({ status: 401, vendor: "x" })));
  t.ok(isFallover(upstreamHttpError({ status: 401, vendor: "x" })), "a refused key falls over");
  t.ok(isFallover(coreError(Code.InvalidArgument, "no", { reason: "unsupported_by_upstream" })), "an unsupported feature falls over");
  t.notOk(isFallover(coreError(Code.Canceled, "gone")));
  const d = [0, 1, 2, 3, 10].map((n) => backoffDelay(n, 100, 1000, () => 1));
  t.same(d, [100, 200, 400, 800, 1000]);
  t.equal(
    backoffDelay(2, 100, 1000, () => 0),
    200,
    "jitter keeps at least half",
  );
});

const routesOf = (...ps: [string, ChatProvider][]): ChatRoute[] => ps.map(([channel, provider]) => ({ channel, provider, upstreamModel: "m" }));

t.test("retry on the same channel, then fall over", async (t) => {
  const a = stub("a", [err429(), err503()]);
  const b = stub("b");
  const r = channelChatRouting({
    channels: [
      { config: channel("a", "openai"), provider: a },
      { config: channel("b", "openai"), provider: b },
    ],
    upstream,
    rng: () => 0,
  });
  const served: string[] = [];
  const resp = await unaryWithFallback(r, routesOf(["a", a], ["b", b]), signal(), (x) => {
    served.push(x.channel);
    return x.provider.generate(input, { signal: signal(), requestId: "", upstreamModel: "m" });
  });
  t.same(served, ["a", "a", "b"], "one retry on a (retries: 1), then b");
  t.equal(resp.id, "b-1");
});

t.test("a non-retryable error is returned at once", async (t) => {
  const a = stub("a", [upstreamHttpError({ status: 400, vendor: "x" })]);
  const b = stub("b");
  const r = channelChatRouting({
    channels: [
      { config: channel("a", "openai"), provider: a },
      { config: channel("b", "openai"), provider: b },
    ],
    upstream,
  });
  const err = (await unaryWithFallback(r, routesOf(["a", a], ["b", b]), signal(), (x) => x.provider.generate(input, { signal: signal(), requestId: "", upstreamModel: "m" })).catch(
    (e: unknown) => e,
  )) as ConnectError;
  t.equal(err.code, Code.InvalidArgument);
  t.same([a.calls, b.calls], [1, 0]);
});

t.test("a retry-after longer than the backoff cap moves on without waiting; maxAttempts bounds the walk", async (t) => {
  const long = coreError(Code.ResourceExhausted, "slow down", { reason: "rate_limited", retryAfterMs: 60_000 });
  const a = stub("a", [long, long]);
  const b = stub("b", [err503(), err503()]);
  const c = stub("c");
  const r = channelChatRouting({
    channels: [
      { config: channel("a", "openai"), provider: a },
      { config: channel("b", "openai"), provider: b },
      { config: channel("c", "openai"), provider: c },
    ],
    upstream: { ...upstream, maxAttempts: 3 },
  });
  const err = (await unaryWithFallback(r, routesOf(["a", a], ["b", b], ["c", c]), signal(), (x) => x.provider.generate(input, { signal: signal(), requestId: "", upstreamModel: "m" })).catch(
    (e: unknown) => e,
  )) as ConnectError;
  t.same([a.calls, b.calls, c.calls], [1, 2, 0], "a once (retry-after too long), b twice, then the attempt budget is spent");
  t.equal(errorDetail(err)?.reason, "overloaded", "the last error is returned");
});

t.test("a channel that keeps failing cools down and goes last", async (t) => {
  let now = 1000;
  const a = stub("a", [err503(), err503(), err503(), err503()]);
  const b = stub("b");
  const r = channelChatRouting({
    channels: [
      { config: channel("a", "openai", { priority: 1 }), provider: a },
      { config: channel("b", "openai"), provider: b },
    ],
    upstream,
    now: () => now,
  });
  t.same(
    r.resolve("m").map((x) => x.channel),
    ["a", "b"],
  );
  await unaryWithFallback(r, r.resolve("m"), signal(), (x) => x.provider.generate(input, { signal: signal(), requestId: "", upstreamModel: "m" }));
  t.same(
    r.resolve("m").map((x) => x.channel),
    ["b", "a"],
    "two failures in a row: cooling",
  );
  now += 59_000;
  t.same(
    r.resolve("m").map((x) => x.channel),
    ["b", "a"],
  );
  now += 2_000;
  t.same(
    r.resolve("m").map((x) => x.channel),
    ["a", "b"],
    "back after the cooldown",
  );
  r.report({ channel: "a", provider: a, upstreamModel: "m" }, false);
  r.report({ channel: "a", provider: a, upstreamModel: "m" }, true);
  r.report({ channel: "a", provider: a, upstreamModel: "m" }, false);
  t.same(
    r.resolve("m").map((x) => x.channel),
    ["a", "b"],
    "a success resets the count",
  );
});

t.test("an abort during backoff ends with Canceled", async (t) => {
  const a = stub("a", [err429(), err429()]);
  const r = channelChatRouting({ channels: [{ config: channel("a", "openai"), provider: a }], upstream: { ...upstream, backoffMs: 5_000, maxBackoffMs: 10_000 } });
  const ac = new AbortController();
  const p = unaryWithFallback(r, routesOf(["a", a]), ac.signal, (x) => x.provider.generate(input, { signal: ac.signal, requestId: "", upstreamModel: "m" })).then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  setTimeout(() => ac.abort(), 20);
  const err = await p;
  t.equal(err?.code, Code.Canceled);
  t.equal(a.calls, 1);
});

const ev = (e: StreamGenerateResponse["event"]) => create(StreamGenerateResponseSchema, { event: e } as never);

t.test("streams fall over before the first event, never after", async (t) => {
  const a = stub("a", [err503(), err503()]);
  const b = stub("b");
  const r = channelChatRouting({
    channels: [
      { config: channel("a", "openai"), provider: a },
      { config: channel("b", "openai"), provider: b },
    ],
    upstream,
  });
  const out: StreamGenerateResponse[] = [];
  for await (const e of streamWithFallback(r, routesOf(["a", a], ["b", b]), signal(), (x) => x.provider.stream(input, { signal: signal(), requestId: "", upstreamModel: "m" }))) out.push(e);
  t.same([a.calls, b.calls], [2, 1]);
  t.equal(out[0]!.event.case === "start" && out[0]!.event.value.id, "b-1");

  const breaking: ChatProvider = {
    kind: "x",
    generate: () => Promise.reject(new Error("unused")),
    countTokens: () => Promise.reject(new Error("unused")),
    async *stream() {
      yield ev({ case: "start", value: { id: "s" } } as never);
      yield ev({ case: "partStart", value: { index: 0, part: { kind: { case: "text", value: { text: "" } } } } } as never);
      throw err503();
    },
  };
  const c = stub("c");
  const seen: string[] = [];
  const err = await (async () => {
    for await (const e of streamWithFallback(r, routesOf(["x", breaking], ["c", c]), signal(), (x) => x.provider.stream(input, { signal: signal(), requestId: "", upstreamModel: "m" })))
      seen.push(e.event.case ?? "");
  })().then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  t.equal(errorDetail(err!)?.reason, "overloaded");
  t.same(seen, ["start", "partStart", "partStop"], "the open part is closed before the error");
  t.equal(c.calls, 0, "no fallover once the client has events");
});

t.test("a provider that throws synchronously on a stream (refused feature) falls over", async (t) => {
  const refusing: ChatProvider = {
    kind: "r",
    generate: () => Promise.reject(new Error("unused")),
    countTokens: () => Promise.reject(new Error("unused")),
    stream() {
      throw coreError(Code.InvalidArgument, "nope", { reason: "unsupported_by_upstream", field: "tools[0]" });
    },
  };
  const b = stub("b");
  const r = channelChatRouting({ channels: [], upstream });
  const out: StreamGenerateResponse[] = [];
  for await (const e of streamWithFallback(r, routesOf(["r", refusing], ["b", b]), signal(), (x) => x.provider.stream(input, { signal: signal(), requestId: "", upstreamModel: "m" }))) out.push(e);
  t.equal(b.calls, 1);
  const err = await (async () => {
    for await (const _ of streamWithFallback(r, routesOf(["r", refusing]), signal(), (x) => x.provider.stream(input, { signal: signal(), requestId: "", upstreamModel: "m" })));
  })().then(
    () => undefined,
    (e: unknown) => e as ConnectError,
  );
  t.equal(errorDetail(err!)?.field, "tools[0]", "alone, the refusal reaches the client with its field");
});

t.test("affinity: a conversation prefers the channel that last served it, per caller, after signatures and cooling", async (t) => {
  const channels = [
    { config: channel("a", "openai"), provider: stub("a") },
    { config: channel("b", "openai"), provider: stub("b") },
    { config: channel("c", "anthropic"), provider: stub("c") },
  ];
  let draw = 0;
  // The weighted draw alternates, so without affinity the first channel changes from one request to the next.
  const routing = channelChatRouting({ channels, upstream, rng: () => (draw++ % 2 ? 0.99 : 0), maxAffinities: 2 });
  const conv = (key: string, keyId = "k1") => create(ChatInputSchema, { model: "m", turns: input.turns, metadata: { affinityKey: key, keyId } });
  const firsts = new Set(Array.from({ length: 6 }, () => routing.resolve("m", input)[0]!.channel));
  t.ok(firsts.size > 1, "no affinity: the draw decides");

  routing.served!(conv("s1"), "b");
  for (let i = 0; i < 5; i++) t.equal(routing.resolve("m", conv("s1"))[0]!.channel, "b", `request ${i} of s1 goes to b`);
  t.ok(new Set(Array.from({ length: 6 }, () => routing.resolve("m", conv("s1", "k2"))[0]!.channel)).size > 1, "another caller's conversation of the same name is not bound");
  routing.served!(conv("s1"), "local");
  t.equal(routing.resolve("m", conv("s1"))[0]!.channel, "b", "the local engine is never remembered");

  // Signatures outrank affinity: a conversation carrying Anthropic thinking stays with Anthropic.
  const signed = create(ChatInputSchema, {
    model: "m",
    metadata: { affinityKey: "s1", keyId: "k1" },
    turns: [
      { role: Role.USER, parts: [{ kind: { case: "text", value: { text: "q" } } }] },
      { role: Role.ASSISTANT, parts: [{ kind: { case: "thinking", value: { text: "t" } }, signature: { issuer: "anthropic", value: "sig" } }] },
      { role: Role.USER, parts: [{ kind: { case: "text", value: { text: "q" } } }] },
    ],
  });
  t.equal(routing.resolve("m", signed)[0]!.channel, "c", "signatures first");

  // A cooling channel goes last even when remembered.
  routing.report({ channel: "b", provider: channels[1]!.provider, upstreamModel: "m" }, false);
  routing.report({ channel: "b", provider: channels[1]!.provider, upstreamModel: "m" }, false);
  t.equal(routing.resolve("m", conv("s1")).at(-1)!.channel, "b", "cooling outranks affinity");

  // Bounded: the least recently served conversation is forgotten first.
  routing.served!(conv("s2"), "a");
  routing.served!(conv("s3"), "c");
  t.equal(routing.resolve("m", conv("s3"))[0]!.channel, "c", "s3 remembered");
  t.equal(routing.resolve("m", conv("s2"))[0]!.channel, "a", "s2 remembered");
  routing.served!(conv("s4"), "c");
  t.ok(new Set(Array.from({ length: 6 }, () => routing.resolve("m", conv("s2"))[0]!.channel)).size > 1, "s2, served longest ago, was forgotten");
  t.equal(routing.resolve("m", conv("s4"))[0]!.channel, "c", "s4 remembered");
});
