// Pure translation of both video wires, table-tested.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Status, Variant, VideoErrorSchema, VideoSchema, ListVideosResponseSchema } from "../../../gen/omnigate/video/v1/video_pb.js";
import { fromCoreList, fromCoreSubmit, fromCoreTask, fromCoreVideo, toCoreGenerations, toCoreList, toCoreVariant, toCoreVideosCreate } from "../../../src/facades/video/translate.js";
import { describeIssue, generationsBody, videosCreateBody } from "../../../src/facades/video/wire.js";

const done = create(VideoSchema, {
  id: "video_1",
  model: "sora-2",
  prompt: "a cat",
  status: Status.COMPLETED,
  progress: 100,
  duration: 4,
  fps: 24,
  width: 720,
  height: 1280,
  seed: 42n,
  format: "mp4",
  url: "http://gw/files/file_1?exp=1&sig=x",
  createTime: timestampFromMs(1_758_941_485_000),
  completeTime: timestampFromMs(1_758_941_600_500),
  expireTime: timestampFromMs(1_759_028_000_000),
});

t.test("/v1/video/generations request -> CreateVideoRequest", async (t) => {
  const body = generationsBody.parse({ model: "kling", prompt: "a cat", image: "https://x/a.png", duration: "5", size: "1280x720", fps: 24, seed: "9007199254740993", metadata: { mode: "pro" } });
  const req = toCoreGenerations(body);
  t.equal(req.model, "kling");
  t.equal(req.duration, 5);
  t.equal(req.size, "1280x720");
  t.equal(req.fps, 24);
  t.equal(req.seed, 9007199254740993n, "large seeds keep every digit");
  t.same(req.inputReference?.source, { case: "uri", value: "https://x/a.png" });
  t.same(req.metadata, { mode: "pro" });
  const minimal = toCoreGenerations(generationsBody.parse({ prompt: "p", seconds: 8, aspect_ratio: "9:16" }));
  t.equal(minimal.duration, 8, "seconds is an alias of duration");
  t.equal(minimal.aspectRatio, "9:16");
  t.equal(minimal.seed, undefined);
  t.equal(minimal.inputReference, undefined);
});

t.test("Video -> /v1/video/generations task, every status", async (t) => {
  t.same(fromCoreTask(done), {
    task_id: "video_1",
    status: "succeeded",
    format: "mp4",
    url: "http://gw/files/file_1?exp=1&sig=x",
    progress: 100,
    metadata: { duration: 4, fps: 24, height: 1280, seed: 42, width: 720 },
    error: null,
  });
  const running = fromCoreTask(create(VideoSchema, { ...done, status: Status.IN_PROGRESS, progress: 40, url: "" }));
  t.equal(running.status, "processing");
  t.notOk("url" in running, "no url before success");
  t.equal(fromCoreTask(create(VideoSchema, { ...done, status: Status.QUEUED })).status, "processing");
  const failed = fromCoreTask(create(VideoSchema, { ...done, status: Status.FAILED, url: "", error: create(VideoErrorSchema, { code: "moderation_blocked", message: "blocked" }) }));
  t.same([failed.status, failed.error], ["failed", { code: "moderation_blocked", message: "blocked" }]);
  t.same(fromCoreSubmit(done), { task_id: "video_1", status: "succeeded" });
});

t.test("Video -> OpenAI Video object", async (t) => {
  t.same(fromCoreVideo(done), {
    id: "video_1",
    object: "video",
    created_at: 1758941485,
    completed_at: 1758941600,
    expires_at: 1759028000,
    error: null,
    model: "sora-2",
    progress: 100,
    prompt: "a cat",
    remixed_from_video_id: null,
    seconds: "4",
    size: "720x1280",
    status: "completed",
  });
  const queued = fromCoreVideo(create(VideoSchema, { ...done, status: Status.QUEUED, progress: 0, completeTime: undefined, expireTime: undefined, remixedFrom: "video_0" }));
  t.same([queued.status, queued.completed_at, queued.expires_at, queued.remixed_from_video_id], ["queued", null, null, "video_0"]);
  t.equal(fromCoreVideo(create(VideoSchema, { ...done, status: Status.IN_PROGRESS })).status, "in_progress");
  t.same(fromCoreVideo(create(VideoSchema, { ...done, status: Status.FAILED, error: create(VideoErrorSchema, { code: "timeout", message: "timed out" }) })).error, {
    code: "timeout",
    message: "timed out",
  });
});

t.test("OpenAI create -> CreateVideoRequest, with OpenAI's defaults", async (t) => {
  const plain = toCoreVideosCreate(videosCreateBody.parse({ prompt: "a cat" }));
  t.same([plain.model, plain.duration, plain.size], ["sora-2", 4, "720x1280"]);
  const multipart = toCoreVideosCreate(videosCreateBody.parse({ prompt: "a cat", model: "sora-2-pro", seconds: "8", size: "1280x720", input_reference: { image_url: "data:image/png;base64,AAAA" } }));
  t.same([multipart.model, multipart.duration, multipart.size], ["sora-2-pro", 8, "1280x720"]);
  t.same(multipart.inputReference?.source, { case: "uri", value: "data:image/png;base64,AAAA" });
  const file = toCoreVideosCreate(videosCreateBody.parse({ prompt: "x" }), { filename: "a.png", mimeType: "image/png", data: new Uint8Array([1, 2]) });
  t.same([file.inputReference?.filename, file.inputReference?.mimeType, file.inputReference?.source.case], ["a.png", "image/png", "data"]);
});

t.test("list, variants", async (t) => {
  t.same(toCoreList({ after: "video_9", limit: 2, order: "asc" }).after, "video_9");
  const list = fromCoreList(create(ListVideosResponseSchema, { videos: [done, create(VideoSchema, { ...done, id: "video_2" })], hasMore: true }));
  t.same([list.object, list.first_id, list.last_id, list.has_more, list.data.length], ["list", "video_1", "video_2", true, 2]);
  t.same(fromCoreList(create(ListVideosResponseSchema, {})), { object: "list", data: [], first_id: null, last_id: null, has_more: false });
  t.same([toCoreVariant(undefined), toCoreVariant("video"), toCoreVariant("thumbnail"), toCoreVariant("spritesheet")], [Variant.VIDEO, Variant.VIDEO, Variant.THUMBNAIL, Variant.SPRITESHEET]);
});

t.test("shape errors are worded the OpenAI way", async (t) => {
  const issue = (schema: typeof generationsBody | typeof videosCreateBody, v: unknown) => {
    const r = schema.safeParse(v);
    t.notOk(r.success);
    return describeIssue(r.error!, v);
  };
  t.same(issue(generationsBody, {}), { message: "Missing required parameter: 'prompt'.", param: "prompt", code: "missing_required_parameter" });
  t.same(issue(generationsBody, { prompt: "x", colour: "red" }), { message: "Unknown parameter: 'colour'.", param: "colour", code: "unknown_parameter" });
  t.same(issue(generationsBody, { prompt: "x", duration: "five" }), { message: "Invalid 'duration': expected a whole number, got 'five'.", param: "duration", code: "invalid_type" });
  t.same(
    issue(videosCreateBody, { prompt: "x", seconds: "4.5" }),
    { message: "Invalid 'seconds': expected a whole number, got '4.5'.", param: "seconds", code: "invalid_type" },
    "multipart sends numbers as text: the message says what the text should be, not 'got a string'",
  );
  t.equal(issue(videosCreateBody, { prompt: "x", seconds: "9".repeat(100) }).message, `Invalid 'seconds': expected a whole number, got '${"9".repeat(64)}'.`, "the value is cut short");
  t.same(
    issue(videosCreateBody, { prompt: "x", seconds: true }),
    { message: "Invalid type for 'seconds': got a boolean.", param: "seconds", code: "invalid_type" },
    "a type no branch takes is still a type error",
  );
  t.same(
    issue(videosCreateBody, { prompt: "x", seconds: 4.5 }),
    { message: "Invalid type for 'seconds': got a decimal number.", param: "seconds", code: "invalid_type" },
    "a decimal where a whole number goes is a type error, as OpenAI words it",
  );
  t.equal(issue(generationsBody, { prompt: 5 }).code, "invalid_type");
  t.equal(issue(videosCreateBody, { prompt: "x", input_reference: { url: "x" } }).code, "unknown_parameter");
  t.equal(describeIssue(generationsBody.safeParse([]).error!, []).message, "The request body must be a JSON object.");
});
