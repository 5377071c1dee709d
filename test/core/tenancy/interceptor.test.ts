// The tenancy interceptor (core/tenancy/interceptor.ts) driven directly,
// through the in-process transport with in-memory fakes: no app, no HTTP. A
// key outside its format scope and a rate-limited key are refused and get one
// `rejected:<reason>` usage record with the call's format and model, as does a
// refusal by a meter's gate further in; errors of the services are not its to
// record; and a stream holds its concurrency slot until it ends, releasing it
// once however it ends.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type ServiceImpl } from "@connectrpc/connect";
import { ChatService, Role, StreamGenerateResponseSchema, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { ImageService } from "../../../gen/omnigate/image/v1/image_pb.js";
import { Action, ImageBotService } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import { type Principal } from "../../../src/core/context.js";
import { retryAfterSeconds } from "../../../src/core/errors.js";
import { budgets } from "../../../src/core/tenancy/budget.js";
import { chatMeterInterceptor } from "../../../src/core/tenancy/chat-meter.js";
import { tenancyInterceptor } from "../../../src/core/tenancy/interceptor.js";
import { memoryLimiter, type RateLimiter } from "../../../src/core/tenancy/limiter.js";
import { priceSchema } from "../../../src/core/tenancy/prices.js";
import { unaryMeterInterceptor } from "../../../src/core/tenancy/unary-meter.js";
import { createDirectTransport } from "../../../src/core/transport.js";
import type { KeyStore, UsageRecord, UsageStore } from "../../../src/storage/types.js";
import { as, asCaller, failure, NO_LIMITS, principal, reasonOf } from "./fakes.js";

/** The in-process limiter at a fixed time (no refill), counting slots taken and every call of a release. */
function countingLimiter() {
  const inner = memoryLimiter(() => 0);
  const counts = { acquired: 0, released: 0 };
  const limiter: RateLimiter = {
    ...inner,
    async acquire(keyId, limits) {
      const release = await inner.acquire(keyId, limits);
      counts.acquired++;
      return () => {
        counts.released++;
        release();
      };
    },
  };
  return { limiter, counts };
}

interface Impls {
  chat?: Partial<ServiceImpl<typeof ChatService>>;
  image?: Partial<ServiceImpl<typeof ImageService>>;
  video?: Partial<ServiceImpl<typeof VideoService>>;
  imageBot?: Partial<ServiceImpl<typeof ImageBotService>>;
}

/** A fake clock the services advance by 40 ms. */
const clock = { now: 1000 };

/** The tenancy interceptor behind a fake auth step; with `meters`, the chat and unary meters behind it, as in routes.ts. */
function setup(p: Principal, impls: Impls, opts: { meters?: { spent: number } } = {}) {
  clock.now = 1000;
  const rows: UsageRecord[] = [];
  const usage: UsageStore = {
    record: (r) => void rows.push(r),
    query: async () => {
      throw new Error("not used");
    },
  };
  const { limiter, counts } = countingLimiter();
  const interceptors = [asCaller(p), tenancyInterceptor({ limiter, usage, now: () => clock.now })];
  if (opts.meters) {
    const row = { budget: p.budget, spent: opts.meters.spent };
    const keys: Pick<KeyStore, "reserveCredits" | "adjustSpent"> = {
      async reserveCredits(_id, amount) {
        if (row.budget > 0 && !(row.spent + amount <= row.budget && row.spent < row.budget)) return false;
        row.spent += amount;
        return true;
      },
      async adjustSpent(_id, delta) {
        row.spent = Math.max(0, row.spent + delta);
      },
    };
    const deps = { prices: priceSchema.parse({ video: [{ model: "*", perSecond: 1 }] }), budgets: budgets(keys as KeyStore), limiter };
    interceptors.push(chatMeterInterceptor(deps), unaryMeterInterceptor(deps));
  }
  const transport = createDirectTransport(
    (r) => {
      if (impls.chat) r.service(ChatService, impls.chat);
      if (impls.image) r.service(ImageService, impls.image);
      if (impls.video) r.service(VideoService, impls.video);
      if (impls.imageBot) r.service(ImageBotService, impls.imageBot);
    },
    { interceptors },
  );
  return {
    transport,
    chat: createClient(ChatService, transport),
    image: createClient(ImageService, transport),
    video: createClient(VideoService, transport),
    imageBot: createClient(ImageBotService, transport),
    rows,
    counts,
  };
}

/** A refusal's record: the fields a test does not name at their values for a call refused at once. */
const refusal = (r: Partial<UsageRecord>): UsageRecord => ({
  time: 1000,
  keyId: "k1",
  format: "messages",
  model: "",
  channel: "",
  inputTokens: 0,
  outputTokens: 0,
  images: 0,
  seconds: 0,
  credits: 0,
  status: "rejected:format_not_allowed",
  latencyMs: 0,
  requestId: "rid-1",
  ...r,
});

const input = (model: string) => ({ model, turns: [{ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text: "hi" } } }] }] });
const ev = (text: string) => create(StreamGenerateResponseSchema, { event: { case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: "text", value: text } } } });

async function drain(it: AsyncIterable<StreamGenerateResponse>) {
  const got: string[] = [];
  try {
    for await (const m of it) got.push(m.event.case === "partDelta" && m.event.value.delta.case === "text" ? m.event.value.delta.value : "");
    return { got, err: undefined };
  } catch (e) {
    return { got, err: ConnectError.from(e) };
  }
}
async function* one<T>(x: T) {
  yield x;
}

t.test("format scope: refused with PERMISSION_DENIED and recorded as rejected:format_not_allowed with the call's format and model", async (t) => {
  let calls = 0;
  const impls: Impls = {
    chat: {
      generate: () => (calls++, {}),
      async *streamGenerate() {
        calls++;
        yield ev("x");
      },
    },
    image: { generateImages: () => (calls++, {}) },
    video: { createVideo: () => (calls++, {}) },
  };
  const s = setup(principal({ formats: ["image-bot"] }), impls);
  const chat = await failure(s.chat.generate({ input: input("claude-x") }, as("messages")));
  t.equal(chat?.code, Code.PermissionDenied);
  t.equal(reasonOf(chat), "format_not_allowed");
  const image = await failure(s.image.generateImages({ prompt: "p", options: { model: "IMG_MODEL_A" } }, as("images")));
  t.equal(reasonOf(image), "format_not_allowed");
  const video = await failure(s.video.createVideo({ prompt: "p", model: "veo-3" }, as("video")));
  t.equal(reasonOf(video), "format_not_allowed");
  const core = await failure(s.chat.generate({ input: input("gemini-y") }));
  t.equal(reasonOf(core), "format_not_allowed", "a call without a facade's format is 'core'");
  const streamed = await drain(s.chat.streamGenerate({ input: input("claude-x") }, as("messages")));
  t.equal(streamed.err?.code, Code.PermissionDenied, "a stream is refused before it begins");
  t.same(streamed.got, []);
  t.equal(calls, 0, "no service was called");
  t.strictSame(s.rows, [
    refusal({ format: "messages", model: "claude-x" }),
    refusal({ format: "images", model: "IMG_MODEL_A" }),
    refusal({ format: "video", model: "veo-3" }),
    refusal({ format: "core", model: "gemini-y" }),
    refusal({ format: "messages", model: "" }),
  ]);
  t.same(s.counts, { acquired: 0, released: 0 });

  const allowed = setup(principal({ formats: ["messages"] }), impls);
  await allowed.chat.generate({ input: input("claude-x") }, as("messages"));
  const admin = setup(principal({ formats: ["image-bot"], admin: true }), impls);
  await admin.chat.generate({ input: input("claude-x") }, as("messages"));
  t.equal(calls, 2, "a format in the scope, and an admin key, go through");
  t.strictSame([...allowed.rows, ...admin.rows], [], "and are not recorded here");
});

t.test("rate limit: refused with RESOURCE_EXHAUSTED and recorded as rejected:rate_limited", async (t) => {
  let calls = 0;
  const s = setup(principal({ limits: { ...NO_LIMITS, requestsPerMinute: 2 } }), {
    chat: { generate: () => (calls++, (clock.now += 40), {}) },
    imageBot: { submitTask: () => (calls++, {}) },
  });
  await s.chat.generate({ input: input("claude-x") }, as("messages"));
  await s.chat.generate({ input: input("claude-x") }, as("messages"));
  const err = await failure(s.chat.generate({ input: input("claude-x") }, as("generate-content")));
  t.equal(err?.code, Code.ResourceExhausted);
  t.equal(reasonOf(err), "rate_limited");
  t.equal(retryAfterSeconds(err!), 30, "one request of a 2-per-minute bucket comes back in 30 s");
  const task = await failure(s.imageBot.submitTask({ action: Action.IMAGINE, prompt: "p" }, as("image-bot")));
  t.equal(reasonOf(task), "rate_limited");
  t.equal(calls, 2);
  t.strictSame(s.rows, [
    refusal({ time: 1080, format: "generate-content", model: "claude-x", status: "rejected:rate_limited" }),
    refusal({ time: 1080, format: "image-bot", model: "", status: "rejected:rate_limited" }),
  ]);
  t.same(s.counts, { acquired: 2, released: 2 }, "the two admitted calls released their slots");
});

t.test("a gate further in (a meter's budget or model scope) is recorded too; a service's own error is not", async (t) => {
  for (const limits of [NO_LIMITS, { ...NO_LIMITS, concurrentRequests: 5 }]) {
    const label = limits.concurrentRequests ? "a key with limits" : "a key without limits";
    const s = setup(
      principal({ budget: 10, models: ["sora-*", "claude-*"], limits }),
      {
        video: { createVideo: () => ({ video: { model: "sora-2", duration: 4 } }) },
        chat: {
          generate: () => {
            throw new ConnectError("upstream down", Code.Unavailable);
          },
        },
      },
      { meters: { spent: 8 } },
    );
    const over = await failure(s.video.createVideo({ prompt: "p", model: "sora-2", duration: 4 }, as("video")));
    t.equal(reasonOf(over), "budget_exhausted", `${label}: 4 credits do not fit in the 2 left`);
    const scoped = await failure(s.chat.generate({ input: input("gemini-y") }, as("messages")));
    t.equal(reasonOf(scoped), "model_not_allowed", label);
    const down = await failure(s.chat.generate({ input: input("claude-x") }, as("messages")));
    t.equal(down?.code, Code.Unavailable, label);
    t.strictSame(
      s.rows,
      [refusal({ format: "video", model: "sora-2", status: "rejected:budget_exhausted" }), refusal({ format: "messages", model: "gemini-y", status: "rejected:model_not_allowed" })],
      `${label}: the two refusals, not the upstream's failure`,
    );
    t.same(s.counts, limits.concurrentRequests ? { acquired: 3, released: 3 } : { acquired: 0, released: 0 }, `${label}: every slot released`);
  }
});

t.test("a stream holds its concurrency slot until it ends, and releases it once", async (t) => {
  const s = setup(principal({ limits: { ...NO_LIMITS, concurrentRequests: 1 } }), {
    chat: {
      generate: () => ({}),
      async *streamGenerate() {
        yield ev("a");
        yield ev("b");
      },
    },
  });
  const res = await s.transport.stream(ChatService.method.streamGenerate, undefined, undefined, undefined, one({ input: input("claude-x") }), as("messages").contextValues);
  const it = res.message[Symbol.asyncIterator]();
  await it.next();
  t.same(s.counts, { acquired: 1, released: 0 }, "the slot is held while the stream is open");
  const busy = await failure(s.chat.generate({ input: input("claude-x") }, as("messages")));
  t.equal(reasonOf(busy), "rate_limited", "a second call meanwhile is refused");
  t.equal((await it.next()).done, false);
  t.equal(s.counts.released, 0, "still held after the last message, before the end");
  t.equal((await it.next()).done, true);
  t.same(s.counts, { acquired: 1, released: 1 }, "released at the end");
  await it.return!();
  t.equal(s.counts.released, 1, "once");
  await s.chat.generate({ input: input("claude-x") }, as("messages"));
  t.same(s.counts, { acquired: 2, released: 2 }, "the freed slot admits the next call");
});

t.test("a stream whose reader stops early, or that fails, releases its slot once", async (t) => {
  let closed = 0;
  let fail = false;
  const s = setup(principal({ limits: { ...NO_LIMITS, concurrentRequests: 1 } }), {
    chat: {
      async *streamGenerate() {
        try {
          yield ev("a");
          if (fail) throw new ConnectError("upstream reset", Code.Unavailable);
          yield ev("b");
        } finally {
          closed++;
        }
      },
    },
  });
  const res = await s.transport.stream(ChatService.method.streamGenerate, undefined, undefined, undefined, one({ input: input("claude-x") }), as("messages").contextValues);
  const it = res.message[Symbol.asyncIterator]();
  await it.next();
  t.equal(s.counts.released, 0);
  await it.return!();
  t.equal(closed, 1, "the service's stream was closed");
  t.same(s.counts, { acquired: 1, released: 1 }, "the reader stopped: released");
  await it.return!();
  t.equal(s.counts.released, 1, "a second return does not release again");

  fail = true;
  const failed = await drain(s.chat.streamGenerate({ input: input("claude-x") }, as("messages")));
  t.same(failed.got, ["a"]);
  t.equal(failed.err?.code, Code.Unavailable);
  t.same(s.counts, { acquired: 2, released: 2 }, "the stream failed: released once");

  const ac = new AbortController();
  fail = false;
  const aborted = await s.transport.stream(ChatService.method.streamGenerate, ac.signal, undefined, undefined, one({ input: input("claude-x") }), as("messages").contextValues);
  await aborted.message[Symbol.asyncIterator]().next();
  ac.abort();
  for (let i = 0; i < 20 && s.counts.released < 3; i++) await new Promise((r) => setImmediate(r));
  t.same(s.counts, { acquired: 3, released: 3 }, "the caller aborted: released once");
  t.equal(closed, 3);
  t.strictSame(s.rows, [], "none of this is a refusal");
});

t.test("a unary call releases its slot once, whether it succeeds or fails", async (t) => {
  const s = setup(principal({ limits: { ...NO_LIMITS, concurrentRequests: 1 } }), {
    chat: {
      generate: (req) => {
        if (req.input?.model === "down") throw new ConnectError("upstream down", Code.Unavailable);
        return {};
      },
    },
  });
  await s.chat.generate({ input: input("claude-x") }, as("messages"));
  t.same(s.counts, { acquired: 1, released: 1 });
  t.equal((await failure(s.chat.generate({ input: input("down") }, as("messages"))))?.code, Code.Unavailable);
  t.same(s.counts, { acquired: 2, released: 2 });
  await s.chat.generate({ input: input("claude-x") }, as("messages"));
  t.same(s.counts, { acquired: 3, released: 3 });
});

t.test("calls without a principal, and keys without limits, take no slot", async (t) => {
  const s = setup(principal(), { chat: { generate: () => ({}) } });
  await s.chat.generate({ input: input("claude-x") }, as("messages"));
  t.same(s.counts, { acquired: 0, released: 0 });
  const rows: UsageRecord[] = [];
  const anonymous = createClient(
    ChatService,
    createDirectTransport((r) => void r.service(ChatService, { generate: () => ({ id: "ok" }) }), {
      interceptors: [
        tenancyInterceptor({
          limiter: countingLimiter().limiter,
          usage: { record: (r) => void rows.push(r), query: async () => ({ rows, totals: { requests: 0, inputTokens: 0, outputTokens: 0, images: 0, seconds: 0, credits: 0 } }) },
        }),
      ],
    }),
  );
  t.equal((await anonymous.generate({ input: input("x") }, as("messages"))).id, "ok", "no principal: passed through");
  t.same(rows, []);
});
