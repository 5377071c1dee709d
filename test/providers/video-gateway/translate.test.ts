// Pure mapping to and from a remote /v1/video/generations.
import t from "tap";
import { Code } from "@connectrpc/connect";
import { errorDetail } from "../../../src/core/errors.js";
import { fromVendorError } from "../../../src/providers/video-gateway/errors.js";
import { failedTaskError, fromVendorTask, toVendorSubmit } from "../../../src/providers/video-gateway/translate.js";
import type { VideoJob } from "../../../src/core/ports.js";
import { task } from "../../../src/providers/video-gateway/wire.js";

const job: VideoJob = {
  taskId: "video_1",
  prompt: "a cat",
  upstreamModel: "kling-v2",
  width: 1280,
  height: 720,
  duration: 5,
  fps: 24,
  seed: 11,
  given: { size: "", aspectRatio: "16:9", duration: 5, fps: 0 },
  metadata: { mode: "pro" },
};

t.test("submit body: size or the client's aspect ratio, the image as URL or data URL, extras", async (t) => {
  t.same(toVendorSubmit(job), { model: "kling-v2", prompt: "a cat", duration: 5, fps: 24, seed: 11, aspect_ratio: "16:9", metadata: { mode: "pro" } });
  t.same(toVendorSubmit({ ...job, given: { ...job.given, size: "1280x720", aspectRatio: "" }, metadata: {} }).size, "1280x720");
  t.equal(toVendorSubmit({ ...job, reference: { mimeType: "", url: "https://x/a.png" } }).image, "https://x/a.png");
  t.equal(toVendorSubmit({ ...job, reference: { data: new Uint8Array([1, 2, 3]), mimeType: "image/png" } }).image, "data:image/png;base64,AQID");
});

t.test("polled tasks of both styles", async (t) => {
  const p = (v: unknown) => fromVendorTask(task.parse(v));
  t.same(p({ task_id: "a", status: "processing" }), { state: "running", progress: 0 });
  t.same(p({ task_id: "a", status: "processing", progress: "45%" }), { state: "running", progress: 45 });
  t.same(p({ task_id: "a", status: "succeeded", url: "https://f/v.mp4" }), { state: "completed", url: "https://f/v.mp4" });
  t.same(p({ id: "a", status: "completed", metadata: { url: "https://f/k.mp4" } }), { state: "completed", url: "https://f/k.mp4" });
  t.same(p({ id: "a", status: "in_progress", progress: 30 }), { state: "running", progress: 30 });
  t.same(p({ task_id: "a", status: "failed", error: { code: "moderation_blocked", message: "x" } }), {
    state: "failed",
    code: "moderation_blocked",
    detail: '{"code":"moderation_blocked","message":"x"}',
  });
  t.same(p({ task_id: "a", status: "FAILURE", error: "text" }), { state: "failed", code: "", detail: '"text"' });
  t.same(p({ task_id: "a", status: "succeeded" }), { state: "invalid", why: "a finished task without a url" });
  t.equal(errorDetail(failedTaskError("moderation_blocked", "video-gateway"))?.reason, "moderation_blocked");
  const other = failedTaskError("upstream_own_code", "video-gateway", '"upstream words"');
  t.same([other.code, errorDetail(other)?.reason], [Code.Internal, "video_generation_failed"], "the gateway's own reason");
  t.notMatch(other.rawMessage, /upstream_own_code|upstream words/, "no upstream text in the message");
  t.match(other.cause, { vendorType: "upstream_own_code", body: '"upstream words"' }, "the upstream's code and text go to the log with the cause");
});

t.test("error bodies of both shapes map by status", async (t) => {
  t.equal(fromVendorError(400, {}, { code: "invalid_value", message: "bad", param: "size", type: "invalid_request_error" }, 0).code, Code.InvalidArgument);
  t.equal(fromVendorError(429, { "retry-after": "2" }, { error: { type: "requests" } }, 0).code, Code.ResourceExhausted);
  t.equal(fromVendorError(500, {}, "oops", 0).code, Code.Internal);
  t.equal(fromVendorError(404, {}, {}, 0).code, Code.NotFound);
});
