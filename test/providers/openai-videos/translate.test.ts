// Pure mapping to and from the OpenAI Videos API.
import t from "tap";
import { Code } from "@connectrpc/connect";
import { errorDetail } from "../../../src/core/errors.js";
import { fromVendorError } from "../../../src/providers/openai-videos/errors.js";
import { extraFields, failedVideoError, fromVendorVideo, toVendorCreate } from "../../../src/providers/openai-videos/translate.js";
import type { VideoJob } from "../../../src/core/ports.js";

const job: VideoJob = {
  taskId: "video_1",
  prompt: "a cat",
  upstreamModel: "sora-2-pro",
  width: 1280,
  height: 720,
  duration: 8,
  fps: 24,
  seed: 1,
  given: { size: "1280x720", aspectRatio: "", duration: 8, fps: 0 },
  metadata: {},
};

t.test("create form: the fields openai@6.49 sends, the reference as a file or image_url, extras flattened", async (t) => {
  t.same(toVendorCreate(job), {
    fields: [
      ["model", "sora-2-pro"],
      ["prompt", "a cat"],
      ["seconds", "8"],
      ["size", "1280x720"],
    ],
    files: [],
  });
  const withFile = toVendorCreate({ ...job, reference: { data: new Uint8Array([1]), mimeType: "image/jpeg" } });
  t.same(
    withFile.files.map((f) => [f.field, f.filename, f.mimeType]),
    [["input_reference", "reference.jpg", "image/jpeg"]],
  );
  const withUrl = toVendorCreate({ ...job, reference: { mimeType: "", url: "https://x/a.png" } });
  t.same(withUrl.fields.at(-1), ["input_reference[image_url]", "https://x/a.png"]);
  t.same(extraFields({ quality: "high", n: 2, flag: true, opts: { a: 1 }, tags: ["x", "y"], model: "ignored", nothing: null }), [
    ["quality", "high"],
    ["n", "2"],
    ["flag", "true"],
    ["opts[a]", "1"],
    ["tags[]", "x"],
    ["tags[]", "y"],
  ]);
});

t.test("a polled Video -> running, completed or failed", async (t) => {
  const v = (status: string, extra = {}) => ({ id: "v", status, ...extra });
  t.same(fromVendorVideo(v("queued")), { state: "running", progress: 0 });
  t.same(fromVendorVideo(v("in_progress", { progress: 57.4 })), { state: "running", progress: 57 });
  t.same(fromVendorVideo(v("in_progress", { progress: 100 })), { state: "running", progress: 99 });
  t.same(fromVendorVideo(v("completed")), { state: "completed" });
  t.same(fromVendorVideo(v("failed", { error: { code: "moderation_blocked", message: "x" } })), { state: "failed", code: "moderation_blocked", detail: '{"code":"moderation_blocked","message":"x"}' });
  t.same(fromVendorVideo(v("failed", { error: { code: "weird code!", message: "x" } })), { state: "failed", code: "weird code!", detail: '{"code":"weird code!","message":"x"}' });
  t.same(fromVendorVideo(v("failed")), { state: "failed", code: "", detail: "null" });
  const mod = failedVideoError("moderation_blocked", "openai-videos");
  t.same([mod.code, errorDetail(mod)?.reason], [Code.InvalidArgument, "moderation_blocked"]);
  const other = failedVideoError("upstream_own_code", "openai-videos", '{"message":"upstream words"}');
  t.same([other.code, errorDetail(other)?.reason], [Code.Internal, "video_generation_failed"], "the gateway's own reason");
  t.notMatch(other.rawMessage, /upstream_own_code|upstream words/, "no upstream text in the message");
  t.match(other.cause, { vendorType: "upstream_own_code", body: '{"message":"upstream words"}' }, "the upstream's code and text go to the log with the cause");
});

t.test("error bodies: moderation kept, the rest by status, no vendor text", async (t) => {
  const mod = fromVendorError(400, {}, { error: { message: "blocked by safety", type: "image_generation_user_error", code: "moderation_blocked" } }, 0);
  t.same([mod.code, errorDetail(mod)?.reason], [Code.InvalidArgument, "moderation_blocked"]);
  const bad = fromVendorError(400, {}, { error: { message: "Invalid value: '5'", type: "invalid_request_error", code: "invalid_value" } }, 0);
  t.same([bad.code, errorDetail(bad)?.reason], [Code.InvalidArgument, "upstream_invalid_request"]);
  t.notMatch(bad.rawMessage, /Invalid value/);
  const limited = fromVendorError(429, { "retry-after": "3" }, {}, 0);
  t.same([limited.code, errorDetail(limited)?.retryAfter?.seconds], [Code.ResourceExhausted, 3n]);
  t.equal(fromVendorError(401, {}, undefined, 0).code, Code.Internal, "a bad channel key is the gateway's fault");
  t.equal(fromVendorError(503, {}, undefined, 0).code, Code.Unavailable);
});
