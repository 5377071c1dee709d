// The money path through the whole chain: createPipeline with the real
// admission and settlement over in-memory fakes, and tiny fake services behind
// localClient; no app, no HTTP. A refusal by a tenancy gate (format or model
// scope, rate limit, budget) reaches the caller and is recorded once; a
// service's own error is recorded as that, not as a refusal; the service sees
// the output limit admission set; a stream holds its concurrency slot and its
// reservation until it ends, and settles once however it ends (completed,
// failed, stopped by its reader, abandoned by its caller), its service closed.
import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ChatService, Role, StreamGenerateResponseSchema, type ChatInputSchema, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { ImageService, StreamGenerateImagesResponseSchema } from "../../../gen/omnigate/image/v1/image_pb.js";
import { Action, ImageBotService } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import type { Authenticator } from "../../../src/core/auth/authenticator.js";
import type { CallInit, Principal } from "../../../src/core/call/call.js";
import { localClient } from "../../../src/core/call/client.js";
import { createPipeline } from "../../../src/core/call/pipeline.js";
import type { ServiceImpl } from "../../../src/core/call/service.js";
import { retryAfterSeconds } from "../../../src/core/errors.js";
import { modelResolver } from "../../../src/core/image/profiles.js";
import { priceSchema, type PriceTable } from "../../../src/core/tenancy/prices.js";
import type { UsageRecord } from "../../../src/storage/types.js";
import { failure, money, NO_LIMITS, principal, reasonOf, record } from "./fakes.js";

const PRICES: PriceTable = priceSchema.parse({
  // Credits per token: input 2, output 3; 5 flat per request.
  chat: [{ model: "priced-*", input: 2_000_000, output: 3_000_000, request: 5 }],
  images: [
    { model: "IMG_MODEL_C", size: "1536x1024", perImage: 5 },
    { model: "IMG_MODEL_C", perImage: 2 },
  ],
  imageBot: { IMAGINE: 2 },
  video: [
    { model: "sora-2", perSecond: 2 },
    { model: "veo-*", perSecond: 5 },
  ],
});

interface Impls {
  chat?: Partial<ServiceImpl<typeof ChatService>>;
  image?: Partial<ServiceImpl<typeof ImageService>>;
  video?: Partial<ServiceImpl<typeof VideoService>>;
  imageBot?: Partial<ServiceImpl<typeof ImageBotService>>;
}

/** A fake clock the services advance. */
const clock = { now: 1000 };

/** The pipeline with the real admission and settlement, behind a key check that knows one key, "key", as `p`. */
function setup(p: Principal, impls: Impls, opts: { spent?: number } = {}) {
  clock.now = 1000;
  const m = money(p, { prices: PRICES, imageModels: modelResolver({}), spent: opts.spent, now: () => clock.now });
  const auth = { cached: (key: string) => (key === "key" ? p : null), verify: async () => undefined, invalidate: () => undefined } as unknown as Authenticator;
  const pipeline = createPipeline({ auth, admission: m.admission, settlement: m.settlement, now: () => clock.now });
  return {
    ...m,
    chat: localClient(ChatService, impls.chat ?? {}, pipeline),
    image: localClient(ImageService, impls.image ?? {}, pipeline),
    video: localClient(VideoService, impls.video ?? {}, pipeline),
    imageBot: localClient(ImageBotService, impls.imageBot ?? {}, pipeline),
  };
}

/** A call as an edge makes it. */
const as = (format: string, over: Partial<CallInit> = {}): CallInit => ({ apiKey: "key", format, requestId: "rid-1", urlBase: "", signal: new AbortController().signal, ...over });

const input = (model: string, config?: { maxOutputTokens?: number }): MessageInitShape<typeof ChatInputSchema> => ({
  model,
  turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "hello world" } } }] }],
  ...(config ? { config } : {}),
});
const ev = (text: string) => create(StreamGenerateResponseSchema, { event: { case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: "text", value: text } } } });
const startEv = (usage?: { inputTokens?: bigint; outputTokens?: bigint }) =>
  create(StreamGenerateResponseSchema, { event: { case: "start", value: { id: "s1", model: "priced-a", ...(usage ? { usage } : {}) } } });
const usageEv = (u: { inputTokens?: bigint; outputTokens?: bigint }) => create(StreamGenerateResponseSchema, { event: { case: "usage", value: u } });
const partial = () => create(StreamGenerateImagesResponseSchema, { event: { case: "partialImage", value: {} } });

/** Reads a stream to its end; the text (or event kind) it delivered and the error it ended with. */
async function drain(it: AsyncIterable<StreamGenerateResponse | { event: { case: string | undefined } }>) {
  const got: string[] = [];
  try {
    for await (const m of it) {
      const e = m.event as StreamGenerateResponse["event"];
      got.push(e.case === "partDelta" && e.value.delta.case === "text" ? e.value.delta.value : (e.case ?? ""));
    }
    return { got, err: undefined };
  } catch (e) {
    return { got, err: ConnectError.from(e) };
  }
}

/** A refusal's record: the fields a test does not name at their values for a call refused at once. */
const refusal = (r: Partial<UsageRecord>) => record({ format: "messages", status: "rejected:format_not_allowed", ...r });

t.test("format scope: refused with PERMISSION_DENIED and recorded once as rejected:format_not_allowed with the call's format and model", async (t) => {
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
  const s = setup(principal({ formats: ["image-bot"], limits: { ...NO_LIMITS, concurrentRequests: 5 } }), impls);
  const chat = await failure(s.chat.generate({ input: input("claude-x") }, as("messages")));
  t.equal(chat?.code, Code.PermissionDenied);
  t.equal(reasonOf(chat), "format_not_allowed");
  const image = await failure(s.image.generateImages({ prompt: "p", options: { model: "IMG_MODEL_A" } }, as("images")));
  t.equal(reasonOf(image), "format_not_allowed");
  const video = await failure(s.video.createVideo({ prompt: "p", model: "veo-3" }, as("video")));
  t.equal(reasonOf(video), "format_not_allowed");
  const core = await failure(s.chat.generate({ input: input("gemini-y") }, as("core")));
  t.equal(reasonOf(core), "format_not_allowed", "a remote RPC caller's format, 'core', is scoped too");
  const streamed = await drain(s.chat.streamGenerate({ input: input("claude-x") }, as("messages")));
  t.equal(streamed.err?.code, Code.PermissionDenied, "a stream is refused before it begins");
  t.same(streamed.got, []);
  t.equal(calls, 0, "no service was called");
  t.strictSame(s.rows, [
    refusal({ format: "messages", model: "claude-x" }),
    refusal({ format: "images", model: "IMG_MODEL_A" }),
    refusal({ format: "video", model: "veo-3" }),
    refusal({ format: "core", model: "gemini-y" }),
    refusal({ format: "messages", model: "claude-x" }),
  ]);
  t.same(s.counts, { acquired: 0, released: 0 });
  t.same(s.events, []);

  const allowed = setup(principal({ formats: ["messages"] }), impls);
  await allowed.chat.generate({ input: input("claude-x") }, as("messages"));
  const admin = setup(principal({ formats: ["image-bot"], admin: true }), impls);
  await admin.chat.generate({ input: input("claude-x") }, as("messages"));
  t.equal(calls, 2, "a format in the scope, and an admin key, go through");
  t.strictSame([...allowed.rows, ...admin.rows], [record({ format: "messages", model: "claude-x" }), record({ format: "messages", model: "claude-x" })], "and are recorded as served, not refused");
});

t.test("rate limit: refused with RESOURCE_EXHAUSTED and recorded once as rejected:rate_limited", async (t) => {
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
    record({ time: 1000, latencyMs: 40, format: "messages", model: "claude-x" }),
    record({ time: 1040, latencyMs: 40, format: "messages", model: "claude-x" }),
    refusal({ time: 1080, format: "generate-content", model: "claude-x", status: "rejected:rate_limited" }),
    refusal({ time: 1080, format: "image-bot", model: "", status: "rejected:rate_limited" }),
  ]);
  t.same(s.counts, { acquired: 2, released: 2 }, "the two admitted calls released their slots");
});

t.test("a refusal by the model scope or the budget is recorded once too; a service's own error is no refusal", async (t) => {
  for (const limits of [NO_LIMITS, { ...NO_LIMITS, concurrentRequests: 5 }]) {
    const label = limits.concurrentRequests ? "a key with limits" : "a key without limits";
    let calls = 0;
    const s = setup(
      principal({ budget: 10, models: ["sora-*", "claude-*"], limits }),
      {
        video: { createVideo: () => (calls++, { video: { model: "sora-2", duration: 4 } }) },
        chat: {
          generate: () => {
            calls++;
            throw new ConnectError("upstream down", Code.Unavailable);
          },
        },
        imageBot: { submitModal: () => (calls++, { result: { code: 1 } }) },
      },
      { spent: 8 },
    );
    const over = await failure(s.video.createVideo({ prompt: "p", model: "sora-2", duration: 4 }, as("video")));
    t.equal(reasonOf(over), "budget_exhausted", `${label}: 8 credits do not fit in the 2 left`);
    const scoped = await failure(s.chat.generate({ input: input("gemini-y") }, as("messages")));
    t.equal(reasonOf(scoped), "model_not_allowed", label);
    const down = await failure(s.chat.generate({ input: input("claude-x") }, as("messages")));
    t.equal(down?.code, Code.Unavailable, `${label}: the caller gets the service's error`);
    t.equal(calls, 1, `${label}: only the admitted call reached its service`);
    t.strictSame(
      s.rows,
      [
        refusal({ format: "video", model: "sora-2", status: "rejected:budget_exhausted" }),
        refusal({ format: "messages", model: "gemini-y", status: "rejected:model_not_allowed" }),
        record({ format: "messages", model: "claude-x", status: "error:14" }),
      ],
      `${label}: the two refusals, once each, and the upstream's failure as such`,
    );
    // The model scope is checked before a slot is taken: only the budget refusal and the served call took one.
    t.same(s.counts, limits.concurrentRequests ? { acquired: 2, released: 2 } : { acquired: 0, released: 0 }, `${label}: every slot released`);
  }
});

t.test("a free call on a key whose budget is used up is refused and recorded once", async (t) => {
  let calls = 0;
  const s = setup(
    principal({ budget: 10 }),
    {
      imageBot: { submitModal: () => (calls++, { result: { code: 1 } }) },
      video: { createVideo: () => (calls++, { video: { model: "mystery", duration: 4 } }) },
      chat: { generate: () => (calls++, {}) },
    },
    { spent: 10 },
  );
  const modal = await failure(s.imageBot.submitModal({ taskId: "t", prompt: "p" }, as("image-bot")));
  t.equal(modal?.code, Code.PermissionDenied);
  t.equal(reasonOf(modal), "budget_exhausted");
  const video = await failure(s.video.createVideo({ prompt: "p", model: "mystery" }, as("video")));
  t.equal(reasonOf(video), "budget_exhausted", "an unpriced video model too");
  const chat = await failure(s.chat.generate({ input: input("free-model") }, as("messages")));
  t.equal(chat?.code, Code.PermissionDenied, "and an unpriced chat model");
  t.equal(reasonOf(chat), "budget_exhausted");
  t.equal(calls, 0, "none reached its service");
  t.same(s.events, ["reserve 0", "reserve 0", "reserve 0"]);
  t.strictSame(s.rows, [
    refusal({ format: "image-bot", model: "", status: "rejected:budget_exhausted" }),
    refusal({ format: "video", model: "mystery", status: "rejected:budget_exhausted" }),
    refusal({ format: "messages", model: "free-model", status: "rejected:budget_exhausted" }),
  ]);
  t.equal(s.spent(), 10);
});

t.test("chat model scope: refused before anything is reserved, the service never called", async (t) => {
  let calls = 0;
  const s = setup(principal({ models: ["priced-a*"] }), {
    chat: {
      generate: () => (calls++, {}),
      async *streamGenerate() {
        calls++;
        yield startEv();
      },
    },
  });
  const err = await failure(s.chat.generate({ input: input("priced-b", { maxOutputTokens: 10 }) }, as("messages")));
  t.equal(err?.code, Code.PermissionDenied);
  t.equal(reasonOf(err), "model_not_allowed");
  const streamed = await drain(s.chat.streamGenerate({ input: input("priced-b", { maxOutputTokens: 10 }) }, as("messages")));
  t.equal(streamed.err?.code, Code.PermissionDenied, "a stream too");
  t.equal(reasonOf(streamed.err), "model_not_allowed");
  t.same(streamed.got, []);
  t.equal(calls, 0, "the service was never called");
  t.same(s.events, [], "nothing reserved");
  await s.chat.generate({ input: input("priced-abc", { maxOutputTokens: 10 }) }, as("messages"));
  t.equal(calls, 1, "a model inside the scope goes through");
});

t.test("chat: the service sees the output limit admission set on a budgeted key; others' requests are left alone", async (t) => {
  const seen: (number | undefined)[] = [];
  const impl: Impls = {
    chat: {
      generate: (req) => (seen.push(req.input?.config?.maxOutputTokens), { usage: { inputTokens: 5n, outputTokens: 1n } }),
      async *streamGenerate(req) {
        seen.push(req.input?.config?.maxOutputTokens);
        yield startEv({ inputTokens: 5n });
        yield usageEv({ inputTokens: 5n, outputTokens: 1n });
      },
    },
  };
  const budgeted = setup(principal({ budget: 1_000_000 }), impl);
  await budgeted.chat.generate({ input: input("priced-a") }, as("messages"));
  t.same(await drain(budgeted.chat.streamGenerate({ input: input("priced-a") }, as("messages"))), { got: ["start", "usage"], err: undefined });
  t.same(seen, [4096, 4096], "unary and streamed calls were given the default limit");
  // 5 + 5*2 + 4096*3 reserved; 5 + 5*2 + 1*3 charged.
  t.same(budgeted.events, ["reserve 12303", "settle 18", "reserve 12303", "settle 18"]);

  seen.length = 0;
  const unbudgeted = setup(principal(), impl);
  await unbudgeted.chat.generate({ input: input("priced-a") }, as("messages"));
  await drain(unbudgeted.chat.streamGenerate({ input: input("priced-a") }, as("messages")));
  t.same(seen, [undefined, undefined], "a key without a budget keeps the upstream's default");

  seen.length = 0;
  const free = setup(principal(), {
    chat: {
      generate: (req) => (seen.push(req.input?.config?.maxOutputTokens), { usage: { inputTokens: 5n, outputTokens: 9000n } }),
      async *streamGenerate(req) {
        seen.push(req.input?.config?.maxOutputTokens);
        yield startEv({ inputTokens: 5n });
        yield usageEv({ inputTokens: 5n, outputTokens: 9000n });
      },
    },
  });
  const res = await free.chat.generate({ input: input("free-model") }, as("messages"));
  t.equal(res.usage?.outputTokens, 9000n, "an unpriced model's call passes through");
  t.same((await drain(free.chat.streamGenerate({ input: input("free-model") }, as("messages")))).got, ["start", "usage"]);
  t.same(seen, [undefined, undefined], "the request is left as it is");
  t.same(free.storage, [], "no money moved");
});

t.test("chat: a call whose service fails before producing anything gives the caller its error and is refunded", async (t) => {
  let mode = "";
  const s = setup(principal({ budget: 1000 }), {
    chat: {
      generate: () => {
        throw new ConnectError("upstream down", Code.Unavailable);
      },
      async *streamGenerate() {
        if (mode === "started") yield startEv();
        throw new ConnectError("upstream down", Code.Unavailable);
      },
    },
  });
  const err = await failure(s.chat.generate({ input: input("priced-a", { maxOutputTokens: 100 }) }, as("messages")));
  t.equal(err?.code, Code.Unavailable, "the caller gets the service's error");
  t.same(s.events, ["reserve 315", "refund"]);
  const before = await drain(s.chat.streamGenerate({ input: input("priced-a", { maxOutputTokens: 100 }) }, as("messages")));
  t.same(before.got, []);
  t.equal(before.err?.code, Code.Unavailable);
  mode = "started";
  const afterStart = await drain(s.chat.streamGenerate({ input: input("priced-a", { maxOutputTokens: 100 }) }, as("messages")));
  t.same(afterStart.got, ["start"], "a start without usage and no output");
  t.equal(afterStart.err?.code, Code.Unavailable);
  t.same(s.events.slice(2), ["reserve 315", "refund", "reserve 315", "refund"]);
  t.equal(s.spent(), 0);
});

t.test("chat: an abandoned stream pays for what it delivered and its service is closed", async (t) => {
  let closed = false;
  const s = setup(principal({ budget: 1000, limits: { ...NO_LIMITS, tokensPerMinute: 1_000_000 } }), {
    chat: {
      async *streamGenerate() {
        try {
          yield startEv({ inputTokens: 5n, outputTokens: 0n });
          yield ev("Hello, world");
          yield ev(" and much more");
        } finally {
          closed = true;
        }
      },
    },
  });
  const it = s.chat.streamGenerate({ input: input("priced-a", { maxOutputTokens: 100 }) }, as("messages"))[Symbol.asyncIterator]();
  t.equal((await it.next()).value?.event.case, "start");
  t.equal((await it.next()).value?.event.case, "partDelta");
  t.same(s.events, ["reserve 315"], "nothing settled while the stream is open");
  await it.return!();
  t.ok(closed, "the service's stream was closed");
  // 5 + 5*2 + 3*3: only the text the reader received.
  t.same(s.events, ["reserve 315", "settle 24"]);
  t.equal(s.spent(), 24);
  t.same(s.consumed, [["k1", 8]]);
  t.same(
    s.rows.map((r) => r.status),
    ["canceled"],
  );
});

t.test("a failed call is refunded and recorded as error:<code>; a bug in a service is Internal", async (t) => {
  let fail: () => never = () => {
    throw new ConnectError("no upstream", Code.Unavailable);
  };
  const work = () => void (clock.now += 250);
  const s = setup(principal({ budget: 100 }), {
    video: { createVideo: () => (work(), fail()) },
    imageBot: { submitTask: () => (work(), fail()) },
  });
  const err = await failure(s.video.createVideo({ prompt: "p", model: "veo-3", duration: 6 }, as("video")));
  t.equal(err?.code, Code.Unavailable, "the caller gets the service's error");
  const task = await failure(s.imageBot.submitTask({ action: Action.IMAGINE, prompt: "a cat" }, as("image-bot")));
  t.equal(task?.code, Code.Unavailable);
  fail = () => {
    throw new TypeError("a bug");
  };
  const internal = await failure(s.video.createVideo({ prompt: "p" }, as("video")));
  t.equal(internal?.code, Code.Internal);
  t.notMatch(internal?.message, /a bug/, "without its text");
  // veo-3 6 s at 5/s, IMAGINE at 2, sora-2 (the default) 4 s (the default) at 2/s: all refunded.
  t.same(s.events, ["reserve 30", "refund", "reserve 2", "refund", "reserve 8", "refund"]);
  t.equal(s.spent(), 0);
  t.strictSame(s.rows, [
    record({ time: 1000, latencyMs: 250, format: "video", model: "veo-3", status: "error:14" }),
    record({ time: 1250, latencyMs: 250, format: "image-bot", model: "IMAGINE", status: "error:14" }),
    record({ time: 1500, latencyMs: 250, format: "video", model: "", status: "error:13" }),
  ]);
});

t.test("streamed images: settled at the batch, the stream's last message; a budget too small refused before the stream begins", async (t) => {
  let calls = 0;
  const impls: Impls = {
    image: {
      async *streamGenerateImages() {
        calls++;
        yield partial();
        yield partial();
        yield create(StreamGenerateImagesResponseSchema, { event: { case: "batch", value: { size: "1024x1024", images: [{}] } } });
      },
    },
  };
  const req = { prompt: "a boat", options: { model: "IMG_MODEL_C", quality: "low" }, partialImages: 2 };
  const s = setup(principal({ budget: 100 }), impls);
  const res = await drain(s.image.streamGenerateImages(req, as("images")));
  t.same(res, { got: ["partialImage", "partialImage", "batch"], err: undefined });
  // An "auto" size reserves the dearest size (1536x1024 at 5); the batch is 1024x1024 at 2.
  t.same(s.events, ["reserve 5", "settle 2"]);
  t.equal(s.spent(), 2);
  t.same(
    s.rows.map((r) => [r.images, r.credits]),
    [[1, 2]],
  );

  const poor = setup(principal({ budget: 4 }), impls);
  const refused = await drain(poor.image.streamGenerateImages(req, as("images")));
  t.equal(refused.err?.code, Code.PermissionDenied);
  t.equal(reasonOf(refused.err), "budget_exhausted");
  t.same(refused.got, []);
  t.equal(calls, 1, "the refused stream's service was never called");
  t.same(poor.events, ["reserve 5"]);
  t.equal(poor.spent(), 0);
});

t.test("streamed images: held while open, refunded when the stream ends without its batch, its service closed", async (t) => {
  let how = "";
  let closed = 0;
  const s = setup(principal({ budget: 100 }), {
    image: {
      async *streamGenerateImages() {
        try {
          yield partial();
          if (how === "fail") throw new ConnectError("upstream reset", Code.Unavailable);
          if (how === "abandon") yield partial();
        } finally {
          closed++;
        }
      },
    },
  });
  const req = { prompt: "a boat", options: { model: "IMG_MODEL_C", size: "1024x1024", quality: "low" }, partialImages: 1 };
  const ended = await drain(s.image.streamGenerateImages(req, as("images")));
  t.same(ended, { got: ["partialImage"], err: undefined }, "a stream that just ends");
  how = "fail";
  const failed = await drain(s.image.streamGenerateImages(req, as("images")));
  t.same(failed.got, ["partialImage"]);
  t.equal(failed.err?.code, Code.Unavailable, "a stream that fails");
  how = "abandon";
  const it = s.image.streamGenerateImages(req, as("images"))[Symbol.asyncIterator]();
  t.equal((await it.next()).value?.event.case, "partialImage");
  t.same(s.events.slice(4), ["reserve 2"], "held while the stream is open");
  await it.return!();
  t.equal(closed, 3, "every service stream was closed");
  // 1024x1024 at 2, three times, all refunded.
  t.same(s.events, ["reserve 2", "refund", "reserve 2", "refund", "reserve 2", "refund"]);
  t.equal(s.spent(), 0);
  t.same(
    s.rows.map((r) => r.status),
    ["ok", "error:14", "canceled"],
  );
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
  const it = s.chat.streamGenerate({ input: input("claude-x") }, as("messages"))[Symbol.asyncIterator]();
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

t.test("a stream whose reader stops early, that fails, or whose caller goes away releases its slot once", async (t) => {
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
  const it = s.chat.streamGenerate({ input: input("claude-x") }, as("messages"))[Symbol.asyncIterator]();
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
  const aborted = s.chat.streamGenerate({ input: input("claude-x") }, as("messages", { signal: ac.signal }))[Symbol.asyncIterator]();
  await aborted.next();
  ac.abort();
  for (let i = 0; i < 20 && (s.counts.released < 3 || closed < 3); i++) await new Promise((r) => setImmediate(r));
  t.same(s.counts, { acquired: 3, released: 3 }, "the caller aborted: released once");
  t.equal(closed, 3);
  t.same(
    s.rows.map((r) => r.status),
    ["canceled", "error:14", "canceled"],
    "none of this is a refusal",
  );
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

t.test("keys without limits take no slot; a call without a valid key is refused before admission, unrecorded", async (t) => {
  let calls = 0;
  const s = setup(principal(), { chat: { generate: () => (calls++, { id: "ok" }) } });
  t.equal((await s.chat.generate({ input: input("claude-x") }, as("messages"))).id, "ok");
  t.same(s.counts, { acquired: 0, released: 0 });
  const rows = s.rows.length;
  for (const apiKey of [undefined, "wrong"]) {
    const err = await failure(s.chat.generate({ input: input("claude-x") }, as("messages", { apiKey })));
    t.equal(err?.code, Code.Unauthenticated, apiKey ? "an unknown key" : "no key");
  }
  t.equal(calls, 1);
  t.same(s.counts, { acquired: 0, released: 0 });
  t.same(s.events, [], "an unpriced call on a key without a budget does not touch it");
  t.equal(s.rows.length, rows, "not recorded");
});
