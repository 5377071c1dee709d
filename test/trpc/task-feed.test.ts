// taskFeed against stub core clients: the snapshot, changes coalesced per
// task, re-reads of unfinished tasks when changes may come from other
// instances, and how the feed ends (the client left, or the app is closing).
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Action, Status, TaskSchema, type Task } from "../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { Status as VideoStatus, VideoErrorSchema, VideoSchema, type Video } from "../../gen/omnigate/video/v1/video_pb.js";
import type { StoredTask } from "../../src/core/tasks/types.js";
import type { TrpcContext } from "../../src/trpc/context.js";
import { taskFeed, type FeedEvent } from "../../src/trpc/task-feed.js";
import { callInit } from "../core/call/harness.js";

const task = (id: string, status: Status, progress: number, submit = 1000): Task =>
  create(TaskSchema, { id, action: Action.IMAGINE, status, progress, prompt: `prompt ${id}`, submitTime: timestampFromMs(submit) });
const video = (id: string, status: VideoStatus, progress: number): Video => create(VideoSchema, { id, model: "kling-v1", prompt: "a cat", status, progress, createTime: timestampFromMs(500) });

function stub(opts: { shared?: boolean } = {}) {
  const tasks = new Map<string, Task>();
  const videos = new Map<string, Video>();
  const calls: string[] = [];
  const listeners = new Set<(t: StoredTask) => void>();
  const closing = new AbortController();
  const ctx = {
    clients: {
      imageBot: {
        async listTasks(req: { ids?: string[]; statuses?: Status[] }) {
          calls.push(`listTasks ${req.ids?.join(",") ?? ""}`);
          const all = [...tasks.values()];
          return { tasks: req.ids?.length ? all.filter((x) => req.ids!.includes(x.id)) : all.filter((x) => !req.statuses?.length || req.statuses.includes(x.status)), nextPageToken: "" };
        },
      },
      video: {
        async listVideos() {
          calls.push("listVideos");
          return { videos: [...videos.values()], hasMore: false };
        },
        async getVideo(req: { id: string }) {
          calls.push(`getVideo ${req.id}`);
          const v = videos.get(req.id);
          if (!v) throw new ConnectError("gone", Code.NotFound);
          return { video: v };
        },
      },
    },
    call: callInit(),
    taskEvents: {
      shared: opts.shared ?? false,
      subscribeAll(fn: (t: StoredTask) => void) {
        listeners.add(fn);
        return () => listeners.delete(fn);
      },
    },
    closing: closing.signal,
  } as unknown as TrpcContext;
  const emit = (id: string, kind: string) => {
    for (const fn of listeners) fn({ id, kind } as StoredTask);
  };
  return { ctx, tasks, videos, calls, emit, listeners, closing };
}

/** Pulls events one at a time. */
function reader(gen: AsyncGenerator<FeedEvent>) {
  return {
    next: async (): Promise<FeedEvent> => {
      const r = await gen.next();
      if (r.done) throw new Error("the feed ended");
      return r.value;
    },
    gen,
  };
}

t.test("snapshot, then one re-read per batch of changes", async (t) => {
  const s = stub();
  s.tasks.set("1", task("1", Status.IN_PROGRESS, 40, 2000));
  s.tasks.set("2", task("2", Status.SUCCESS, 100, 1000));
  s.videos.set("v1", video("v1", VideoStatus.QUEUED, 0));
  const ac = new AbortController();
  const feed = reader(taskFeed(s.ctx, { phases: [], limit: 100 }, ac.signal));
  const snap = await feed.next();
  t.match(snap, {
    type: "snapshot",
    items: [
      { id: "1", phase: "running", progress: 40 },
      { id: "2", phase: "succeeded" },
      { id: "v1", kind: "video", phase: "queued" },
    ],
  });

  s.tasks.set("1", task("1", Status.IN_PROGRESS, 70, 2000));
  const pending = feed.next();
  s.emit("1", "image-bot");
  s.emit("1", "image-bot");
  s.emit("1", "image-bot");
  s.emit("x", "something-else");
  t.match(await pending, { type: "update", item: { id: "1", progress: 70 } });
  t.same(
    s.calls.filter((c) => c.startsWith("listTasks 1")),
    ["listTasks 1"],
    "three changes of one task: read once",
  );

  s.videos.set("v1", video("v1", VideoStatus.COMPLETED, 100));
  const next = feed.next();
  s.emit("v1", "video");
  t.match(await next, { type: "update", item: { id: "v1", kind: "video", status: "COMPLETED", phase: "succeeded" } });

  s.videos.delete("v1");
  s.tasks.set("1", task("1", Status.SUCCESS, 100, 2000));
  const after = feed.next();
  s.emit("v1", "video");
  s.emit("1", "image-bot");
  t.match(await after, { type: "update", item: { id: "1", phase: "succeeded" } }, "a task that is gone is skipped");

  ac.abort();
  t.same(await feed.gen.next(), { done: true, value: undefined }, "the client left: the feed ends quietly");
  t.equal(s.listeners.size, 0, "and stops listening");
});

t.test("filters: kind and phase", async (t) => {
  const s = stub();
  s.tasks.set("1", task("1", Status.FAILURE, 10));
  s.tasks.set("2", task("2", Status.SUCCESS, 100));
  s.videos.set("v1", video("v1", VideoStatus.FAILED, 0));
  const ac = new AbortController();
  t.teardown(() => ac.abort());
  const failed = reader(taskFeed(s.ctx, { phases: ["failed"], limit: 100 }, ac.signal));
  t.same(((await failed.next()) as { items: { id: string }[] }).items.map((i) => i.id).sort(), ["1", "v1"]);
  const videos = reader(taskFeed(s.ctx, { kind: "video", phases: [], limit: 100 }, ac.signal));
  t.same(
    ((await videos.next()) as { items: { id: string }[] }).items.map((i) => i.id),
    ["v1"],
  );
  const limited = reader(taskFeed(s.ctx, { phases: [], limit: 1 }, ac.signal));
  t.equal(((await limited.next()) as { items: unknown[] }).items.length, 1);
  s.tasks.set("3", task("3", Status.CANCEL, 10));
  s.videos.set("v2", create(VideoSchema, { ...video("v2", VideoStatus.FAILED, 0), error: create(VideoErrorSchema, { code: "cancelled", message: "cancelled by the client" }) }));
  const cancelled = reader(taskFeed(s.ctx, { phases: ["cancelled"], limit: 100 }, ac.signal));
  t.same(((await cancelled.next()) as { items: { id: string }[] }).items.map((i) => i.id).sort(), ["3", "v2"], "a video failed with code cancelled is in the cancelled phase, like a cancelled task");
  const failedNow = reader(taskFeed(s.ctx, { phases: ["failed"], limit: 100 }, ac.signal));
  t.same(((await failedNow.next()) as { items: { id: string }[] }).items.map((i) => i.id).sort(), ["1", "v1"], "and not in the failed one");
});

t.test("with changes shared across instances, unfinished tasks are re-read now and then", async (t) => {
  const s = stub({ shared: true });
  s.tasks.set("1", task("1", Status.IN_PROGRESS, 10));
  s.tasks.set("2", task("2", Status.SUCCESS, 100));
  const ac = new AbortController();
  t.teardown(() => ac.abort());
  const feed = reader(taskFeed(s.ctx, { phases: [], limit: 100 }, ac.signal, 20));
  await feed.next();
  // The change's message was lost: no event, but the re-read finds it.
  s.tasks.set("1", task("1", Status.SUCCESS, 100));
  t.match(await feed.next(), { type: "update", item: { id: "1", phase: "succeeded" } });
  const calls = s.calls.length;
  await new Promise((r) => setTimeout(r, 100));
  t.equal(s.calls.length, calls, "nothing unfinished: no more re-reads");
});

t.test("the app closing ends the feed with a retryable error", async (t) => {
  const s = stub();
  const feed = reader(taskFeed(s.ctx, { phases: [], limit: 100 }, new AbortController().signal));
  await feed.next();
  const end = feed.gen.next();
  s.closing.abort();
  await t.rejects(end, { code: "SERVICE_UNAVAILABLE", message: /shutting down/ });
  t.equal(s.listeners.size, 0);
});
