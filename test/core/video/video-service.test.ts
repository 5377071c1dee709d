// The VideoService as a Connect client sees it: timeouts from the runner's
// sweep, a full queue, list paging rules, remix rules, and file URLs.
import t from "tap";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AdminService } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import { Status, Variant, VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import { errorDetail } from "../../../src/core/errors.js";
import { newVideoId } from "../../../src/core/video/video-service.js";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";
import { until } from "../../facades/video/helpers.js";

const opts = { headers: { authorization: `Bearer ${ADMIN_KEY}` } };
const local = (taskMs: number) => ({ blocklist: ["forbidden-topic"], chunkDelayMs: 0, signingSecret: "", faultInjection: true, taskMs });
const video = (over: Record<string, unknown> = {}) => ({
  concurrency: 1,
  channelConcurrency: 4,
  queueSize: 1,
  ttlMs: 3_600_000,
  timeoutMs: 5_000,
  pollMs: 10,
  maxPollMs: 20,
  maxBytes: 1e8,
  allowPrivateUrls: false,
  fontFile: "",
  notifyHook: "",
  ...over,
});

async function failure(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error("expected a failure");
}

t.test("ids sort by creation time", async (t) => {
  const a = newVideoId(1_000);
  const b = newVideoId(1_000);
  const c = newVideoId(2_000);
  t.match(a, /^video_[0-9a-f]{32}$/);
  t.ok(a < b && b < c, "same millisecond keeps order, later sorts after");
});

t.test("a task past video.timeoutMs fails with code timeout; a full queue is refused", async (t) => {
  let clock = Date.now();
  const server = await startServer({ now: () => clock, config: { local: local(60_000), video: video() } });
  t.teardown(() => server.close());
  const videos = createClient(VideoService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
  const small = { prompt: "slow", size: "160x90", duration: 1, fps: 4 };
  const running = (await videos.createVideo(small, opts)).video!;
  const waiting = (await videos.createVideo(small, opts)).video!;
  t.equal(waiting.status, Status.QUEUED);
  const full = await failure(videos.createVideo(small, opts));
  t.same([full.code, errorDetail(full)?.reason], [Code.ResourceExhausted, "queue_full"], "one running, one waiting, no room for a third");

  await until(
    async () => (await videos.getVideo({ id: running.id }, opts)).video!,
    (v) => v.status === Status.IN_PROGRESS,
  );
  clock += 6_000;
  t.equal(await server.deps.tasks.runner.sweep(), 2, "both are past their timeout");
  for (const id of [running.id, waiting.id]) {
    const v = (await videos.getVideo({ id }, opts)).video!;
    t.equal(v.status, Status.FAILED);
    t.equal(v.error?.code, "timeout");
    t.match(v.error?.message, /^timed out/);
  }
});

t.test("CancelVideo: a queued or rendering video stops and stays; a finished one, or another key's, is refused", async (t) => {
  const server = await startServer({ config: { local: local(60_000), video: video({ queueSize: 4 }) } });
  t.teardown(() => server.close());
  const videos = createClient(VideoService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
  const small = { prompt: "slow", size: "160x90", duration: 1, fps: 4 };
  const running = (await videos.createVideo(small, opts)).video!;
  const waiting = (await videos.createVideo(small, opts)).video!;
  await until(
    async () => (await videos.getVideo({ id: running.id }, opts)).video!,
    (v) => v.status === Status.IN_PROGRESS,
  );
  t.equal((await videos.getVideo({ id: waiting.id }, opts)).video!.status, Status.QUEUED);
  for (const v of [waiting, running]) {
    const c = (await videos.cancelVideo({ id: v.id }, opts)).video!;
    t.same([c.id, c.status, c.error?.code, c.url], [v.id, Status.FAILED, "cancelled", ""], `${v.id === running.id ? "rendering" : "queued"}: failed, code cancelled`);
    t.ok(c.completeTime, "with the time it ended");
    const again = await failure(videos.cancelVideo({ id: v.id }, opts));
    t.same([again.code, errorDetail(again)?.reason], [Code.FailedPrecondition, "video_finished"], "a second cancel is refused");
  }
  const next = (await videos.createVideo(small, opts)).video!;
  await until(
    async () => (await videos.getVideo({ id: next.id }, opts)).video!,
    (v) => v.status === Status.IN_PROGRESS,
  );
  t.pass("the cancelled video's slot is free again: the next one starts");
  const listed = (await videos.listVideos({ limit: 10 }, opts)).videos.map((v) => v.id);
  t.ok(listed.includes(running.id) && listed.includes(waiting.id), "cancelled videos stay listed (DeleteVideo removes them)");

  const admin = createClient(AdminService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
  const { secret } = await admin.createKey({ key: { name: "someone else" } }, opts);
  const theirs = await failure(videos.cancelVideo({ id: next.id }, { headers: { authorization: `Bearer ${secret}` } }));
  t.same([theirs.code, errorDetail(theirs)?.reason], [Code.NotFound, "video_not_found"], "another key's video is not found");
  t.equal((await videos.getVideo({ id: next.id }, opts)).video!.status, Status.IN_PROGRESS, "and keeps rendering");
  const unknown = await failure(videos.cancelVideo({ id: "video_" + "0".repeat(32) }, opts));
  t.same([unknown.code, errorDetail(unknown)?.reason], [Code.NotFound, "video_not_found"]);
  const missing = await failure(videos.cancelVideo({ id: "" }, opts));
  t.equal(missing.code, Code.InvalidArgument);
});

t.test("list, remix and content rules; signed URLs", async (t) => {
  const server = await startServer({ config: { local: local(50), video: video({ queueSize: 100, concurrency: 2 }) } });
  t.teardown(() => server.close());
  const videos = createClient(VideoService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
  const reason = async (p: Promise<unknown>) => {
    const e = await failure(p);
    return [e.code, errorDetail(e)?.field, errorDetail(e)?.reason];
  };
  t.same(await reason(videos.listVideos({ order: "sideways" }, opts)), [Code.InvalidArgument, "order", "invalid_value"]);
  t.same(await reason(videos.listVideos({ limit: 101 }, opts)), [Code.InvalidArgument, "limit", "invalid_value"]);
  t.same(await reason(videos.listVideos({ after: "video_unknown" }, opts)), [Code.InvalidArgument, "after", "invalid_value"]);
  t.same(await reason(videos.getVideo({ id: "" }, opts)), [Code.InvalidArgument, "id", "missing_required_parameter"]);

  const blocked = (await videos.createVideo({ prompt: "forbidden-topic", size: "160x90", duration: 1, fps: 4 }, opts)).video!;
  const failed = await until(
    async () => (await videos.getVideo({ id: blocked.id }, opts)).video!,
    (v) => v.status === Status.FAILED,
  );
  t.equal(failed.url, "");
  t.same(await reason(videos.remixVideo({ id: blocked.id, prompt: "again" }, opts)), [Code.FailedPrecondition, "id", "video_not_ready"]);

  const made = (await videos.createVideo({ prompt: "a lighthouse", size: "160x90", duration: 1, fps: 4, seed: 77n }, opts)).video!;
  t.same(await reason(videos.remixVideo({ id: made.id, prompt: "" }, opts)), [Code.InvalidArgument, "prompt", "missing_required_parameter"]);
  const ok = await until(
    async () => (await videos.getVideo({ id: made.id }, opts)).video!,
    (v) => v.status === Status.COMPLETED,
  );
  t.equal(ok.url, "", "no URL without a base: Connect callers get file ids from content");
  const content = (await videos.getVideoContent({ id: made.id, variant: Variant.THUMBNAIL }, opts)).file!;
  t.equal(content.mimeType, "image/webp");
  t.ok(content.data.byteLength > 0);
  const remix = (await videos.remixVideo({ id: made.id, prompt: "a lighthouse in fog" }, opts)).video!;
  t.same([remix.remixedFrom, remix.seed, remix.width, remix.height, remix.duration, remix.fps], [made.id, 77n, 160, 90, 1, 4], "the remix keeps its parent's seed and shape");

  // Only an edge that knows the host sets the base: no header lets a remote caller name one.
  const withHeader = await videos.getVideo({ id: made.id }, { headers: { ...opts.headers, "omnigate-url-base": "https://gw.example" } });
  t.equal(withHeader.video!.url, "", "a base a remote caller names is ignored");
});
