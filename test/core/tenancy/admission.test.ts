// Admission (core/tenancy/admission.ts) driven directly, with in-memory fakes:
// no pipeline, no app. In order it checks the key's format scope, the model
// scope of the method's meter, takes a rate-limit slot (only on a key with
// limits; given back when the reservation fails) and reserves the most the
// call can cost: chat at chatCost(input tokens + output bound), with the
// default output limit written into a budgeted key's request; images at the
// model's defaults; videos at the request's or the default model and length,
// a remix at the worst case; image-bot submits at their action's (or button's)
// price, a confirmed modal free. Expected credits are worked out by hand from
// PRICES below.
import t from "tap";
import { create, type DescMessage, type DescMethod, type MessageInitShape } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { ChatInputSchema, ChatService, Role, type GenerateRequest } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { ImageService } from "../../../gen/omnigate/image/v1/image_pb.js";
import { Action, ImageBotService } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { ModelService } from "../../../gen/omnigate/model/v1/model_pb.js";
import { VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import { StoredResponseService } from "../../../gen/omnigate/response/v1/response_pb.js";
import type { Principal } from "../../../src/core/call/call.js";
import { retryAfterSeconds } from "../../../src/core/errors.js";
import { modelResolver } from "../../../src/core/image/profiles.js";
import { buttonAction, DEFAULT_RESERVED_OUTPUT } from "../../../src/core/tenancy/meters.js";
import { priceSchema, type PriceTable } from "../../../src/core/tenancy/prices.js";
import { countInput } from "../../../src/lib/tokenizer.js";
import { call, failure, message, money, NO_LIMITS, principal, reasonOf } from "./fakes.js";

const PRICES: PriceTable = priceSchema.parse({
  // Credits per token: input 2, output 3; 5 flat per request.
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

function setup(p: Principal, opts: { spent?: number } = {}) {
  const s = money(p, { prices: PRICES, imageModels: modelResolver({}), spent: opts.spent });
  /** Admits a call of `method` with the request `init` that came in on `format`. */
  const admit = <I extends DescMessage>(method: DescMethod & { input: I }, init: MessageInitShape<I>, format = "core") =>
    // admit throws synchronously for a refusal it can decide at once; as a promise either way here.
    Promise.resolve().then(() => s.admission.admit(method, message(method, init), call(p, format), 1000));
  return { ...s, admit };
}

// One user turn "hello world": 3 tokens for the turn + "hello" + "world" = 5 input tokens.
const IN = 5;
const input = (model = "priced-a", config?: { maxOutputTokens?: number; thinking?: { budgetTokens: number } }): MessageInitShape<typeof ChatInputSchema> => ({
  model,
  turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text: "hello world" } } }] }],
  ...(config ? { config } : {}),
});
const maxOutput = (req: unknown) => (req as GenerateRequest).input?.config?.maxOutputTokens;

t.test("the input of the fixtures is 5 tokens", async (t) => {
  t.equal(countInput(create(ChatInputSchema, input())).total, IN);
});

t.test("the ticket: the call, the method, the request, the start, the meter, the hold, the slot's release, a stream's tally", async (t) => {
  const p = principal({ limits: { ...NO_LIMITS, concurrentRequests: 5 } });
  const s = setup(p);
  const c = call(p, "messages");
  const req = message(ChatService.method.generate, { input: input("priced-a", { maxOutputTokens: 100 }) });
  const ticket = await s.admission.admit(ChatService.method.generate, req, c, 1234);
  t.equal(ticket.call, c);
  t.equal(ticket.method, ChatService.method.generate);
  t.equal(ticket.req, req, "the very request message (a limit admission sets reaches the service)");
  t.equal(ticket.started, 1234);
  t.equal(ticket.meter, s.deps.meters.get(ChatService.method.generate));
  t.equal(ticket.hold?.reserved, 315);
  t.type(ticket.release, "function");
  t.equal(ticket.tally, undefined, "a unary call has no tally");
  const streamed = await s.admit(ChatService.method.streamGenerate, { input: input("priced-a", { maxOutputTokens: 100 }) });
  t.type(streamed.tally?.each, "function", "a metered stream has one");
  const images = await s.admit(ImageService.method.streamGenerateImages, { prompt: "p", options: { model: "IMG_MODEL_C", size: "1024x1024", quality: "low" } });
  t.type(images.tally?.each, "function");

  const unmetered = await s.admit(ModelService.method.listModels, {});
  t.equal(unmetered.meter, undefined, "a method without a meter");
  t.equal(unmetered.hold, undefined, "reserves nothing");
  t.equal(unmetered.tally, undefined);
  t.type(unmetered.release, "function", "but takes a slot");
  t.same(s.events, ["reserve 315", "reserve 315", "reserve 2"]);
  t.same(s.counts, { acquired: 4, released: 0 });
});

t.test("format scope: refused with PERMISSION_DENIED before any slot or reservation", async (t) => {
  const p = principal({ formats: ["image-bot"], budget: 100, limits: { ...NO_LIMITS, concurrentRequests: 1 } });
  const s = setup(p);
  const chat = await failure(s.admit(ChatService.method.generate, { input: input("claude-x") }, "messages"));
  t.equal(chat?.code, Code.PermissionDenied);
  t.equal(reasonOf(chat), "format_not_allowed");
  const image = await failure(s.admit(ImageService.method.generateImages, { prompt: "p", options: { model: "IMG_MODEL_A" } }, "images"));
  t.equal(reasonOf(image), "format_not_allowed");
  const video = await failure(s.admit(VideoService.method.createVideo, { prompt: "p", model: "veo-3" }, "video"));
  t.equal(reasonOf(video), "format_not_allowed");
  const core = await failure(s.admit(ChatService.method.generate, { input: input("gemini-y") }, "core"));
  t.equal(reasonOf(core), "format_not_allowed", "a remote RPC caller's format, 'core', is scoped too");
  const streamed = await failure(s.admit(ChatService.method.streamGenerate, { input: input("claude-x") }, "messages"));
  t.equal(streamed?.code, Code.PermissionDenied, "a stream is refused before it begins");
  const unmetered = await failure(s.admit(ModelService.method.listModels, {}, "messages"));
  t.equal(reasonOf(unmetered), "format_not_allowed", "a method without a meter too");
  t.same(s.counts, { acquired: 0, released: 0 }, "no slot taken");
  t.same(s.events, [], "nothing reserved");

  const allowed = setup(principal({ formats: ["messages"] }));
  t.ok(await allowed.admit(ChatService.method.generate, { input: input("claude-x") }, "messages"), "a format in the scope goes through");
  const admin = setup(principal({ formats: ["image-bot"], admin: true }));
  t.ok(await admin.admit(ChatService.method.generate, { input: input("claude-x") }, "messages"), "and an admin key");
});

t.test("model scope: chat models outside the key's globs are refused before anything is reserved", async (t) => {
  const s = setup(principal({ models: ["priced-a*"], budget: 1000, limits: { ...NO_LIMITS, concurrentRequests: 1 } }));
  const err = await failure(s.admit(ChatService.method.generate, { input: input("priced-b", { maxOutputTokens: 10 }) }, "messages"));
  t.equal(err?.code, Code.PermissionDenied);
  t.equal(reasonOf(err), "model_not_allowed");
  const streamed = await failure(s.admit(ChatService.method.streamGenerate, { input: input("priced-b", { maxOutputTokens: 10 }) }, "messages"));
  t.equal(streamed?.code, Code.PermissionDenied, "a stream too");
  t.equal(reasonOf(streamed), "model_not_allowed");
  t.same(s.events, [], "nothing reserved");
  t.same(s.counts, { acquired: 0, released: 0 }, "no slot taken");
  await s.admit(ChatService.method.generate, { input: input("priced-abc", { maxOutputTokens: 10 }) }, "messages");
  t.same(s.events, ["reserve 45"], "a model inside the scope goes through: 5 + 5*2 + 10*3");
});

t.test("model scope: images (named or default) and videos (named or default) outside the key's globs are refused before any reservation", async (t) => {
  const onlyA = setup(principal({ models: ["IMG_MODEL_A", "sora-*"] }));
  const streamed = await failure(onlyA.admit(ImageService.method.streamGenerateImages, { prompt: "x", options: { model: "IMG_MODEL_C" } }, "images"));
  t.equal(reasonOf(streamed), "model_not_allowed");
  const video = await failure(onlyA.admit(VideoService.method.createVideo, { prompt: "x", model: "veo-3" }, "video"));
  t.equal(video?.code, Code.PermissionDenied);
  t.equal(reasonOf(video), "model_not_allowed");
  t.same(onlyA.events, []);
  await onlyA.admit(ImageService.method.generateImages, { prompt: "x", options: { size: "256x256" } }, "images");
  t.same(onlyA.events, ["reserve 3"], "an unnamed image request runs on the default model, IMG_MODEL_A, which the key may use");

  const onlyC = setup(principal({ models: ["IMG_MODEL_C"] }));
  const unnamed = await failure(onlyC.admit(ImageService.method.generateImages, { prompt: "x", options: { size: "256x256" } }, "images"));
  t.equal(reasonOf(unnamed), "model_not_allowed", "the default model is checked against the scope");
  t.same(onlyC.events, []);

  const onlyVeo = setup(principal({ models: ["veo-*"] }));
  const unnamedVideo = await failure(onlyVeo.admit(VideoService.method.createVideo, { prompt: "x" }, "video"));
  t.equal(reasonOf(unnamedVideo), "model_not_allowed", "a video without a model is checked as the default model (sora-2)");
  t.same(onlyVeo.events, []);
  await onlyVeo.admit(VideoService.method.remixVideo, { id: "v1", prompt: "again" }, "video");
  await onlyVeo.admit(ImageBotService.method.submitTask, { action: Action.IMAGINE, prompt: "p" }, "image-bot");
  t.same(onlyVeo.events, ["reserve 300", "reserve 2"], "a remix (its source's model was checked when it was made) and an image-bot task name no model");
});

t.test("rate limits: a slot only on a key with limits, held until the ticket's release", async (t) => {
  const free = setup(principal());
  const ticket = await free.admit(ChatService.method.generate, { input: input("claude-x") }, "messages");
  t.equal(ticket.release, undefined, "a key without limits takes no slot");
  t.same(free.counts, { acquired: 0, released: 0 });

  const one = setup(principal({ limits: { ...NO_LIMITS, concurrentRequests: 1 } }));
  const first = await one.admit(ChatService.method.generate, { input: input("claude-x") }, "messages");
  t.same(one.counts, { acquired: 1, released: 0 });
  const busy = await failure(one.admit(ChatService.method.streamGenerate, { input: input("claude-x") }, "messages"));
  t.equal(busy?.code, Code.ResourceExhausted);
  t.equal(reasonOf(busy), "rate_limited", "a second call meanwhile is refused");
  first.release!();
  t.same(one.counts, { acquired: 1, released: 1 });
  await one.admit(ChatService.method.generate, { input: input("claude-x") }, "messages");
  t.same(one.counts, { acquired: 2, released: 1 }, "the freed slot admits the next call");
});

t.test("rate limits: a stored response's save and reads take no slot, even while the call they serve holds the only one", async (t) => {
  const one = setup(principal({ limits: { ...NO_LIMITS, concurrentRequests: 1, requestsPerMinute: 1 } }));
  const stream = await one.admit(ChatService.method.streamGenerate, { input: input("claude-x") }, "openai-responses");
  const save = await one.admit(StoredResponseService.method.saveResponse, { id: "resp_1", response: {} }, "openai-responses");
  const context = await one.admit(StoredResponseService.method.getContext, { id: "resp_0" }, "openai-responses");
  t.equal(save.release, undefined);
  t.equal(context.release, undefined);
  t.same(one.counts, { acquired: 1, released: 0 }, "only the chat call took a slot");
  stream.release!();
  const busy = await failure(one.admit(ChatService.method.generate, { input: input("claude-x") }, "openai-responses"));
  t.equal(reasonOf(busy), "rate_limited", "the per-minute limit still counts the chat calls");
});

t.test("rate limits: refused with RESOURCE_EXHAUSTED, reason rate_limited, and when to retry", async (t) => {
  const s = setup(principal({ limits: { ...NO_LIMITS, requestsPerMinute: 2 } }));
  await s.admit(ChatService.method.generate, { input: input("claude-x") }, "messages");
  await s.admit(ChatService.method.generate, { input: input("claude-x") }, "messages");
  const err = await failure(s.admit(ChatService.method.generate, { input: input("claude-x") }, "generate-content"));
  t.equal(err?.code, Code.ResourceExhausted);
  t.equal(reasonOf(err), "rate_limited");
  t.equal(retryAfterSeconds(err!), 30, "one request of a 2-per-minute bucket comes back in 30 s");
  const task = await failure(s.admit(ImageBotService.method.submitTask, { action: Action.IMAGINE, prompt: "p" }, "image-bot"));
  t.equal(reasonOf(task), "rate_limited");
  t.same(s.counts, { acquired: 2, released: 0 });
  t.same(s.events, ["reserve 0", "reserve 0"], "the refused calls reserved nothing");
});

t.test("rate limits: the slot is given back when the reservation fails; a model refusal takes none", async (t) => {
  const s = setup(principal({ budget: 10, models: ["sora-*", "claude-*"], limits: { ...NO_LIMITS, concurrentRequests: 5 } }), { spent: 8 });
  const over = await failure(s.admit(VideoService.method.createVideo, { prompt: "p", model: "sora-2", duration: 4 }, "video"));
  t.equal(reasonOf(over), "budget_exhausted", "8 credits do not fit in the 2 left");
  t.same(s.counts, { acquired: 1, released: 1 }, "its slot was given back");
  const scoped = await failure(s.admit(ChatService.method.generate, { input: input("gemini-y") }, "messages"));
  t.equal(reasonOf(scoped), "model_not_allowed");
  t.same(s.counts, { acquired: 1, released: 1 }, "the model scope is checked before a slot is taken");
  t.equal(s.spent(), 8);
});

t.test("chat: the reservation is chatCost(input tokens + output bound), a thinking budget on top", async (t) => {
  const s = setup(principal());
  await s.admit(ChatService.method.generate, { input: input("priced-a", { maxOutputTokens: 100 }) }, "messages");
  // 5 + 5*2 + 100*3.
  t.same(s.events, ["reserve 315"]);
  t.equal(s.spent(), 315);
  await s.admit(ChatService.method.generate, { input: input("priced-a", { maxOutputTokens: 100, thinking: { budgetTokens: 50 } }) }, "messages");
  // A thinking budget is output on top of the limit: 5 + 5*2 + (100+50)*3.
  t.same(s.events.slice(1), ["reserve 465"]);
  await s.admit(ChatService.method.streamGenerate, { input: input("priced-a", { maxOutputTokens: 100, thinking: { budgetTokens: 50 } }) }, "messages");
  t.same(s.events.slice(2), ["reserve 465"], "a stream alike");
});

t.test("chat: a budgeted key without maxOutputTokens gets DEFAULT_RESERVED_OUTPUT written into the request", async (t) => {
  t.equal(DEFAULT_RESERVED_OUTPUT, 4096);
  // 5 + 5*2 + 4096*3.
  const budgeted = setup(principal({ budget: 1_000_000 }));
  const unary = await budgeted.admit(ChatService.method.generate, { input: input() }, "messages");
  const streamed = await budgeted.admit(ChatService.method.streamGenerate, { input: input() }, "messages");
  t.same([maxOutput(unary.req), maxOutput(streamed.req)], [4096, 4096], "unary and streamed calls were given the default limit");
  t.same(budgeted.events, ["reserve 12303", "reserve 12303"]);

  const kept = await budgeted.admit(ChatService.method.generate, { input: input("priced-a", { maxOutputTokens: 7 }) }, "messages");
  t.equal(maxOutput(kept.req), 7, "a limit the request sets is kept");
  t.same(budgeted.events.slice(2), ["reserve 36"], "and reserved: 5 + 5*2 + 7*3");

  const unbudgeted = setup(principal());
  const a = await unbudgeted.admit(ChatService.method.generate, { input: input() }, "messages");
  const b = await unbudgeted.admit(ChatService.method.streamGenerate, { input: input() }, "messages");
  t.same([maxOutput(a.req), maxOutput(b.req)], [undefined, undefined], "a key without a budget keeps the upstream's default");
  t.same(unbudgeted.events, ["reserve 12303", "reserve 12303"], "reserved as if 4096");
});

t.test("chat: an unpriced model reserves nothing and leaves the request as it is", async (t) => {
  const s = setup(principal());
  const a = await s.admit(ChatService.method.generate, { input: input("free-model") }, "messages");
  const b = await s.admit(ChatService.method.streamGenerate, { input: input("free-model") }, "messages");
  t.same([maxOutput(a.req), maxOutput(b.req)], [undefined, undefined], "the request is left as it is");
  t.same(s.events, [], "no reservation at all");
  t.same(s.storage, [], "that never reaches the key store");
  t.equal(a.hold, undefined);

  const budgeted = setup(principal({ budget: 1000 }));
  const c = await budgeted.admit(ChatService.method.generate, { input: input("free-model") }, "messages");
  t.equal(maxOutput(c.req), undefined, "on a budgeted key too: it cannot cost anything");
  t.same(budgeted.storage, ["reserveCredits 0"], "but the key's budget is checked");
});

t.test("chat: an unpriced model on a budgeted key whose budget is used up is refused", async (t) => {
  const s = setup(principal({ budget: 10 }), { spent: 10 });
  const err = await failure(s.admit(ChatService.method.generate, { input: input("free-model") }, "messages"));
  t.equal(err?.code, Code.PermissionDenied);
  t.equal(reasonOf(err), "budget_exhausted");
  t.same(s.events, ["reserve 0"]);
});

t.test("images: reserved for the images asked at the model's defaults; an 'auto' size at the dearest size", async (t) => {
  const s = setup(principal({ budget: 100 }));
  await s.admit(ImageService.method.generateImages, { prompt: "two cats", options: { model: "IMG_MODEL_A", n: 2, size: "256x256" } }, "images");
  // 2 images at 3.
  t.same(s.events, ["reserve 6"]);
  await s.admit(ImageService.method.streamGenerateImages, { prompt: "a boat", options: { model: "IMG_MODEL_C", quality: "low" }, partialImages: 2 }, "images");
  // An "auto" size reserves the dearest size (1536x1024 at 5).
  t.same(s.events.slice(1), ["reserve 5"]);
  await s.admit(ImageService.method.streamGenerateImages, { prompt: "a boat", options: { model: "IMG_MODEL_C", size: "1024x1024", quality: "low" }, partialImages: 1 }, "images");
  t.same(s.events.slice(2), ["reserve 2"], "a named size at its price");
  t.equal(s.spent(), 13);
});

t.test("images: a budget too small for the reservation is refused before the stream begins", async (t) => {
  const s = setup(principal({ budget: 4 }));
  const err = await failure(s.admit(ImageService.method.streamGenerateImages, { prompt: "a boat", options: { model: "IMG_MODEL_C", quality: "low" } }, "images"));
  t.equal(err?.code, Code.PermissionDenied);
  t.equal(reasonOf(err), "budget_exhausted");
  t.same(s.events, ["reserve 5"]);
  t.equal(s.spent(), 0);
});

t.test("video: priced at the request's or the default model and duration; a remix at the worst case", async (t) => {
  const s = setup(principal({ budget: 1000 }));
  await s.admit(VideoService.method.createVideo, { prompt: "a wave" }, "video");
  await s.admit(VideoService.method.createVideo, { prompt: "a wave", model: "veo-3", duration: 6 }, "video");
  // sora-2 (the default) at 2/s for 4 s (the default); veo-3 at 5/s for 6 s.
  t.same(s.events, ["reserve 8", "reserve 30"]);
  await s.admit(VideoService.method.remixVideo, { id: "v1", prompt: "again" }, "video");
  // 60 s (the longest) at 5/s (the dearest).
  t.same(s.events.slice(2), ["reserve 300"]);
  await s.admit(VideoService.method.createVideo, { prompt: "p", model: "mystery" }, "video");
  t.same(s.events.slice(3), ["reserve 0"], "nothing to reserve for an unpriced model");
  t.equal(s.spent(), 338);
});

t.test("buttonAction: the action a button's customId starts, for its price", async (t) => {
  const cases: [string, string][] = [
    ["MJ::JOB::upsample::2::abc", "UPSCALE"],
    ["MJ::JOB::upsample_v6_2x_subtle::1::abc", "UPSCALE"],
    ["MJ::JOB::variation::3::abc", "VARIATION"],
    ["MJ::JOB::high_variation::1::abc::SOLO", "VARIATION"],
    ["MJ::JOB::reroll::0::abc::SOLO", "REROLL"],
    ["MJ::Inpaint::1::abc::SOLO", "INPAINT"],
    ["MJ::Outpaint::50::1::abc::SOLO", "ZOOM"],
    ["MJ::CustomZoom::abc", "ZOOM"],
    ["MJ::JOB::pan_left::1::abc::SOLO", "PAN"],
    ["MJ::Job::PicReader::1", "IMAGINE"],
    ["MJ::Job::PromptAnalyzer::2", "IMAGINE"],
    ["MJ::Picread::Retry", "DESCRIBE"],
    ["not a button", "ACTION"],
    ["", "ACTION"],
  ];
  for (const [id, action] of cases) t.equal(buttonAction(id), action, id || "(empty)");
});

t.test("image-bot: a task at its action's price, a button at its action's, a confirmed modal free", async (t) => {
  const s = setup(principal({ budget: 100 }));
  await s.admit(ImageBotService.method.submitTask, { action: Action.IMAGINE, prompt: "a cat" }, "image-bot");
  await s.admit(ImageBotService.method.submitTask, { action: Action.BLEND, prompt: "a cat" }, "image-bot");
  await s.admit(ImageBotService.method.submitTask, { action: Action.UPSCALE, prompt: "a cat" }, "image-bot");
  // IMAGINE 2, BLEND at "*" 3, UPSCALE 1.
  t.same(s.events, ["reserve 2", "reserve 3", "reserve 1"]);
  await s.admit(ImageBotService.method.submitAction, { taskId: "t1", customId: "MJ::JOB::upsample::2::abc" }, "image-bot");
  await s.admit(ImageBotService.method.submitAction, { taskId: "t1", customId: "MJ::JOB::pan_up::1::abc::SOLO" }, "image-bot");
  await s.admit(ImageBotService.method.submitModal, { taskId: "t1", prompt: "more" }, "image-bot");
  // UPSCALE 1, PAN at "*" 3; the modal reserves 0.
  t.same(s.events.slice(3), ["reserve 1", "reserve 3", "reserve 0"]);
  t.equal(s.spent(), 10);
});

t.test("a budgeted key is checked even for a call priced at 0", async (t) => {
  const exhausted = setup(principal({ budget: 10 }), { spent: 10 });
  const modal = await failure(exhausted.admit(ImageBotService.method.submitModal, { taskId: "t", prompt: "p" }, "image-bot"));
  t.equal(modal?.code, Code.PermissionDenied);
  t.equal(reasonOf(modal), "budget_exhausted");
  const video = await failure(exhausted.admit(VideoService.method.createVideo, { prompt: "p", model: "mystery" }, "video"));
  t.equal(reasonOf(video), "budget_exhausted", "an unpriced video model too");
  t.same(exhausted.events, ["reserve 0", "reserve 0"]);
  t.equal(exhausted.spent(), 10);

  const left = setup(principal({ budget: 10 }), { spent: 9 });
  t.ok(await left.admit(ImageBotService.method.submitModal, { taskId: "t", prompt: "p" }, "image-bot"), "with credit left, the free call goes through");
  t.equal(left.spent(), 9);
  const dear = await failure(left.admit(VideoService.method.createVideo, { prompt: "p", model: "veo-3", duration: 6 }, "video"));
  t.equal(reasonOf(dear), "budget_exhausted", "30 credits do not fit in the 1 left");
  t.equal(left.spent(), 9);
});
