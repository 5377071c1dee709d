// Settlement (core/tenancy/settlement.ts) driven directly, with in-memory
// fakes: no pipeline, no app. Each call is admitted by the real admission (for
// its ticket and reservation), takes 250 ms on a fake clock, and is settled
// with its outcome as the pipeline makes it (a stream's response is what its
// tally amounts to). Settlement gives the slot back, charges what the call
// really cost (capped at the reservation on a budgeted key; charged after the
// fact when nothing was reserved) or refunds a call that produced nothing,
// feeds the tokens-per-minute bucket, and writes the one usage record;
// `refused` records a tenancy gate's refusal. Expected credits are worked out
// by hand from PRICES below.
import t from "tap";
import { create, type DescMessage, type DescMethodServerStreaming, type DescMethodUnary, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ChatService, Role, StreamGenerateResponseSchema, type ChatInputSchema } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { ImageService, StreamGenerateImagesResponseSchema } from "../../../gen/omnigate/image/v1/image_pb.js";
import { Action, ImageBotService } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { ModelService } from "../../../gen/omnigate/model/v1/model_pb.js";
import { VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import type { Principal } from "../../../src/core/call/call.js";
import { coreError, permissionDenied, tagChannel, unauthenticated } from "../../../src/core/errors.js";
import { modelResolver } from "../../../src/core/image/profiles.js";
import type { Ticket } from "../../../src/core/tenancy/admission.js";
import { rateLimited, type Limits } from "../../../src/core/tenancy/limiter.js";
import { priceSchema, type PriceTable } from "../../../src/core/tenancy/prices.js";
import { GATE } from "../../../src/core/tenancy/scope.js";
import type { UsageRecord } from "../../../src/storage/types.js";
import { call, failure, message, money, NO_LIMITS, principal, record, type MoneyOptions } from "./fakes.js";

const PRICES: PriceTable = priceSchema.parse({
  // Credits per token: input 2, output 3, cache reads and writes at the input price; 5 flat per request.
  chat: [{ model: "priced-*", input: 2_000_000, output: 3_000_000, request: 5 }],
  images: [
    { model: "IMG_MODEL_C", size: "1536x1024", perImage: 5 },
    { model: "IMG_MODEL_C", perImage: 2 },
    { model: "IMG_MODEL_A", size: "256x256", perImage: 3 },
  ],
  imageBot: { IMAGINE: 2, UPSCALE: 1, "*": 3 },
  video: [
    { model: "sora-2", perSecond: 2 },
    { model: "veo-*", perSecond: 5 },
  ],
});

/** A key with a tokens-per-minute limit too large to matter, so that its tokens are counted. */
const TPM: Limits = { ...NO_LIMITS, tokensPerMinute: 1_000_000 };

/** A fake clock: every call takes 250 ms, so every record's latency is 250. */
const clock = { now: 1000 };

type StreamEnd = "completed" | "canceled" | ConnectError;

function setup(p: Principal, opts: MoneyOptions = {}) {
  clock.now = 1000;
  const s = money(p, { prices: PRICES, imageModels: modelResolver({}), now: () => clock.now, ...opts });
  const admit = <I extends DescMessage>(method: (DescMethodUnary | DescMethodServerStreaming) & { input: I }, init: MessageInitShape<I>, format: string) =>
    Promise.resolve().then(() => s.admission.admit(method, message(method, init), call(p, format), clock.now));

  /** A unary call: admitted, 250 ms of work, settled with its response (made a message, as the pipeline does) or its error. */
  async function unary<I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>, init: MessageInitShape<I>, format: string, out: MessageInitShape<O> | ConnectError) {
    const ticket = await admit(method, init, format);
    clock.now += 250;
    if (out instanceof ConnectError) await s.settlement.settle(ticket, { res: undefined, error: out, canceled: false });
    else await s.settlement.settle(ticket, { res: create(method.output, out) });
    return ticket;
  }

  /** A streamed call: admitted, its messages tallied as they pass, 250 ms, settled at how it ended. */
  async function stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodServerStreaming<I, O>,
    init: MessageInitShape<I>,
    format: string,
    messages: MessageInitShape<O>[],
    end: StreamEnd,
  ) {
    const ticket = await admit(method, init, format);
    for (const m of messages) ticket.tally?.each(create(method.output, m));
    clock.now += 250;
    await settleStream(ticket, end);
    return ticket;
  }

  const settleStream = (ticket: Ticket, end: StreamEnd) =>
    s.settlement.settle(ticket, {
      res: ticket.tally?.result(end === "completed"),
      error: end instanceof ConnectError ? end : undefined,
      canceled: end === "canceled",
    });

  return { ...s, admit, unary, stream, settleStream };
}

// One user turn "hello world": 5 input tokens (admission.test.ts).
const input = (model = "priced-a", config?: { maxOutputTokens?: number; thinking?: { budgetTokens: number } }): MessageInitShape<typeof ChatInputSchema> => ({
  model,
  turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "hello world" } } }] }],
  ...(config ? { config } : {}),
});
const bounded = { input: input("priced-a", { maxOutputTokens: 100 }) };

type Ev = MessageInitShape<typeof StreamGenerateResponseSchema>;
const startEv = (usage?: { inputTokens?: bigint; outputTokens?: bigint }, channel = ""): Ev => ({
  event: { case: "start", value: { id: "s1", model: "priced-a", channel, ...(usage ? { usage } : {}) } },
});
const delta = (kind: "text" | "thinking" | "argumentsJson", value: string): Ev => ({ event: { case: "partDelta", value: { candidateIndex: 0, index: 0, delta: { case: kind, value } } } });
const usageEv = (u: { inputTokens?: bigint; outputTokens?: bigint; cacheReadTokens?: bigint; cacheWriteTokens?: bigint }): Ev => ({ event: { case: "usage", value: u } });
const reset = () => new ConnectError("connection reset", Code.Unavailable);

type ImgEv = MessageInitShape<typeof StreamGenerateImagesResponseSchema>;
const partial = (): ImgEv => ({ event: { case: "partialImage", value: {} } });
const batch = (size: string, n = 1, channel = ""): ImgEv => ({ event: { case: "batch", value: { size, channel, images: Array.from({ length: n }, () => ({})) } } });

/** The record of a call that took 250 ms. */
const rec = (r: Partial<UsageRecord>) => record({ latencyMs: 250, ...r });

// --- chat ---

t.test("chat: settled at the real usage; recorded with its model, channel and tokens", async (t) => {
  const s = setup(principal());
  await s.unary(ChatService.method.generate, bounded, "messages", { channel: "ch-1", usage: { inputTokens: 5n, outputTokens: 20n } });
  // 5 + 5*2 + 100*3 reserved; 5 + 5*2 + 20*3 charged.
  t.same(s.events, ["reserve 315", "settle 75"]);
  t.equal(s.spent(), 75);
  await s.unary(ChatService.method.generate, { input: input("priced-a", { maxOutputTokens: 100, thinking: { budgetTokens: 50 } }) }, "messages", { usage: { inputTokens: 5n, outputTokens: 20n } });
  // A thinking budget is output on top of the limit: 5 + 5*2 + (100+50)*3.
  t.same(s.events.slice(2), ["reserve 465", "settle 75"]);
  t.equal(s.spent(), 150);
  t.strictSame(s.rows, [
    rec({ time: 1000, format: "messages", model: "priced-a", channel: "ch-1", inputTokens: 5, outputTokens: 20, credits: 75 }),
    rec({ time: 1250, format: "messages", model: "priced-a", inputTokens: 5, outputTokens: 20, credits: 75 }),
  ]);
});

t.test("chat: a budgeted key's call without an output limit, reserved at the default, settles at its usage", async (t) => {
  const done = [startEv({ inputTokens: 5n }), usageEv({ inputTokens: 5n, outputTokens: 1n })];
  // 5 + 5*2 + 4096*3 reserved; 5 + 5*2 + 1*3 charged.
  const budgeted = setup(principal({ budget: 1_000_000 }));
  await budgeted.unary(ChatService.method.generate, { input: input() }, "messages", { usage: { inputTokens: 5n, outputTokens: 1n } });
  await budgeted.stream(ChatService.method.streamGenerate, { input: input() }, "messages", done, "completed");
  t.same(budgeted.events, ["reserve 12303", "settle 18", "reserve 12303", "settle 18"]);
  t.equal(budgeted.spent(), 36);
  await budgeted.unary(ChatService.method.generate, { input: input("priced-a", { maxOutputTokens: 7 }) }, "messages", { usage: { inputTokens: 5n, outputTokens: 1n } });
  t.same(budgeted.events.slice(4), ["reserve 36", "settle 18"], "reserved 5 + 5*2 + 7*3");

  const unbudgeted = setup(principal());
  await unbudgeted.unary(ChatService.method.generate, { input: input() }, "messages", { usage: { inputTokens: 5n, outputTokens: 1n } });
  await unbudgeted.stream(ChatService.method.streamGenerate, { input: input() }, "messages", done, "completed");
  t.same(unbudgeted.events, ["reserve 12303", "settle 18", "reserve 12303", "settle 18"], "reserved as if 4096");
});

t.test("chat: capped at the reservation on a budgeted key, the full usage on an unbudgeted one", async (t) => {
  const big = { inputTokens: 5n, outputTokens: 9000n, cacheReadTokens: 10n, cacheWriteTokens: 4n };
  const streamed = [startEv({ inputTokens: 5n }), delta("text", "long answer"), usageEv(big)];
  // Reserved: 5 + 5*2 + 100*3 = 315. Used: 5 + 5*2 + 9000*3 + 10*2 + 4*2 = 27043.
  const budgeted = setup(principal({ budget: 1_000_000 }));
  await budgeted.unary(ChatService.method.generate, bounded, "messages", { usage: big });
  await budgeted.stream(ChatService.method.streamGenerate, bounded, "messages", streamed, "completed");
  t.same(budgeted.events, ["reserve 315", "settle 315", "reserve 315", "settle 315"]);
  t.equal(budgeted.spent(), 630);
  t.same(
    budgeted.rows.map((r) => [r.inputTokens, r.outputTokens, r.credits]),
    [
      [19, 9000, 315],
      [19, 9000, 315],
    ],
    "the record has the tokens used (input with cache reads and writes) and the credits charged",
  );

  const unbudgeted = setup(principal());
  await unbudgeted.unary(ChatService.method.generate, bounded, "messages", { usage: big });
  await unbudgeted.stream(ChatService.method.streamGenerate, bounded, "messages", streamed, "completed");
  t.same(unbudgeted.events, ["reserve 315", "settle 27043", "reserve 315", "settle 27043"]);
  t.equal(unbudgeted.spent(), 54086);
  t.same(
    unbudgeted.rows.map((r) => r.credits),
    [27043, 27043],
  );
});

t.test("chat: a call that fails before producing anything is refunded and recorded as error:<code>", async (t) => {
  const s = setup(principal({ budget: 1000, limits: TPM }));
  await s.unary(ChatService.method.generate, bounded, "messages", new ConnectError("upstream down", Code.Unavailable));
  t.same(s.events, ["reserve 315", "refund"]);
  t.equal(s.spent(), 0);
  await s.stream(ChatService.method.streamGenerate, bounded, "messages", [], reset());
  await s.stream(ChatService.method.streamGenerate, bounded, "messages", [startEv()], reset());
  t.same(s.events.slice(2), ["reserve 315", "refund", "reserve 315", "refund"], "a stream failed at once, or after a start without usage and no output");
  t.equal(s.spent(), 0);
  t.same(
    s.consumed.filter(([, n]) => n > 0),
    [],
    "no tokens consumed",
  );
  t.strictSame(s.rows, [
    rec({ time: 1000, format: "messages", model: "priced-a", status: "error:14" }),
    rec({ time: 1250, format: "messages", model: "priced-a", status: "error:14" }),
    rec({ time: 1500, format: "messages", model: "priced-a", status: "error:14" }),
  ]);
});

t.test("chat: a broken stream pays for what it delivered: counted text when the upstream reported 0 output tokens", async (t) => {
  const s = setup(principal({ limits: TPM }));
  await s.stream(
    ChatService.method.streamGenerate,
    bounded,
    "messages",
    [
      startEv({ inputTokens: 5n, outputTokens: 0n }),
      delta("text", "Hello, world"), // Hello , world: 3 tokens
      delta("thinking", "think more"), // 2 tokens
      delta("argumentsJson", "{}"), // { }: 2 tokens
    ],
    reset(),
  );
  // 5 + 5*2 + (3+2+2)*3.
  t.same(s.events, ["reserve 315", "settle 36"]);
  t.equal(s.spent(), 36);
  t.same(s.consumed, [["k1", 12]], "5 input + 7 counted output tokens");
  t.strictSame(s.rows, [rec({ format: "messages", model: "priced-a", inputTokens: 5, outputTokens: 7, credits: 36, status: "error:14" })]);
});

t.test("chat: a broken stream whose upstream reported output tokens pays those", async (t) => {
  const s = setup(principal());
  await s.stream(ChatService.method.streamGenerate, bounded, "messages", [startEv({ inputTokens: 5n }), delta("text", "Hello, world"), usageEv({ inputTokens: 5n, outputTokens: 11n })], reset());
  // 5 + 5*2 + 11*3.
  t.same(s.events, ["reserve 315", "settle 48"]);
});

t.test("chat: a broken stream pays at least what it delivered when the upstream reported fewer output tokens", async (t) => {
  const s = setup(principal({ limits: TPM }));
  // Anthropic's message_start reports 1; "Hello, world" is 3 tokens.
  await s.stream(ChatService.method.streamGenerate, bounded, "messages", [startEv({ inputTokens: 5n, outputTokens: 1n }), delta("text", "Hello, world")], reset());
  // 5 + 5*2 + 3*3.
  t.same(s.events, ["reserve 315", "settle 24"]);
  t.same(s.consumed, [["k1", 8]]);
});

t.test("chat: a broken stream without any reported usage pays its counted input and output", async (t) => {
  const s = setup(principal({ limits: TPM }));
  // A Gemini start whose first chunk had no usageMetadata; "Hello, world" is 3 tokens.
  await s.stream(ChatService.method.streamGenerate, bounded, "messages", [startEv(), delta("text", "Hello, world")], reset());
  // 5 + 5*2 + 3*3: the input counted by the gateway's tokenizer, not the flat fee alone.
  t.same(s.events, ["reserve 315", "settle 24"]);
  t.same(s.consumed, [["k1", 8]]);
  t.same(
    s.rows.map((r) => [r.inputTokens, r.outputTokens]),
    [[5, 3]],
  );
});

t.test("chat: a canceled stream pays for what it delivered and is recorded as canceled", async (t) => {
  const s = setup(principal({ budget: 1000, limits: TPM }));
  await s.stream(ChatService.method.streamGenerate, bounded, "messages", [startEv({ inputTokens: 5n, outputTokens: 0n }, "ch-2"), delta("text", "Hello, world")], "canceled");
  // 5 + 5*2 + 3*3: only the text the reader received.
  t.same(s.events, ["reserve 315", "settle 24"]);
  t.equal(s.spent(), 24);
  t.same(s.consumed, [["k1", 8]]);
  t.strictSame(s.rows, [rec({ format: "messages", model: "priced-a", channel: "ch-2", inputTokens: 5, outputTokens: 3, credits: 24, status: "canceled" })]);
});

t.test("chat: a stream's usage comes from its usage event or its start event, its channel from its start", async (t) => {
  const s = setup(principal());
  await s.stream(
    ChatService.method.streamGenerate,
    bounded,
    "messages",
    [startEv({ inputTokens: 5n, outputTokens: 1n }, "ch-a"), delta("text", "hi"), usageEv({ inputTokens: 5n, outputTokens: 2n })],
    "completed",
  );
  await s.stream(ChatService.method.streamGenerate, bounded, "messages", [startEv({ inputTokens: 5n, outputTokens: 4n }, "ch-b"), delta("text", "hi")], "completed");
  await s.stream(ChatService.method.streamGenerate, bounded, "messages", [startEv(undefined, "ch-c")], "completed");
  // 5 + 5*2 + 2*3 from the usage event; 5 + 5*2 + 4*3 from the start; a completed stream without usage costs its flat fee.
  t.same(s.events, ["reserve 315", "settle 21", "reserve 315", "settle 27", "reserve 315", "settle 5"]);
  t.strictSame(s.rows, [
    rec({ time: 1000, format: "messages", model: "priced-a", channel: "ch-a", inputTokens: 5, outputTokens: 2, credits: 21 }),
    rec({ time: 1250, format: "messages", model: "priced-a", channel: "ch-b", inputTokens: 5, outputTokens: 4, credits: 27 }),
    rec({ time: 1500, format: "messages", model: "priced-a", channel: "ch-c", credits: 5 }),
  ]);
});

t.test("chat: tokens per minute: the call's tokens are consumed from the key's bucket", async (t) => {
  const limits: Limits = { ...NO_LIMITS, tokensPerMinute: 30 };
  const s = setup(principal({ limits }));
  await s.unary(ChatService.method.generate, bounded, "messages", { usage: { inputTokens: 5n, outputTokens: 20n, cacheReadTokens: 10n, cacheWriteTokens: 4n } });
  t.same(s.consumed, [["k1", 39]], "input + output + cache read + cache write");
  const err = await failure(s.limiter.acquire("k1", limits));
  t.equal(err?.code, Code.ResourceExhausted, "39 of a 30-token minute: the next call is refused");
  t.match(err?.message, /tokens per minute/);

  // An unpriced model is metered too when the key has a token limit: nothing to reserve, tokens consumed.
  const unpriced = setup(principal({ limits: { ...limits, tokensPerMinute: 1000 } }));
  await unpriced.unary(ChatService.method.generate, { input: input("free-model") }, "messages", { usage: { inputTokens: 5n, outputTokens: 20n } });
  t.same(unpriced.events, ["reserve 0"], "a reservation of 0 (a no-op hold); a price of 0 charges nothing");
  t.same(unpriced.consumed, [["k1", 25]]);
  t.equal(unpriced.spent(), 0);
});

t.test("chat: an unpriced model on a key without budget or limits moves no money and counts no tokens", async (t) => {
  const s = setup(principal());
  await s.unary(ChatService.method.generate, { input: input("free-model") }, "messages", { usage: { inputTokens: 5n, outputTokens: 9000n } });
  await s.stream(ChatService.method.streamGenerate, { input: input("free-model") }, "messages", [startEv({ inputTokens: 5n }), usageEv({ inputTokens: 5n, outputTokens: 9000n })], "completed");
  t.same(s.events, [], "no reservation, no charge");
  t.same(s.storage, [], "nothing reached the key store");
  t.same(s.consumed, [], "no tokens counted");
  t.equal(s.spent(), 0);
  t.same(
    s.rows.map((r) => [r.model, r.outputTokens, r.credits]),
    [
      ["free-model", 9000, 0],
      ["free-model", 9000, 0],
    ],
    "but the calls are recorded",
  );
});

// --- image-bot ---

t.test("image-bot submitTask: charged only when accepted (code 1 or 22); recorded ok or rejected:<code>", async (t) => {
  const s = setup(principal({ budget: 100 }));
  const submit = (action: Action, res: { result?: { code: number; taskId: string } }) => s.unary(ImageBotService.method.submitTask, { action, prompt: "a cat" }, "image-bot", res);
  await submit(Action.IMAGINE, { result: { code: 1, taskId: "t" } });
  await submit(Action.IMAGINE, { result: { code: 22, taskId: "t" } });
  await submit(Action.IMAGINE, { result: { code: 24, taskId: "t" } });
  await submit(Action.BLEND, { result: { code: 1, taskId: "t" } });
  await submit(Action.UPSCALE, {});
  // IMAGINE 2, IMAGINE 2 (code 22 is accepted too), IMAGINE refused, BLEND at "*" 3, UPSCALE without a result refused.
  t.same(s.events, ["reserve 2", "settle 2", "reserve 2", "settle 2", "reserve 2", "settle 0", "reserve 3", "settle 3", "reserve 1", "settle 0"]);
  t.equal(s.spent(), 7);
  t.strictSame(s.rows, [
    rec({ time: 1000, format: "image-bot", model: "IMAGINE", credits: 2, status: "ok" }),
    rec({ time: 1250, format: "image-bot", model: "IMAGINE", credits: 2, status: "ok" }),
    rec({ time: 1500, format: "image-bot", model: "IMAGINE", credits: 0, status: "rejected:24" }),
    rec({ time: 1750, format: "image-bot", model: "BLEND", credits: 3, status: "ok" }),
    rec({ time: 2000, format: "image-bot", model: "UPSCALE", credits: 0, status: "rejected:0" }),
  ]);
});

t.test("image-bot submitAction: priced by the button's action; submitModal is free", async (t) => {
  const s = setup(principal());
  await s.unary(ImageBotService.method.submitAction, { taskId: "t1", customId: "MJ::JOB::upsample::2::abc" }, "image-bot", { result: { code: 1 } });
  await s.unary(ImageBotService.method.submitAction, { taskId: "t1", customId: "MJ::JOB::pan_up::1::abc::SOLO" }, "image-bot", { result: { code: 1 } });
  await s.unary(ImageBotService.method.submitAction, { taskId: "t1", customId: "MJ::JOB::upsample::1::abc" }, "image-bot", { result: { code: 23 } });
  await s.unary(ImageBotService.method.submitModal, { taskId: "t1", prompt: "more" }, "image-bot", { result: { code: 1 } });
  // UPSCALE 1, PAN at "*" 3, UPSCALE refused (23); the modal costs nothing and touches no budget.
  t.same(s.events, ["reserve 1", "settle 1", "reserve 3", "settle 3", "reserve 1", "settle 0"]);
  t.equal(s.spent(), 4);
  t.strictSame(s.rows, [
    rec({ time: 1000, format: "image-bot", model: "UPSCALE", credits: 1 }),
    rec({ time: 1250, format: "image-bot", model: "PAN", credits: 3 }),
    rec({ time: 1500, format: "image-bot", model: "UPSCALE", credits: 0, status: "rejected:23" }),
    rec({ time: 1750, format: "image-bot", model: "MODAL", credits: 0 }),
  ]);
});

t.test("the record's channel and model come from the response: the channel that took the task, a modal's action", async (t) => {
  const s = setup(principal());
  await s.unary(ImageBotService.method.submitTask, { action: Action.IMAGINE, prompt: "a cat" }, "image-bot", { result: { code: 1, channel: "mj-7" } });
  await s.unary(ImageBotService.method.submitModal, { taskId: "t1", prompt: "a dog" }, "image-bot", { result: { code: 22, channel: "mj-8", action: "VARIATION" } });
  await s.unary(VideoService.method.createVideo, { prompt: "p" }, "video", { video: { model: "sora-2", duration: 4, channel: "vchan" } });
  t.strictSame(s.rows, [
    rec({ time: 1000, format: "image-bot", model: "IMAGINE", channel: "mj-7", credits: 2 }),
    rec({ time: 1250, format: "image-bot", model: "VARIATION", channel: "mj-8", credits: 0 }),
    rec({ time: 1500, format: "video", model: "sora-2", channel: "vchan", seconds: 4, credits: 8 }),
  ]);
  t.equal(s.spent(), 10, "the price is the action's (a modal's is paid at its submission) and the video's");

  const quiet = setup(principal(), { usage: false });
  await quiet.unary(ImageBotService.method.submitTask, { action: Action.IMAGINE, prompt: "a cat" }, "image-bot", { result: { code: 1, channel: "mj-7" } });
  t.equal(quiet.spent(), 2, "no usage store: the call is still charged");
  t.same(quiet.rows, []);
});

// --- video ---

t.test("video: priced at the request's or the default model and duration; recorded with seconds and channel", async (t) => {
  const s = setup(principal());
  await s.unary(VideoService.method.createVideo, { prompt: "a wave" }, "video", { video: { id: "v", model: "sora-2", duration: 4, channel: "vchan" } });
  await s.unary(VideoService.method.createVideo, { prompt: "a wave", model: "veo-3", duration: 6 }, "video", { video: { id: "v", model: "veo-3", duration: 6, channel: "vchan" } });
  // sora-2 (the default) at 2/s for 4 s (the default); veo-3 at 5/s for 6 s.
  t.same(s.events, ["reserve 8", "settle 8", "reserve 30", "settle 30"]);
  t.equal(s.spent(), 38);
  t.strictSame(s.rows, [
    rec({ time: 1000, format: "video", model: "sora-2", channel: "vchan", seconds: 4, credits: 8 }),
    rec({ time: 1250, format: "video", model: "veo-3", channel: "vchan", seconds: 6, credits: 30 }),
  ]);
});

t.test("video: settled at the length made, never above the reservation on a budgeted key", async (t) => {
  const made = (duration: number) => ({ video: { model: "veo-3", duration, channel: "c" } });
  const budgeted = setup(principal({ budget: 1000 }));
  await budgeted.unary(VideoService.method.createVideo, { prompt: "p", model: "veo-3", duration: 6 }, "video", made(5));
  await budgeted.unary(VideoService.method.createVideo, { prompt: "p", model: "veo-3", duration: 6 }, "video", made(10));
  // Reserved 6*5 = 30 each; made 5 s (25), then 10 s (50, capped at 30).
  t.same(budgeted.events, ["reserve 30", "settle 25", "reserve 30", "settle 30"]);
  t.equal(budgeted.spent(), 55);
  t.same(
    budgeted.rows.map((r) => [r.seconds, r.credits]),
    [
      [5, 25],
      [10, 30],
    ],
  );

  const unbudgeted = setup(principal());
  await unbudgeted.unary(VideoService.method.createVideo, { prompt: "p", model: "veo-3", duration: 6 }, "video", made(10));
  t.same(unbudgeted.events, ["reserve 30", "settle 50"], "a key without a budget pays what was made");
  t.equal(unbudgeted.spent(), 50);
});

t.test("video: a price known only from the response is charged after the fact on a key without a budget", async (t) => {
  const res = { video: { model: "sora-2", duration: 4, channel: "c" } };
  const unbudgeted = setup(principal());
  await unbudgeted.unary(VideoService.method.createVideo, { prompt: "p", model: "mystery" }, "video", res);
  t.same(unbudgeted.events, ["charge 8"], "nothing to reserve for an unpriced model; 4 s of sora-2 charged");
  t.equal(unbudgeted.spent(), 8);
  t.strictSame(unbudgeted.rows, [rec({ format: "video", model: "sora-2", channel: "c", seconds: 4, credits: 8 })]);

  const budgeted = setup(principal({ budget: 100 }));
  await budgeted.unary(VideoService.method.createVideo, { prompt: "p", model: "mystery" }, "video", res);
  t.same(budgeted.events, ["reserve 0"], "a budgeted key pays no more than it reserved");
  t.equal(budgeted.spent(), 0);
  t.equal(budgeted.rows[0]?.credits, 0);
});

t.test("video remix: reserves the longest video at the dearest price, settles at what was made", async (t) => {
  const s = setup(principal({ budget: 1000 }));
  await s.unary(VideoService.method.remixVideo, { id: "v1", prompt: "again" }, "video", { video: { model: "sora-2", duration: 4, channel: "c" } });
  // 60 s at 5/s reserved; 4 s at 2/s charged.
  t.same(s.events, ["reserve 300", "settle 8"]);
  t.equal(s.spent(), 8);
  t.strictSame(s.rows, [rec({ format: "video", model: "sora-2", channel: "c", seconds: 4, credits: 8 })]);
});

// --- failures ---

t.test("a failed call is refunded and recorded as error:<code> with 0 credits", async (t) => {
  const s = setup(principal({ budget: 100 }));
  await s.unary(VideoService.method.createVideo, { prompt: "p", model: "veo-3", duration: 6 }, "video", new ConnectError("no upstream", Code.Unavailable));
  await s.unary(ImageBotService.method.submitTask, { action: Action.IMAGINE, prompt: "a cat" }, "image-bot", new ConnectError("no upstream", Code.Unavailable));
  await s.unary(VideoService.method.createVideo, { prompt: "p" }, "video", new ConnectError("internal error", Code.Internal));
  t.same(s.events, ["reserve 30", "refund", "reserve 2", "refund", "reserve 8", "refund"]);
  t.equal(s.spent(), 0);
  t.strictSame(s.rows, [
    rec({ time: 1000, format: "video", model: "veo-3", status: "error:14" }),
    rec({ time: 1250, format: "image-bot", model: "IMAGINE", status: "error:14" }),
    rec({ time: 1500, format: "video", model: "", status: "error:13" }),
  ]);
});

t.test("a failure's record names the channel its error names", async (t) => {
  const s = setup(principal());
  await s.unary(ChatService.method.generate, bounded, "messages", tagChannel(new ConnectError("upstream down", Code.Unavailable), "ch-9"));
  await s.stream(ChatService.method.streamGenerate, bounded, "messages", [startEv({ inputTokens: 5n }, "ch-start"), delta("text", "Hello, world")], tagChannel(reset(), "ch-9"));
  t.strictSame(
    s.rows.map((r) => [r.channel, r.status]),
    [
      ["ch-9", "error:14"],
      ["ch-start", "error:14"],
    ],
    "the channel the stream's start named comes first",
  );
});

t.test("a caller that went away is recorded as canceled, whatever the error", async (t) => {
  const s = setup(principal({ budget: 100 }));
  const ticket = await s.admit(VideoService.method.createVideo, { prompt: "p", model: "veo-3", duration: 6 }, "video");
  clock.now += 250;
  await s.settlement.settle(ticket, { res: undefined, error: new ConnectError("gone", Code.Canceled), canceled: true });
  t.same(s.events, ["reserve 30", "refund"]);
  t.strictSame(s.rows, [rec({ format: "video", model: "veo-3", status: "canceled" })]);
});

// --- images ---

t.test("images: settled at the images made; recorded with their count, channel and tokens", async (t) => {
  const s = setup(principal({ budget: 100 }));
  await s.unary(ImageService.method.generateImages, { prompt: "two cats", options: { model: "IMG_MODEL_A", n: 2, size: "256x256" } }, "images", {
    batch: { size: "256x256", channel: "img-1", images: [{}], usage: { inputTokens: 7n, outputTokens: 9n } },
  });
  // 2 images at 3 reserved; 1 made.
  t.same(s.events, ["reserve 6", "settle 3"]);
  t.equal(s.spent(), 3);
  t.strictSame(s.rows, [rec({ format: "images", model: "IMG_MODEL_A", channel: "img-1", inputTokens: 7, outputTokens: 9, images: 1, credits: 3 })], "one record, the pipeline's");
});

t.test("streamed images: settled at the batch, the stream's last message", async (t) => {
  const s = setup(principal({ budget: 100 }));
  await s.stream(
    ImageService.method.streamGenerateImages,
    { prompt: "a boat", options: { model: "IMG_MODEL_C", quality: "low" }, partialImages: 2 },
    "images",
    [partial(), partial(), batch("1024x1024", 1, "img-2")],
    "completed",
  );
  // An "auto" size reserves the dearest size (1536x1024 at 5); the batch is 1024x1024 at 2.
  t.same(s.events, ["reserve 5", "settle 2"]);
  t.equal(s.spent(), 2);
  t.strictSame(s.rows, [rec({ format: "images", model: "IMG_MODEL_C", channel: "img-2", images: 1, credits: 2 })]);
});

t.test("streamed images: refunded when the stream ends without its batch", async (t) => {
  const s = setup(principal({ budget: 100 }));
  const req = { prompt: "a boat", options: { model: "IMG_MODEL_C", size: "1024x1024", quality: "low" }, partialImages: 1 };
  await s.stream(ImageService.method.streamGenerateImages, req, "images", [partial()], "completed");
  await s.stream(ImageService.method.streamGenerateImages, req, "images", [partial()], new ConnectError("upstream reset", Code.Unavailable));
  await s.stream(ImageService.method.streamGenerateImages, req, "images", [partial()], "canceled");
  // 1024x1024 at 2, three times, all refunded.
  t.same(s.events, ["reserve 2", "refund", "reserve 2", "refund", "reserve 2", "refund"]);
  t.equal(s.spent(), 0);
  t.same(
    s.rows.map((r) => [r.status, r.credits, r.images]),
    [
      ["ok", 0, 0],
      ["error:14", 0, 0],
      ["canceled", 0, 0],
    ],
  );
});

// --- the slot, unmetered methods ---

t.test("settling gives the call's slot back, whether it succeeded or failed", async (t) => {
  const s = setup(principal({ limits: { ...NO_LIMITS, concurrentRequests: 1 } }));
  await s.unary(ChatService.method.generate, { input: input("claude-x") }, "messages", {});
  t.same(s.counts, { acquired: 1, released: 1 });
  await s.unary(ChatService.method.generate, { input: input("claude-x") }, "messages", new ConnectError("upstream down", Code.Unavailable));
  t.same(s.counts, { acquired: 2, released: 2 });
  await s.stream(ChatService.method.streamGenerate, { input: input("claude-x") }, "messages", [delta("text", "a")], "canceled");
  t.same(s.counts, { acquired: 3, released: 3 });
});

t.test("a method without a meter: its slot given back, no money moved, no record", async (t) => {
  const s = setup(principal({ budget: 100, limits: { ...NO_LIMITS, concurrentRequests: 1, tokensPerMinute: 1000 } }));
  await s.unary(ModelService.method.listModels, {}, "core", {});
  await s.unary(ModelService.method.getModel, { id: "m" }, "core", new ConnectError("no such model", Code.NotFound));
  t.same(s.counts, { acquired: 2, released: 2 });
  t.same(s.events, []);
  t.same(s.consumed, []);
  t.same(s.rows, []);
});

// --- refusals ---

t.test("refused: a tenancy gate's refusal is recorded as rejected:<reason> with the call's format and model", async (t) => {
  const p = principal();
  const s = setup(p);
  const refuse = (method: Parameters<typeof s.admit>[0], init: object, format: string, err: ConnectError) => {
    const started = clock.now;
    clock.now += 40;
    s.settlement.refused(method, message(method, init as never), call(p, format), err, started);
  };
  const scope = coreError(Code.PermissionDenied, "this API key may not use model x", { reason: "model_not_allowed", metadata: GATE });
  refuse(ChatService.method.streamGenerate, { input: input("claude-x") }, "messages", coreError(Code.PermissionDenied, "not here", { reason: "format_not_allowed", metadata: GATE }));
  refuse(ImageService.method.generateImages, { prompt: "p", options: { size: "256x256" } }, "images", scope);
  refuse(VideoService.method.createVideo, { prompt: "p" }, "video", scope);
  refuse(ImageBotService.method.submitTask, { action: Action.IMAGINE, prompt: "p" }, "image-bot", rateLimited("requests per minute", 30_000));
  refuse(ChatService.method.countTokens, { input: { model: "gemini-y" } }, "generate-content", coreError(Code.PermissionDenied, "used up", { reason: "budget_exhausted", metadata: GATE }));
  t.strictSame(s.rows, [
    record({ time: 1000, latencyMs: 40, format: "messages", model: "claude-x", status: "rejected:format_not_allowed" }),
    record({ time: 1040, latencyMs: 40, format: "images", model: "IMG_MODEL_A", status: "rejected:model_not_allowed" }),
    record({ time: 1080, latencyMs: 40, format: "video", model: "sora-2", status: "rejected:model_not_allowed" }),
    record({ time: 1120, latencyMs: 40, format: "image-bot", model: "", status: "rejected:rate_limited" }),
    record({ time: 1160, latencyMs: 40, format: "generate-content", model: "gemini-y", status: "rejected:budget_exhausted" }),
  ]);
  t.same(s.events, [], "a refusal moves no money");

  const before = s.rows.length;
  refuse(ChatService.method.generate, { input: input("claude-x") }, "messages", new ConnectError("upstream down", Code.Unavailable));
  refuse(ChatService.method.generate, { input: input("claude-x") }, "messages", permissionDenied("not yours"));
  refuse(ChatService.method.generate, { input: input("claude-x") }, "messages", unauthenticated());
  t.equal(s.rows.length, before, "other errors are not refusals of a tenancy gate");

  const quiet = setup(p, { usage: false });
  quiet.settlement.refused(ChatService.method.generate, message(ChatService.method.generate, { input: input("claude-x") }), call(p, "messages"), scope, 1000);
  t.same(quiet.rows, [], "no usage store: nothing recorded");
});
