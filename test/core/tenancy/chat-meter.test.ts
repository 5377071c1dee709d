// The chat meter (core/tenancy/chat-meter.ts) driven directly, through the
// in-process transport with in-memory fakes: no app, no HTTP. It checks the
// model scope, reserves chatCost(input tokens + output bound), gives a budgeted
// key without an output limit the 4096 tokens its reservation assumed, settles
// at the real usage (capped at the reservation on a budgeted key only),
// refunds a call that failed before producing anything, charges a broken or
// abandoned stream what it delivered, and feeds the tokens-per-minute bucket.
// Expected credits are worked out by hand from PRICES below.
import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createContextValues, type ServiceImpl } from "@connectrpc/connect";
import { ChatInputSchema, ChatService, Role, StreamGenerateResponseSchema, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { formatKey, type Principal } from "../../../src/core/context.js";
import { chatMeterInterceptor, DEFAULT_RESERVED_OUTPUT } from "../../../src/core/tenancy/chat-meter.js";
import { memoryLimiter, type Limits, type RateLimiter } from "../../../src/core/tenancy/limiter.js";
import { priceSchema, type PriceTable } from "../../../src/core/tenancy/prices.js";
import { createDirectTransport } from "../../../src/core/transport.js";
import { countInput } from "../../../src/lib/tokenizer.js";
import { asCaller, failure, ledger, principal, reasonOf } from "./fakes.js";

// Credits per token: input 2, output 3, cache reads and writes at the input price; 5 flat per request.
const PRICES: PriceTable = priceSchema.parse({ chat: [{ model: "priced-*", input: 2_000_000, output: 3_000_000, request: 5 }] });

// One user turn "hello world": 3 tokens for the turn + "hello" + "world" = 5 input tokens.
const IN = 5;
const input = (model = "priced-a", config?: { maxOutputTokens?: number; thinking?: { budgetTokens: number } }): MessageInitShape<typeof ChatInputSchema> => ({
  model,
  turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "hello world" } } }] }],
  ...(config ? { config } : {}),
});

/** The in-process limiter at a fixed time (no refill), logging the tokens consumed. */
function tokenLog() {
  const inner = memoryLimiter(() => 0);
  const consumed: [string, number][] = [];
  const limiter: RateLimiter = {
    ...inner,
    async consumeTokens(keyId, limits, tokens) {
      consumed.push([keyId, tokens]);
      await inner.consumeTokens(keyId, limits, tokens);
    },
  };
  return { limiter, consumed };
}

function setup(p: Principal, impl: Partial<ServiceImpl<typeof ChatService>>, spent = 0) {
  const money = ledger(p.budget, spent);
  const tokens = tokenLog();
  const transport = createDirectTransport((r) => void r.service(ChatService, impl), {
    interceptors: [asCaller(p), chatMeterInterceptor({ prices: PRICES, budgets: money.budgets, limiter: tokens.limiter })],
  });
  return { chat: createClient(ChatService, transport), transport, ...money, consumed: tokens.consumed, limiter: tokens.limiter };
}

const values = () => createContextValues().set(formatKey, "messages");

const startEv = (usage?: { inputTokens?: bigint; outputTokens?: bigint }) =>
  create(StreamGenerateResponseSchema, { event: { case: "start", value: { id: "s1", model: "priced-a", ...(usage ? { usage } : {}) } } });
const delta = (kind: "text" | "thinking" | "argumentsJson", value: string) =>
  create(StreamGenerateResponseSchema, { event: { case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: kind, value } } } });
const usageEv = (u: { inputTokens?: bigint; outputTokens?: bigint }) => create(StreamGenerateResponseSchema, { event: { case: "usage", value: u } });

/** Reads a stream to its end; the event kinds it delivered and the error it ended with. */
async function drain(it: AsyncIterable<StreamGenerateResponse>) {
  const got: string[] = [];
  try {
    for await (const m of it) got.push(m.event.case ?? "");
    return { got, err: undefined };
  } catch (e) {
    return { got, err: ConnectError.from(e) };
  }
}

async function* one<T>(x: T) {
  yield x;
}

t.test("the input of the fixtures is 5 tokens", async (t) => {
  t.equal(countInput(create(ChatInputSchema, input())).total, IN);
});

t.test("model scope: a model outside the key's globs is refused before anything is reserved", async (t) => {
  let calls = 0;
  const s = setup(principal({ models: ["priced-a*"] }), {
    generate: () => (calls++, {}),
    async *streamGenerate() {
      calls++;
      yield startEv();
    },
  });
  const err = await failure(s.chat.generate({ input: input("priced-b", { maxOutputTokens: 10 }) }, { contextValues: values() }));
  t.equal(err?.code, Code.PermissionDenied);
  t.equal(reasonOf(err), "model_not_allowed");
  const streamed = await drain(s.chat.streamGenerate({ input: input("priced-b", { maxOutputTokens: 10 }) }, { contextValues: values() }));
  t.equal(streamed.err?.code, Code.PermissionDenied, "a stream too");
  t.equal(reasonOf(streamed.err), "model_not_allowed");
  t.same(streamed.got, []);
  t.equal(calls, 0, "the service was never called");
  t.same(s.events, [], "nothing reserved");
  await s.chat.generate({ input: input("priced-abc", { maxOutputTokens: 10 }) }, { contextValues: values() });
  t.equal(calls, 1, "a model inside the scope goes through");
});

t.test("the reservation is chatCost(input tokens + output bound); settled at the real usage", async (t) => {
  const s = setup(principal(), { generate: () => ({ usage: { inputTokens: 5n, outputTokens: 20n } }) });
  await s.chat.generate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() });
  // 5 + 5*2 + 100*3 reserved; 5 + 5*2 + 20*3 charged.
  t.same(s.events, ["reserve 315", "settle 75"]);
  t.equal(s.spent(), 75);
  await s.chat.generate({ input: input("priced-a", { maxOutputTokens: 100, thinking: { budgetTokens: 50 } }) }, { contextValues: values() });
  // A thinking budget is output on top of the limit: 5 + 5*2 + (100+50)*3.
  t.same(s.events.slice(2), ["reserve 465", "settle 75"]);
  t.equal(s.spent(), 150);
});

t.test("a budgeted key without maxOutputTokens gets DEFAULT_RESERVED_OUTPUT written into the request", async (t) => {
  t.equal(DEFAULT_RESERVED_OUTPUT, 4096);
  const seen: (number | undefined)[] = [];
  const impl: Partial<ServiceImpl<typeof ChatService>> = {
    generate: (req) => (seen.push(req.input?.config?.maxOutputTokens), { usage: { inputTokens: 5n, outputTokens: 1n } }),
    async *streamGenerate(req) {
      seen.push(req.input?.config?.maxOutputTokens);
      yield startEv({ inputTokens: 5n });
      yield usageEv({ inputTokens: 5n, outputTokens: 1n });
    },
  };
  // 5 + 5*2 + 4096*3 reserved; 5 + 5*2 + 1*3 charged.
  const budgeted = setup(principal({ budget: 1_000_000 }), impl);
  await budgeted.chat.generate({ input: input() }, { contextValues: values() });
  t.same(await drain(budgeted.chat.streamGenerate({ input: input() }, { contextValues: values() })), { got: ["start", "usage"], err: undefined });
  t.same(seen, [4096, 4096], "unary and streamed calls were given the default limit");
  t.same(budgeted.events, ["reserve 12303", "settle 18", "reserve 12303", "settle 18"]);
  t.equal(budgeted.spent(), 36);

  seen.length = 0;
  await budgeted.chat.generate({ input: input("priced-a", { maxOutputTokens: 7 }) }, { contextValues: values() });
  t.same(seen, [7], "a limit the request sets is kept");
  t.same(budgeted.events.slice(4), ["reserve 36", "settle 18"], "and reserved: 5 + 5*2 + 7*3");

  seen.length = 0;
  const unbudgeted = setup(principal(), impl);
  await unbudgeted.chat.generate({ input: input() }, { contextValues: values() });
  await drain(unbudgeted.chat.streamGenerate({ input: input() }, { contextValues: values() }));
  t.same(seen, [undefined, undefined], "a key without a budget keeps the upstream's default");
  t.same(unbudgeted.events, ["reserve 12303", "settle 18", "reserve 12303", "settle 18"], "reserved as if 4096");
});

t.test("settle: capped at the reservation on a budgeted key, the full usage on an unbudgeted one", async (t) => {
  const big = { inputTokens: 5n, outputTokens: 9000n, cacheReadTokens: 10n, cacheWriteTokens: 4n };
  const impl: Partial<ServiceImpl<typeof ChatService>> = {
    generate: () => ({ usage: big }),
    async *streamGenerate() {
      yield startEv({ inputTokens: 5n });
      yield delta("text", "long answer");
      yield usageEv(big);
    },
  };
  // Reserved: 5 + 5*2 + 100*3 = 315. Used: 5 + 5*2 + 9000*3 + 10*2 + 4*2 = 27043.
  const budgeted = setup(principal({ budget: 1_000_000 }), impl);
  await budgeted.chat.generate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() });
  await drain(budgeted.chat.streamGenerate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() }));
  t.same(budgeted.events, ["reserve 315", "settle 315", "reserve 315", "settle 315"]);
  t.equal(budgeted.spent(), 630);

  const unbudgeted = setup(principal(), impl);
  await unbudgeted.chat.generate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() });
  await drain(unbudgeted.chat.streamGenerate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() }));
  t.same(unbudgeted.events, ["reserve 315", "settle 27043", "reserve 315", "settle 27043"]);
  t.equal(unbudgeted.spent(), 54086);
});

t.test("a call that fails before producing anything is refunded", async (t) => {
  let mode = "";
  const s = setup(principal({ budget: 1000 }), {
    generate: () => {
      throw new ConnectError("upstream down", Code.Unavailable);
    },
    async *streamGenerate() {
      if (mode === "started") yield startEv();
      throw new ConnectError("upstream down", Code.Unavailable);
    },
  });
  const err = await failure(s.chat.generate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() }));
  t.equal(err?.code, Code.Unavailable, "the caller gets the service's error");
  t.same(s.events, ["reserve 315", "refund"]);
  t.equal(s.spent(), 0);

  const before = await drain(s.chat.streamGenerate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() }));
  t.same(before.got, []);
  t.equal(before.err?.code, Code.Unavailable);
  mode = "started";
  const afterStart = await drain(s.chat.streamGenerate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() }));
  t.same(afterStart.got, ["start"], "a start without usage and no output");
  t.equal(afterStart.err?.code, Code.Unavailable);
  t.same(s.events.slice(2), ["reserve 315", "refund", "reserve 315", "refund"]);
  t.equal(s.spent(), 0);
  t.same(
    s.consumed.filter(([, n]) => n > 0),
    [],
    "no tokens consumed",
  );
});

t.test("a broken stream pays for what it delivered: counted text when the upstream reported 0 output tokens", async (t) => {
  const s = setup(principal(), {
    async *streamGenerate() {
      yield startEv({ inputTokens: 5n, outputTokens: 0n });
      yield delta("text", "Hello, world"); // Hello , world: 3 tokens
      yield delta("thinking", "think more"); // 2 tokens
      yield delta("argumentsJson", "{}"); // { }: 2 tokens
      throw new ConnectError("connection reset", Code.Unavailable);
    },
  });
  const res = await drain(s.chat.streamGenerate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() }));
  t.same(res.got, ["start", "partDelta", "partDelta", "partDelta"]);
  t.equal(res.err?.code, Code.Unavailable);
  // 5 + 5*2 + (3+2+2)*3.
  t.same(s.events, ["reserve 315", "settle 36"]);
  t.equal(s.spent(), 36);
  t.same(s.consumed, [["k1", 12]], "5 input + 7 counted output tokens");
});

t.test("a broken stream whose upstream reported output tokens pays those", async (t) => {
  const s = setup(principal(), {
    async *streamGenerate() {
      yield startEv({ inputTokens: 5n });
      yield delta("text", "Hello, world");
      yield usageEv({ inputTokens: 5n, outputTokens: 11n });
      throw new ConnectError("connection reset", Code.Unavailable);
    },
  });
  const res = await drain(s.chat.streamGenerate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() }));
  t.equal(res.err?.code, Code.Unavailable);
  // 5 + 5*2 + 11*3.
  t.same(s.events, ["reserve 315", "settle 48"]);
});

t.test("a broken stream pays at least what it delivered when the upstream reported fewer output tokens", async (t) => {
  const s = setup(principal(), {
    async *streamGenerate() {
      yield startEv({ inputTokens: 5n, outputTokens: 1n }); // Anthropic's message_start reports 1
      yield delta("text", "Hello, world"); // 3 tokens
      throw new ConnectError("connection reset", Code.Unavailable);
    },
  });
  const res = await drain(s.chat.streamGenerate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() }));
  t.equal(res.err?.code, Code.Unavailable);
  // 5 + 5*2 + 3*3.
  t.same(s.events, ["reserve 315", "settle 24"]);
  t.same(s.consumed, [["k1", 8]]);
});

t.test("a broken stream without any reported usage pays its counted input and output", async (t) => {
  const s = setup(principal(), {
    async *streamGenerate() {
      yield startEv(); // a Gemini start whose first chunk had no usageMetadata
      yield delta("text", "Hello, world"); // 3 tokens
      throw new ConnectError("connection reset", Code.Unavailable);
    },
  });
  const res = await drain(s.chat.streamGenerate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() }));
  t.equal(res.err?.code, Code.Unavailable);
  // 5 + 5*2 + 3*3: the input counted by the gateway's tokenizer, not the flat fee alone.
  t.same(s.events, ["reserve 315", "settle 24"]);
  t.same(s.consumed, [["k1", 8]]);
});

t.test("an abandoned stream pays for what it delivered and its service is closed", async (t) => {
  let closed = false;
  const s = setup(principal({ budget: 1000 }), {
    async *streamGenerate() {
      try {
        yield startEv({ inputTokens: 5n, outputTokens: 0n });
        yield delta("text", "Hello, world");
        yield delta("text", " and much more");
      } finally {
        closed = true;
      }
    },
  });
  const res = await s.transport.stream(ChatService.method.streamGenerate, undefined, undefined, undefined, one({ input: input("priced-a", { maxOutputTokens: 100 }) }), values());
  const it = res.message[Symbol.asyncIterator]();
  t.equal((await it.next()).value?.event.case, "start");
  t.equal((await it.next()).value?.event.case, "partDelta");
  t.same(s.events, ["reserve 315"], "nothing settled while the stream is open");
  await it.return!();
  t.ok(closed, "the service's stream was closed");
  // 5 + 5*2 + 3*3: only the text the reader received.
  t.same(s.events, ["reserve 315", "settle 24"]);
  t.equal(s.spent(), 24);
  t.same(s.consumed, [["k1", 8]]);
});

t.test("tokens per minute: the call's tokens are consumed from the key's bucket", async (t) => {
  const limits: Limits = { requestsPerMinute: 0, tokensPerMinute: 30, concurrentRequests: 0 };
  const s = setup(principal({ limits }), { generate: () => ({ usage: { inputTokens: 5n, outputTokens: 20n, cacheReadTokens: 10n, cacheWriteTokens: 4n } }) });
  await s.limiter.acquire("k1", limits);
  await s.chat.generate({ input: input("priced-a", { maxOutputTokens: 100 }) }, { contextValues: values() });
  t.same(s.consumed, [["k1", 39]], "input + output + cache read + cache write");
  const err = await failure(s.limiter.acquire("k1", limits));
  t.equal(err?.code, Code.ResourceExhausted, "39 of a 30-token minute: the next call is refused");
  t.match(err?.message, /tokens per minute/);

  // An unpriced model is metered too when the key has a token limit: nothing to reserve, tokens consumed.
  const unpriced = setup(principal({ limits: { ...limits, tokensPerMinute: 1000 } }), { generate: () => ({ usage: { inputTokens: 5n, outputTokens: 20n } }) });
  await unpriced.chat.generate({ input: input("free-model") }, { contextValues: values() });
  t.same(unpriced.events, ["reserve 0", "settle 0"], "a reservation of 0 (a no-op hold), settled at 0");
  t.same(unpriced.consumed, [["k1", 25]]);
  t.equal(unpriced.spent(), 0);
});

t.test("an unpriced model on a key without budget or limits passes straight through", async (t) => {
  const seen: (number | undefined)[] = [];
  const s = setup(principal(), {
    generate: (req) => (seen.push(req.input?.config?.maxOutputTokens), { usage: { inputTokens: 5n, outputTokens: 9000n } }),
    async *streamGenerate(req) {
      seen.push(req.input?.config?.maxOutputTokens);
      yield startEv({ inputTokens: 5n });
      yield usageEv({ inputTokens: 5n, outputTokens: 9000n });
    },
  });
  const res = await s.chat.generate({ input: input("free-model") }, { contextValues: values() });
  t.equal(res.usage?.outputTokens, 9000n);
  t.same((await drain(s.chat.streamGenerate({ input: input("free-model") }, { contextValues: values() }))).got, ["start", "usage"]);
  t.same(seen, [undefined, undefined], "the request is left as it is");
  t.same(s.events, [], "no reservation, no settlement");
  t.same(s.consumed, [], "no tokens counted");
  t.equal(s.spent(), 0);
});

t.test("an unpriced model on a budgeted key whose budget is used up is refused", async (t) => {
  let calls = 0;
  const s = setup(principal({ budget: 10 }), { generate: () => (calls++, {}) }, 10);
  const err = await failure(s.chat.generate({ input: input("free-model") }, { contextValues: values() }));
  t.equal(err?.code, Code.PermissionDenied);
  t.equal(reasonOf(err), "budget_exhausted");
  t.same(s.events, ["reserve 0"]);
  t.equal(calls, 0);
});
