// The procedures the admin console adds, through @trpc/client (subscriptions
// over SSE with the console's own fetch-based EventSource, which sends the key
// as a header): the live task list, image-bot tasks (imagine, buttons, modal,
// cancel), image generation, videos, the streamed chat and usage over time.
import t from "tap";
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../src/trpc/router.js";
import type { FeedEvent, FeedItem } from "../../src/trpc/task-feed.js";
import { FetchEventSource } from "../../console/src/lib/fetch-event-source.js";
import { ADMIN_KEY, startServer } from "../helpers/app.js";

const server = await startServer({
  config: {
    local: { blocklist: ["forbidden-topic"], chunkDelayMs: 5, signingSecret: "", faultInjection: true, taskMs: 400 },
    imageBot: { tileSize: 32, pollIntervalMs: 50, accounts: [], bannedWords: [], translateModel: "" },
  } as never,
});
t.teardown(() => server.close());

const client = (key = ADMIN_KEY) =>
  createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({ url: `${server.baseUrl}/trpc`, EventSource: FetchEventSource, eventSourceOptions: { headers: { authorization: `Bearer ${key}` } } }),
        false: httpBatchLink({ url: `${server.baseUrl}/trpc`, headers: { authorization: `Bearer ${key}` } }),
      }),
    ],
  });
const admin = client();
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: unknown) => (e instanceof TRPCClientError ? (e as TRPCClientError<AppRouter>).data?.code : String(e)),
  );

/** Collects a subscription's events; `until` waits (bounded) for one that matches. */
function collect<T>(subscribe: (h: { onData: (d: T) => void; onError: (e: unknown) => void; onComplete: () => void }) => { unsubscribe(): void }) {
  const events: T[] = [];
  let error: unknown;
  let complete = false;
  let wake: (() => void) | undefined;
  const sub = subscribe({
    onData: (d) => (events.push(d), wake?.()),
    onError: (e) => ((error = e), wake?.()),
    onComplete: () => ((complete = true), wake?.()),
  });
  return {
    events,
    get error() {
      return error;
    },
    get complete() {
      return complete;
    },
    stop: () => sub.unsubscribe(),
    async until(pred: () => boolean, ms = 10_000): Promise<void> {
      const end = Date.now() + ms;
      while (!pred()) {
        if (error) throw error;
        if (Date.now() > end) throw new Error(`timed out; events so far: ${JSON.stringify(events).slice(0, 2000)}`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 50);
        });
      }
    },
  };
}

const liveFeed = (c = admin, input: Parameters<typeof admin.admin.tasks.live.subscribe>[0] = {}) => collect<FeedEvent>((h) => c.admin.tasks.live.subscribe(input, h));
const updatesOf = (events: FeedEvent[], id: string) => events.flatMap((e) => (e.type === "update" && e.item.id === id ? [e.item] : []));
const snapshotOf = (events: FeedEvent[]) => (events[0]?.type === "snapshot" ? events[0].items : undefined);

async function waitPhase(id: string, phase: FeedItem["phase"], feed: ReturnType<typeof liveFeed>) {
  await feed.until(() => updatesOf(feed.events, id).some((i) => i.phase === phase));
}

t.test("live task list: a snapshot, then every change of an imagine until SUCCESS", async (t) => {
  const feed = liveFeed();
  t.teardown(feed.stop);
  await feed.until(() => feed.events.length > 0);
  t.same(snapshotOf(feed.events), [], "nothing yet");
  const sub = await admin.imageBot.imagine.mutate({ prompt: "a lighthouse at dusk" });
  t.match(sub, { code: 1, taskId: /^\d+$/ });
  await waitPhase(sub.taskId, "succeeded", feed);
  const seen = updatesOf(feed.events, sub.taskId);
  const progress = seen.map((i) => i.progress);
  t.ok(
    progress.some((p) => p > 0 && p < 100),
    `progress moved through intermediate values: ${progress}`,
  );
  t.same(
    progress,
    [...progress].sort((a, b) => a - b),
    "progress never goes down",
  );
  t.match(seen.at(-1), {
    kind: "image-bot",
    status: "SUCCESS",
    phase: "succeeded",
    progress: 100,
    label: "IMAGINE",
    prompt: "a lighthouse at dusk",
    imageUrl: new RegExp(`^${server.baseUrl}/files/`),
  });
  const png = await fetch(seen.at(-1)!.imageUrl);
  t.equal(png.headers.get("content-type"), "image/png", "the image URL points back at the gateway");

  const again = liveFeed(admin, { kind: "image-bot", phases: ["succeeded"] });
  t.teardown(again.stop);
  await again.until(() => again.events.length > 0);
  t.match(snapshotOf(again.events), [{ id: sub.taskId, phase: "succeeded" }], "a new subscriber starts from the stored state");
  const failed = liveFeed(admin, { phases: ["failed"] });
  t.teardown(failed.stop);
  await failed.until(() => failed.events.length > 0);
  t.same(snapshotOf(failed.events), [], "the phase filter applies to the snapshot");
});

t.test("task detail, a button, a modal and cancel", async (t) => {
  const feed = liveFeed();
  t.teardown(feed.stop);
  await feed.until(() => feed.events.length > 0);
  const grid = await admin.imageBot.imagine.mutate({ prompt: "a red fox in snow" });
  await waitPhase(grid.taskId, "succeeded", feed);
  const detail = await admin.imageBot.get.query({ id: grid.taskId });
  t.same(
    detail.buttons.map((b) => b.label || b.emoji),
    ["U1", "U2", "U3", "U4", "🔄", "V1", "V2", "V3", "V4"],
  );
  t.match(detail, { status: "SUCCESS", imageUrls: [/\/files\//] });

  const u1 = await admin.imageBot.action.mutate({ taskId: grid.taskId, customId: detail.buttons[0]!.customId });
  t.equal(u1.code, 1);
  await waitPhase(u1.taskId, "succeeded", feed);
  const up = await admin.imageBot.get.query({ id: u1.taskId });
  t.match(up, { action: "UPSCALE", parentId: grid.taskId });

  const zoomButton = up.buttons.find((b) => b.label === "Custom Zoom")!;
  const zoom = await admin.imageBot.action.mutate({ taskId: u1.taskId, customId: zoomButton.customId });
  t.match(zoom, { code: 1, properties: { status: "MODAL" } });
  await waitPhase(zoom.taskId, "waiting", feed);
  t.match(await admin.imageBot.get.query({ id: zoom.taskId }), { status: "MODAL", properties: { actionDetail: "CUSTOM_ZOOM" } });
  t.equal(await codeOf(admin.imageBot.modal.mutate({ taskId: zoom.taskId, prompt: "a red fox" })), "BAD_REQUEST", "Custom Zoom needs --zoom");
  t.equal((await admin.imageBot.modal.mutate({ taskId: zoom.taskId, prompt: "a red fox --zoom 1.5" })).code, 1);
  await waitPhase(zoom.taskId, "succeeded", feed);

  const doomed = await admin.imageBot.imagine.mutate({ prompt: "to be cancelled" });
  const cancelled = await admin.imageBot.cancel.mutate({ id: doomed.taskId });
  t.equal(cancelled.status, "CANCEL");
  await waitPhase(doomed.taskId, "cancelled", feed);
  t.equal(await codeOf(admin.imageBot.cancel.mutate({ id: doomed.taskId })), "PRECONDITION_FAILED", "a finished task cannot be cancelled");
  t.equal(await codeOf(admin.imageBot.get.query({ id: "404404404" })), "NOT_FOUND");
});

t.test("videos appear in the live list; the kind filter applies", async (t) => {
  const videos = liveFeed(admin, { kind: "video" });
  t.teardown(videos.stop);
  await videos.until(() => videos.events.length > 0);
  const img = await admin.imageBot.imagine.mutate({ prompt: "not a video" });
  const v = await admin.videos.create.mutate({ model: "kling-v1", prompt: "a calico cat", seconds: 1, size: "160x90" });
  t.match(v, { model: "kling-v1", seconds: 1, width: 160, height: 90 });
  await videos.until(() => updatesOf(videos.events, v.id).some((i) => i.phase === "succeeded" || i.phase === "failed"), 30_000);
  t.match(updatesOf(videos.events, v.id).at(-1), { kind: "video", status: "COMPLETED", phase: "succeeded", progress: 100, label: "kling-v1" });
  t.equal(updatesOf(videos.events, img.taskId).length, 0, "image-bot changes are not sent to a video-only list");
  const got = await admin.videos.get.query({ id: v.id });
  t.match(got, { status: "COMPLETED", url: new RegExp(`^${server.baseUrl}/files/`) });

  const doomed = await admin.videos.create.mutate({ model: "kling-v1", prompt: "to be cancelled", seconds: 1, size: "160x90" });
  const cancelled = await admin.videos.cancel.mutate({ id: doomed.id });
  t.match(cancelled, { id: doomed.id, status: "FAILED", error: { code: "cancelled" }, url: "" });
  await videos.until(() => updatesOf(videos.events, doomed.id).some((i) => i.phase === "cancelled"), 10_000);
  t.equal(await codeOf(admin.videos.cancel.mutate({ id: doomed.id })), "PRECONDITION_FAILED", "a finished video cannot be cancelled");
  t.equal(await codeOf(admin.videos.cancel.mutate({ id: "video_unknown" })), "NOT_FOUND");
});

t.test("images.generate returns URLs of real images", async (t) => {
  const res = await admin.images.generate.mutate({ model: "dall-e-2", prompt: "a lighthouse", size: "256x256" });
  t.equal(res.images.length, 1);
  t.match(res.images[0], { width: 256, height: 256, url: new RegExp(`^${server.baseUrl}/files/`) });
  t.equal((await fetch(res.images[0]!.url)).status, 200);
  t.equal(await codeOf(admin.images.generate.mutate({ model: "dall-e-2", prompt: "x", size: "13x13" })), "BAD_REQUEST");
});

t.test("chat.stream: text deltas, usage and finish; a failure is the last event, not a retry", async (t) => {
  const chat = collect<Record<string, unknown>>((h) =>
    admin.chat.stream.subscribe({ model: "local-chat", messages: [{ role: "user", content: "one two three four five six seven" }], maxTokens: 64 }, h),
  );
  await chat.until(() => chat.complete);
  const types = chat.events.map((e) => e.type);
  t.equal(types[0], "start");
  t.ok(types.filter((x) => x === "text").length > 3, "several text deltas");
  t.equal(
    chat.events
      .filter((e) => e.type === "text")
      .map((e) => e.text)
      .join(""),
    "You said: one two three four five six seven",
  );
  t.match(
    chat.events.find((e) => e.type === "finish"),
    { finishReason: "stop" },
  );
  t.match(chat.events.filter((e) => e.type === "usage").at(-1), { inputTokens: Number, outputTokens: Number });

  const broken = collect<Record<string, unknown>>((h) => admin.chat.stream.subscribe({ model: "local-chat", messages: [{ role: "user", content: "hello there #fault:midstream" }] }, h));
  await broken.until(() => broken.complete);
  t.match(broken.events.at(-1), { type: "error", code: "SERVICE_UNAVAILABLE", message: /overloaded/ });
  t.equal(broken.events.filter((e) => e.type === "start").length, 1, "the call was made once");

  const bad = collect<Record<string, unknown>>((h) => admin.chat.stream.subscribe({ model: "", messages: [] }, h));
  await t.rejects(
    bad.until(() => false, 5000),
    { message: /Too small/ },
    "invalid input is a tRPC error",
  );
});

t.test("usageSeries: buckets per model and per key; records split at page boundaries are counted once", async (t) => {
  const since = Date.UTC(2030, 0, 1);
  const base = { format: "messages", channel: "local", inputTokens: 1, outputTokens: 2, images: 0, seconds: 0, credits: 0.5, status: "ok", latencyMs: 1, requestId: "r" };
  // 2,500 records, 10 per millisecond: page boundaries fall inside runs of equal times.
  for (let i = 0; i < 2500; i++) {
    await server.deps.storage.usage.record({
      ...base,
      time: since + Math.floor(i / 10),
      keyId: i % 2 ? "key_a" : "key_b",
      model: i < 500 ? "m-small" : "m-big",
      status: i % 100 === 0 ? "error:unavailable" : "ok",
    });
  }
  const until = since + 250;
  const byModel = await admin.admin.usageSeries.query({ since, until, buckets: 5, groupBy: "model" });
  t.equal(byModel.records, 2500);
  t.equal(byModel.truncated, false);
  t.equal(byModel.bucketMs, 50);
  t.same(
    byModel.starts,
    [0, 50, 100, 150, 200].map((d) => since + d),
  );
  t.same(
    byModel.series.map((s) => [s.group, s.total.requests]),
    [
      ["m-big", 2000],
      ["m-small", 500],
    ],
  );
  t.same(
    byModel.series[1]!.points.map((p) => p.requests),
    [500, 0, 0, 0, 0],
  );
  t.same(
    byModel.series[0]!.points.map((p) => p.requests),
    [0, 500, 500, 500, 500],
  );
  t.match(byModel.total, { requests: 2500, inputTokens: 2500, outputTokens: 5000, credits: 1250, errors: 25 });
  const totals = await admin.admin.usage.query({ since, until });
  t.equal(byModel.total.requests, totals.totals.requests, "the same totals as admin.usage");

  const byKey = await admin.admin.usageSeries.query({ since, until, buckets: 1, groupBy: "key", model: "m-small" });
  t.same(
    byKey.series.map((s) => [s.group, s.total.requests]),
    [
      ["key_a", 250],
      ["key_b", 250],
    ],
    "filters apply",
  );

  // 1,200 records in one millisecond: more than a page can hold there.
  const crowded = since + 10_000;
  for (let i = 0; i < 1200; i++) await server.deps.storage.usage.record({ ...base, time: crowded, keyId: "key_c", model: "m" });
  await server.deps.storage.usage.record({ ...base, time: crowded + 5, keyId: "key_c", model: "m" });
  const crowd = await admin.admin.usageSeries.query({ since: crowded, until: crowded + 10, buckets: 2, groupBy: "none", keyId: "key_c" });
  t.equal(crowd.truncated, true, "marked truncated");
  t.equal(crowd.records, 1001);

  t.equal(await codeOf(admin.admin.usageSeries.query({ since: until, until: since })), "BAD_REQUEST");
});

t.test("other keys: their own tasks only, no admin feed or usage; a bad key is refused", async (t) => {
  const made = await admin.admin.keys.create.mutate({ name: "user", formats: ["trpc"] });
  const user = client(made.secret);
  const mine = await user.imageBot.imagine.mutate({ prompt: "my own task" });
  t.equal(mine.code, 1);
  t.equal((await user.imageBot.get.query({ id: mine.taskId })).prompt, "my own task");
  const other = await admin.imageBot.imagine.mutate({ prompt: "the admin's task" });
  t.equal(await codeOf(user.imageBot.get.query({ id: other.taskId })), "NOT_FOUND");
  t.equal(await codeOf(user.imageBot.cancel.mutate({ id: other.taskId })), "NOT_FOUND");
  t.equal(await codeOf(user.admin.usageSeries.query({ since: 0, until: 1 })), "FORBIDDEN");

  const denied = liveFeed(user);
  t.teardown(denied.stop);
  await t.rejects(
    denied.until(() => false),
    { message: /admin/ },
  );
  t.equal((denied.error as TRPCClientError<AppRouter>).data?.code, "FORBIDDEN");
  const nobody = liveFeed(client("sk-not-a-key"));
  t.teardown(nobody.stop);
  await t.rejects(nobody.until(() => false));
  t.equal((nobody.error as TRPCClientError<AppRouter>).data?.code, "UNAUTHORIZED");
});

t.test("closing the app ends live subscriptions (close() does not wait for them); clients are told to reconnect", async (t) => {
  const other = await startServer();
  const c = createTRPCClient<AppRouter>({
    links: [httpSubscriptionLink({ url: `${other.baseUrl}/trpc`, EventSource: FetchEventSource, eventSourceOptions: { headers: { authorization: `Bearer ${ADMIN_KEY}` } } })],
  });
  const states: { state: string; error: unknown }[] = [];
  const feed = collect<FeedEvent>((h) => c.admin.tasks.live.subscribe({}, { ...h, onConnectionStateChange: (s) => states.push(s) }));
  t.teardown(feed.stop);
  await feed.until(() => feed.events.length > 0);
  await other.close();
  await feed.until(() => states.some((s) => s.state === "connecting" && s.error instanceof TRPCClientError));
  const err = states.find((s) => s.error)!.error as TRPCClientError<AppRouter>;
  t.equal(err.data?.code, "SERVICE_UNAVAILABLE");
  t.match(err.message, /shutting down/);
  t.notOk(feed.error, "not an error of the subscription: it reconnects");
});
