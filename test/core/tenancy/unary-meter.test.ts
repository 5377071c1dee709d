// The unary meter (core/tenancy/unary-meter.ts) driven directly, through the
// in-process transport with in-memory fakes: no app, no HTTP. Image-bot
// submits are charged only when accepted, videos are priced at the request's
// (or the default) model and length and settled at what was made, failures
// are refunded and recorded as `error:<code>`, a budgeted key is checked even
// for a call priced at 0, streamed images are settled at their batch (and
// refunded without one), and a record names the channel and action the
// response reports. Expected credits are worked out by hand from PRICES below.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type ServiceImpl } from "@connectrpc/connect";
import { ImageService, StreamGenerateImagesResponseSchema, type StreamGenerateImagesResponse } from "../../../gen/omnigate/image/v1/image_pb.js";
import { Action, ImageBotService } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import { type Principal } from "../../../src/core/context.js";
import { modelResolver } from "../../../src/core/image/profiles.js";
import { priceSchema, type PriceTable } from "../../../src/core/tenancy/prices.js";
import { buttonAction, unaryMeterInterceptor } from "../../../src/core/tenancy/unary-meter.js";
import { createDirectTransport } from "../../../src/core/transport.js";
import type { UsageRecord, UsageStore } from "../../../src/storage/types.js";
import { as, asCaller, failure, ledger, principal, reasonOf } from "./fakes.js";

const PRICES: PriceTable = priceSchema.parse({
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

interface Impls {
  imageBot?: Partial<ServiceImpl<typeof ImageBotService>>;
  video?: Partial<ServiceImpl<typeof VideoService>>;
  image?: Partial<ServiceImpl<typeof ImageService>>;
}

/** A fake clock: services advance it by 250 ms, so every record's latency is 250. */
const clock = { now: 1000 };
const work = () => void (clock.now += 250);

function setup(p: Principal, impls: Impls, opts: { spent?: number; usage?: boolean } = {}) {
  clock.now = 1000;
  const money = ledger(p.budget, opts.spent);
  const rows: UsageRecord[] = [];
  const store: UsageStore = {
    record: (r) => void rows.push(r),
    query: async () => {
      throw new Error("not used");
    },
  };
  const routes = (r: Parameters<Parameters<typeof createDirectTransport>[0]>[0]) => {
    if (impls.imageBot) r.service(ImageBotService, impls.imageBot);
    if (impls.video) r.service(VideoService, impls.video);
    if (impls.image) r.service(ImageService, impls.image);
  };
  const meter = unaryMeterInterceptor({ prices: PRICES, budgets: money.budgets, imageModels: modelResolver({}), usage: opts.usage === false ? undefined : store, now: () => clock.now });
  const transport = createDirectTransport(routes, { interceptors: [asCaller(p), meter] });
  return {
    transport,
    imageBot: createClient(ImageBotService, transport),
    video: createClient(VideoService, transport),
    image: createClient(ImageService, transport),
    ...money,
    rows,
  };
}

/** The record the meter writes, with the fields a test does not name at their values for a first call. */
const rec = (r: Partial<UsageRecord>): UsageRecord => ({
  time: 1000,
  keyId: "k1",
  format: "image-bot",
  model: "",
  channel: "",
  inputTokens: 0,
  outputTokens: 0,
  images: 0,
  seconds: 0,
  credits: 0,
  status: "ok",
  latencyMs: 250,
  requestId: "rid-1",
  ...r,
});

/** Reads a stream to its end; the event kinds it delivered and the error it ended with. */
async function drain(it: AsyncIterable<StreamGenerateImagesResponse>) {
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
const partial = () => create(StreamGenerateImagesResponseSchema, { event: { case: "partialImage", value: {} } });
const batch = (size: string, n = 1) => create(StreamGenerateImagesResponseSchema, { event: { case: "batch", value: { size, images: Array.from({ length: n }, () => ({})) } } });

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

t.test("image-bot submitTask: charged only when accepted (code 1 or 22); recorded ok or rejected:<code>", async (t) => {
  const codes = [1, 22, 24, 1, -1];
  const s = setup(principal({ budget: 100 }), {
    imageBot: {
      submitTask: () => {
        work();
        const code = codes.shift()!;
        return code < 0 ? {} : { result: { code, taskId: "t" } };
      },
    },
  });
  await s.imageBot.submitTask({ action: Action.IMAGINE, prompt: "a cat" }, as("image-bot"));
  await s.imageBot.submitTask({ action: Action.IMAGINE, prompt: "a cat" }, as("image-bot"));
  await s.imageBot.submitTask({ action: Action.IMAGINE, prompt: "a cat" }, as("image-bot"));
  await s.imageBot.submitTask({ action: Action.BLEND, prompt: "a cat" }, as("image-bot"));
  await s.imageBot.submitTask({ action: Action.UPSCALE, prompt: "a cat" }, as("image-bot"));
  // IMAGINE 2, IMAGINE 2 (code 22 is accepted too), IMAGINE refused, BLEND at "*" 3, UPSCALE without a result refused.
  t.same(s.events, ["reserve 2", "settle 2", "reserve 2", "settle 2", "reserve 2", "settle 0", "reserve 3", "settle 3", "reserve 1", "settle 0"]);
  t.equal(s.spent(), 7);
  t.strictSame(s.rows, [
    rec({ time: 1000, model: "IMAGINE", credits: 2, status: "ok" }),
    rec({ time: 1250, model: "IMAGINE", credits: 2, status: "ok" }),
    rec({ time: 1500, model: "IMAGINE", credits: 0, status: "rejected:24" }),
    rec({ time: 1750, model: "BLEND", credits: 3, status: "ok" }),
    rec({ time: 2000, model: "UPSCALE", credits: 0, status: "rejected:0" }),
  ]);
});

t.test("image-bot submitAction: priced by the button's action; submitModal is free", async (t) => {
  const codes = [1, 1, 23];
  const s = setup(principal(), {
    imageBot: {
      submitAction: () => (work(), { result: { code: codes.shift()! } }),
      submitModal: () => (work(), { result: { code: 1 } }),
    },
  });
  await s.imageBot.submitAction({ taskId: "t1", customId: "MJ::JOB::upsample::2::abc" }, as("image-bot"));
  await s.imageBot.submitAction({ taskId: "t1", customId: "MJ::JOB::pan_up::1::abc::SOLO" }, as("image-bot"));
  await s.imageBot.submitAction({ taskId: "t1", customId: "MJ::JOB::upsample::1::abc" }, as("image-bot"));
  await s.imageBot.submitModal({ taskId: "t1", prompt: "more" }, as("image-bot"));
  // UPSCALE 1, PAN at "*" 3, UPSCALE refused (23); the modal reserves 0 and is charged 0.
  t.same(s.events, ["reserve 1", "settle 1", "reserve 3", "settle 3", "reserve 1", "settle 0", "reserve 0", "charge 0"]);
  t.equal(s.spent(), 4);
  t.strictSame(s.rows, [
    rec({ time: 1000, model: "UPSCALE", credits: 1 }),
    rec({ time: 1250, model: "PAN", credits: 3 }),
    rec({ time: 1500, model: "UPSCALE", credits: 0, status: "rejected:23" }),
    rec({ time: 1750, model: "MODAL", credits: 0 }),
  ]);
});

t.test("video: priced at the request's or the default model and duration; recorded with seconds and channel", async (t) => {
  const made: { model: string; duration: number }[] = [];
  const s = setup(principal(), {
    video: {
      createVideo: (req) => {
        work();
        const v = { model: req.model || "sora-2", duration: req.duration || 4 };
        made.push(v);
        return { video: { id: "v", ...v, channel: "vchan" } };
      },
    },
  });
  await s.video.createVideo({ prompt: "a wave" }, as("video"));
  await s.video.createVideo({ prompt: "a wave", model: "veo-3", duration: 6 }, as("video"));
  // sora-2 (the default) at 2/s for 4 s (the default); veo-3 at 5/s for 6 s.
  t.same(s.events, ["reserve 8", "settle 8", "reserve 30", "settle 30"]);
  t.equal(s.spent(), 38);
  t.strictSame(s.rows, [
    rec({ time: 1000, format: "video", model: "sora-2", channel: "vchan", seconds: 4, credits: 8 }),
    rec({ time: 1250, format: "video", model: "veo-3", channel: "vchan", seconds: 6, credits: 30 }),
  ]);
});

t.test("video: settled at the length made, never above the reservation on a budgeted key", async (t) => {
  const lengths = [5, 10];
  const impl = { createVideo: () => (work(), { video: { model: "veo-3", duration: lengths.shift()!, channel: "c" } }) };
  const budgeted = setup(principal({ budget: 1000 }), { video: impl });
  await budgeted.video.createVideo({ prompt: "p", model: "veo-3", duration: 6 }, as("video"));
  await budgeted.video.createVideo({ prompt: "p", model: "veo-3", duration: 6 }, as("video"));
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

  lengths.push(10);
  const unbudgeted = setup(principal(), { video: impl });
  await unbudgeted.video.createVideo({ prompt: "p", model: "veo-3", duration: 6 }, as("video"));
  t.same(unbudgeted.events, ["reserve 30", "settle 50"], "a key without a budget pays what was made");
  t.equal(unbudgeted.spent(), 50);
});

t.test("video: a price known only from the response is charged after the fact on a key without a budget", async (t) => {
  const impl = { createVideo: () => (work(), { video: { model: "sora-2", duration: 4, channel: "c" } }) };
  const unbudgeted = setup(principal(), { video: impl });
  await unbudgeted.video.createVideo({ prompt: "p", model: "mystery" }, as("video"));
  t.same(unbudgeted.events, ["reserve 0", "charge 8"], "nothing to reserve for an unpriced model; 4 s of sora-2 charged");
  t.equal(unbudgeted.spent(), 8);
  t.strictSame(unbudgeted.rows, [rec({ format: "video", model: "sora-2", channel: "c", seconds: 4, credits: 8 })]);

  const budgeted = setup(principal({ budget: 100 }), { video: impl });
  await budgeted.video.createVideo({ prompt: "p", model: "mystery" }, as("video"));
  t.same(budgeted.events, ["reserve 0", "charge 0"], "a budgeted key pays no more than it reserved");
  t.equal(budgeted.spent(), 0);
  t.equal(budgeted.rows[0]?.credits, 0);
});

t.test("video remix: reserves the longest video at the dearest price, settles at what was made", async (t) => {
  const s = setup(principal({ budget: 1000 }), { video: { remixVideo: () => (work(), { video: { model: "sora-2", duration: 4, channel: "c" } }) } });
  await s.video.remixVideo({ id: "v1", prompt: "again" }, as("video"));
  // 60 s at 5/s reserved; 4 s at 2/s charged.
  t.same(s.events, ["reserve 300", "settle 8"]);
  t.equal(s.spent(), 8);
  t.strictSame(s.rows, [rec({ format: "video", model: "sora-2", channel: "c", seconds: 4, credits: 8 })]);
});

t.test("a failed call is refunded and recorded as error:<code> with 0 credits", async (t) => {
  let fail: () => never = () => {
    throw new ConnectError("no upstream", Code.Unavailable);
  };
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
  t.same(s.events, ["reserve 30", "refund", "reserve 2", "refund", "reserve 8", "refund"]);
  t.equal(s.spent(), 0);
  t.strictSame(s.rows, [
    rec({ time: 1000, format: "video", model: "veo-3", status: "error:14" }),
    rec({ time: 1250, format: "image-bot", model: "IMAGINE", status: "error:14" }),
    rec({ time: 1500, format: "video", model: "", status: "error:13" }),
  ]);
});

t.test("a budgeted key is checked even for a call priced at 0", async (t) => {
  let calls = 0;
  const impls: Impls = {
    imageBot: { submitModal: () => (calls++, work(), { result: { code: 1 } }) },
    video: { createVideo: () => (calls++, work(), { video: { model: "mystery", duration: 4 } }) },
  };
  const exhausted = setup(principal({ budget: 10 }), impls, { spent: 10 });
  const modal = await failure(exhausted.imageBot.submitModal({ taskId: "t", prompt: "p" }, as("image-bot")));
  t.equal(modal?.code, Code.PermissionDenied);
  t.equal(reasonOf(modal), "budget_exhausted");
  const video = await failure(exhausted.video.createVideo({ prompt: "p", model: "mystery" }, as("video")));
  t.equal(reasonOf(video), "budget_exhausted", "an unpriced video model too");
  t.equal(calls, 0, "neither reached its service");
  t.same(exhausted.events, ["reserve 0", "reserve 0"]);
  t.strictSame(exhausted.rows, [], "the meter records no refusal (the tenancy interceptor does)");
  t.equal(exhausted.spent(), 10);

  const left = setup(principal({ budget: 10 }), impls, { spent: 9 });
  await left.imageBot.submitModal({ taskId: "t", prompt: "p" }, as("image-bot"));
  t.equal(calls, 1, "with credit left, the free call goes through");
  t.equal(left.spent(), 9);
  const dear = await failure(left.video.createVideo({ prompt: "p", model: "veo-3", duration: 6 }, as("video")));
  t.equal(reasonOf(dear), "budget_exhausted", "30 credits do not fit in the 1 left");
  t.equal(calls, 1);
});

t.test("images: reserved for the images asked at the model's defaults, settled at the images made, not recorded here", async (t) => {
  const s = setup(principal({ budget: 100 }), { image: { generateImages: () => (work(), { batch: { size: "256x256", images: [{}] } }) } });
  await s.image.generateImages({ prompt: "two cats", options: { model: "IMG_MODEL_A", n: 2, size: "256x256" } }, as("images"));
  // 2 images at 3; 1 made.
  t.same(s.events, ["reserve 6", "settle 3"]);
  t.equal(s.spent(), 3);
  t.strictSame(s.rows, [], "ImageService records its own usage");
});

t.test("streamed images: settled at the batch, the stream's last message", async (t) => {
  const s = setup(principal({ budget: 100 }), {
    image: {
      async *streamGenerateImages() {
        yield partial();
        yield partial();
        yield batch("1024x1024");
      },
    },
  });
  const res = await drain(s.image.streamGenerateImages({ prompt: "a boat", options: { model: "IMG_MODEL_C", quality: "low" }, partialImages: 2 }, as("images")));
  t.same(res, { got: ["partialImage", "partialImage", "batch"], err: undefined });
  // An "auto" size reserves the dearest size (1536x1024 at 5); the batch is 1024x1024 at 2.
  t.same(s.events, ["reserve 5", "settle 2"]);
  t.equal(s.spent(), 2);
  t.strictSame(s.rows, []);
});

t.test("streamed images: refunded when the stream ends without its batch", async (t) => {
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
  const open = await s.transport.stream(ImageService.method.streamGenerateImages, undefined, undefined, undefined, one(req), as("images").contextValues);
  const it = open.message[Symbol.asyncIterator]();
  t.equal((await it.next()).value?.event.case, "partialImage");
  t.same(s.events.slice(4), ["reserve 2"], "held while the stream is open");
  await it.return!();
  t.equal(closed, 3, "every service stream was closed");
  // 1024x1024 at 2, three times, all refunded.
  t.same(s.events, ["reserve 2", "refund", "reserve 2", "refund", "reserve 2", "refund"]);
  t.equal(s.spent(), 0);
});

t.test("streamed images: a budget too small for the reservation is refused before the stream begins", async (t) => {
  let calls = 0;
  const s = setup(principal({ budget: 4 }), {
    image: {
      async *streamGenerateImages() {
        calls++;
        yield batch("1024x1024");
      },
    },
  });
  const res = await drain(s.image.streamGenerateImages({ prompt: "a boat", options: { model: "IMG_MODEL_C", quality: "low" } }, as("images")));
  t.equal(res.err?.code, Code.PermissionDenied);
  t.equal(reasonOf(res.err), "budget_exhausted");
  t.same(res.got, []);
  t.equal(calls, 0);
  t.same(s.events, ["reserve 5"]);
  t.equal(s.spent(), 0);
});

t.test("model scope: images (named or default) and videos outside the key's globs are refused before any reservation", async (t) => {
  let calls = 0;
  const impls: Impls = {
    image: {
      generateImages: () => (calls++, work(), { batch: { size: "256x256", images: [{}] } }),
      async *streamGenerateImages() {
        calls++;
        yield batch("1024x1024");
      },
    },
    video: { createVideo: () => (calls++, work(), { video: { model: "veo-3", duration: 4 } }) },
  };
  const onlyA = setup(principal({ models: ["IMG_MODEL_A", "sora-*"] }), impls);
  const streamed = await drain(onlyA.image.streamGenerateImages({ prompt: "x", options: { model: "IMG_MODEL_C" } }, as("images")));
  t.equal(reasonOf(streamed.err), "model_not_allowed");
  const video = await failure(onlyA.video.createVideo({ prompt: "x", model: "veo-3" }, as("video")));
  t.equal(video?.code, Code.PermissionDenied);
  t.equal(reasonOf(video), "model_not_allowed");
  t.equal(calls, 0);
  t.same(onlyA.events, []);
  await onlyA.image.generateImages({ prompt: "x", options: { size: "256x256" } }, as("images"));
  t.equal(calls, 1, "an unnamed image request runs on the default model, IMG_MODEL_A, which the key may use");

  const onlyC = setup(principal({ models: ["IMG_MODEL_C"] }), impls);
  const unnamed = await failure(onlyC.image.generateImages({ prompt: "x", options: { size: "256x256" } }, as("images")));
  t.equal(reasonOf(unnamed), "model_not_allowed", "the default model is checked against the scope");
  t.equal(calls, 1);

  const onlyVeo = setup(principal({ models: ["veo-*"] }), impls);
  const unnamedVideo = await failure(onlyVeo.video.createVideo({ prompt: "x" }, as("video")));
  t.equal(reasonOf(unnamedVideo), "model_not_allowed", "a video without a model is checked as the default model (sora-2)");
  t.equal(calls, 1);
  t.same(onlyVeo.events, []);
});

t.test("the record's channel and model come from the response: the channel that took the task, a modal's action", async (t) => {
  const s = setup(principal(), {
    imageBot: {
      submitTask: () => (work(), { result: { code: 1, channel: "mj-7" } }),
      submitModal: () => (work(), { result: { code: 22, channel: "mj-8", action: "VARIATION" } }),
    },
    video: { createVideo: () => (work(), { video: { model: "sora-2", duration: 4, channel: "vchan" } }) },
  });
  await s.imageBot.submitTask({ action: Action.IMAGINE, prompt: "a cat" }, as("image-bot"));
  await s.imageBot.submitModal({ taskId: "t1", prompt: "a dog" }, as("image-bot"));
  await s.video.createVideo({ prompt: "p" }, as("video"));
  t.strictSame(s.rows, [
    rec({ time: 1000, model: "IMAGINE", channel: "mj-7", credits: 2 }),
    rec({ time: 1250, model: "VARIATION", channel: "mj-8", credits: 0 }),
    rec({ time: 1500, format: "video", model: "sora-2", channel: "vchan", seconds: 4, credits: 8 }),
  ]);
  t.equal(s.spent(), 10, "the price is the action's (a modal's is paid at its submission) and the video's");

  const quiet = setup(principal(), { imageBot: { submitTask: () => (work(), { result: { code: 1, channel: "mj-7" } }) } }, { usage: false });
  await quiet.imageBot.submitTask({ action: Action.IMAGINE, prompt: "a cat" }, as("image-bot"));
  t.equal(quiet.spent(), 2, "no usage store: the call is still charged");
});
