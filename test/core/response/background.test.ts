// Background responses in the core, on SQLite with a real task runner: a
// create is stored queued and run on the owner's behalf in the caller's
// format; a watch replays from any index and follows live events to the end;
// the events are kept with the task; a failed call ends FAILED with its
// error; a cancel aborts the call and ends CANCELLED with the events so far;
// another key sees nothing; a follow-up waits until the response is saved
// finished; a revoked key stops the generation.
import t, { type Test } from "tap";
import { rmSync } from "node:fs";
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "../../../src/core/proto/create.js";
import { StreamGenerateResponseSchema, type ChatService, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { BackgroundResponse_State as State, StoredResponseService, type WatchBackgroundResponseResponse } from "../../../gen/omnigate/response/v1/response_pb.js";
import type { CallInit } from "../../../src/core/call/call.js";
import type { CoreClient } from "../../../src/core/call/service.js";
import { coreError, errorDetail } from "../../../src/core/errors.js";
import { backgroundHandler } from "../../../src/core/response/background-handler.js";
import { BACKGROUND_QUEUE, decodeEvents, type BackgroundPayload } from "../../../src/core/response/background-task.js";
import { LiveRuns } from "../../../src/core/response/live-runs.js";
import { storedResponseService } from "../../../src/core/response/stored-response-service.js";
import { responseSweeper } from "../../../src/core/response/sweeper.js";
import { TaskRunner } from "../../../src/core/tasks/runner.js";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import { tempDir } from "../../helpers/app.js";
import { serve, TEST_PRINCIPAL } from "../call/harness.js";

const ev = (e: StreamGenerateResponse["event"]) => create(StreamGenerateResponseSchema, { event: e } as never);
const EVENTS = [
  ev({ case: "start", value: { model: "m", channel: "c" } } as never),
  ev({ case: "partStart", value: { index: 0, part: { kind: { case: "text", value: { text: "" } } } } } as never),
  ev({ case: "partDelta", value: { index: 0, delta: { case: "text", value: "Hel" } } } as never),
  ev({ case: "partDelta", value: { index: 0, delta: { case: "text", value: "lo" } } } as never),
  ev({ case: "partStop", value: { index: 0 } } as never),
];

/** A chat client whose stream yields EVENTS, stalling after `stallAfter` of them until released, or failing there. */
function fakeChat() {
  const calls: CallInit[] = [];
  const o = { stallAfter: Infinity, fail: undefined as ConnectError | undefined, release: () => {} };
  const chat = {
    streamGenerate: (_req: unknown, call: CallInit) => {
      calls.push(call);
      return (async function* () {
        for (let i = 0; i < EVENTS.length; i++) {
          if (i === o.stallAfter) {
            if (o.fail) throw o.fail;
            await new Promise<void>((resolve, reject) => {
              o.release = resolve;
              call.signal.addEventListener("abort", () => reject(call.signal.reason), { once: true });
            });
          }
          yield EVENTS[i]!;
        }
      })();
    },
  } as unknown as CoreClient<typeof ChatService>;
  return { chat, calls, o };
}

async function setup(t: Test) {
  const dir = tempDir("omnigate-background-");
  const storage = openSqliteStorage(dir);
  const now = Date.now;
  for (const id of ["key_a", "key_b"]) {
    await storage.keys.insert({ id, name: id, hash: id, prefix: id, admin: false, formats: [], models: [], budget: 0, spent: 0, limits: TEST_PRINCIPAL.limits, createTime: now() });
  }
  const fake = fakeChat();
  const live = new LiveRuns();
  const runner = new TaskRunner({
    storage,
    now,
    timeoutMs: 60_000,
    sweepIntervalMs: 0,
    callbacks: { secret: "", allowPrivate: true, timeoutMs: 1000, maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 50, pollMs: 50, concurrency: 1 },
  });
  runner.defineQueue(BACKGROUND_QUEUE, { concurrency: 4, queueSize: 10 });
  runner.register(backgroundHandler({ chat: () => fake.chat, keys: storage.keys, live, runner: () => runner, timeoutMs: 60_000, now }));
  await runner.start();
  const impl = storedResponseService({ store: storage.responses, retentionMs: 86_400_000, maxBytes: 1 << 20, now, background: { runner, tasks: storage.tasks, live, now, pollMs: 20 } });
  const a = serve(StoredResponseService, impl, { principal: { ...TEST_PRINCIPAL, keyId: "key_a" } });
  const b = serve(StoredResponseService, impl, { principal: { ...TEST_PRINCIPAL, keyId: "key_b" } });
  t.teardown(async () => {
    fake.o.release();
    await runner.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { a, b, runner, fake, storage };
}

let n = 0;
const createReq = (render: JsonObject = { any: "state" }) => {
  const id = `resp_bg${++n}${Date.now()}`;
  return {
    id,
    req: {
      response: { id, status: "queued", model: "m", response: { id, status: "queued" }, input: [{ type: "message", role: "user", content: "hi" }] },
      request: { input: { model: "m" } },
      render,
    },
  };
};

async function collect(it: AsyncIterable<WatchBackgroundResponseResponse>) {
  const out: WatchBackgroundResponseResponse[] = [];
  for await (const m of it) out.push(m);
  return out;
}

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("resolved");
    },
    (err: unknown) => err as ConnectError,
  );

t.test("created queued, run on the owner's behalf, watched live and replayed from an index", async (t) => {
  const { a, runner, fake } = await setup(t);
  fake.o.stallAfter = 2;
  const { id, req } = createReq();
  const created = await a.createBackgroundResponse(req, { format: "openai-responses" });
  t.equal(created.response?.status, "queued");
  t.ok(created.response?.background, "it is a background response");
  t.same(created.response?.background?.render, { any: "state" });

  const watching = collect(a.watchBackgroundResponse({ id }));
  for (let i = 0; i < 200 && fake.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
  for (let i = 0; i < 100 && (await a.getResponse({ id })).response?.background?.state !== State.IN_PROGRESS; i++) await new Promise((r) => setTimeout(r, 5));
  t.equal((await a.getResponse({ id })).response?.background?.state, State.IN_PROGRESS);
  t.match(fake.calls[0], { format: "openai-responses", requestId: id, principal: { keyId: "key_a" } }, "the owner's call in the caller's format");
  fake.o.release();
  const got = await watching;
  t.equal(got[0]!.item.case, "background");
  t.same(
    got.filter((m) => m.item.case === "event").map((m) => Number(m.index)),
    [0, 1, 2, 3, 4],
  );
  const end = got.at(-1)!;
  t.equal(end.item.case, "end");
  t.equal(end.item.case === "end" && end.item.value.state, State.SUCCEEDED);

  for (let i = 0; i < 100 && (await runner.get(id))?.run.status !== "SUCCESS"; i++) await new Promise((r) => setTimeout(r, 5));
  const task = await runner.get<BackgroundPayload>(id);
  t.equal(decodeEvents(task!.payload.events).length, 5, "the events are kept with the task");
  t.equal(task!.payload.request, undefined, "its request is dropped");
  const replay = await collect(a.watchBackgroundResponse({ id, startIndex: 3n }));
  t.same(
    replay.map((m) => [m.item.case, Number(m.index)]),
    [
      ["background", 0],
      ["event", 3],
      ["event", 4],
      ["end", 5],
    ],
  );
  const ctx = await rejection(a.getContext({ id }));
  t.equal(errorDetail(ctx)?.reason, "background_unsaved", "a follow-up waits for it to be saved finished");
  await a.saveResponse({ id, status: "completed", model: "m", response: { id, status: "completed" }, keepInput: true, output: [{ type: "message", id: "msg_1" }] });
  const items = (await a.getContext({ id })).items;
  t.match(
    items,
    [
      { type: "message", role: "user" },
      { type: "message", id: "msg_1" },
    ],
    "saved finished: its input kept, its output added",
  );
  t.equal((await a.getResponse({ id })).response?.background, undefined, "no longer reported as running");
});

t.test("a failed call ends FAILED with its error; another key sees nothing", async (t) => {
  const { a, b, fake } = await setup(t);
  fake.o.stallAfter = 1;
  fake.o.fail = coreError(Code.ResourceExhausted, "slow down", { reason: "rate_limited" });
  const { id, req } = createReq();
  await a.createBackgroundResponse(req);
  const got = await collect(a.watchBackgroundResponse({ id }));
  const end = got.at(-1)!.item;
  t.equal(end.case, "end");
  if (end.case === "end") t.match(end.value, { state: State.FAILED, errorCode: Code.ResourceExhausted, errorMessage: "slow down", errorDetail: { reason: "rate_limited" } });
  t.equal((await rejection(b.getResponse({ id }))).code, Code.NotFound);
  t.equal((await rejection(collect(b.watchBackgroundResponse({ id })))).code, Code.NotFound);
  t.equal((await rejection(b.cancelBackgroundResponse({ id }))).code, Code.NotFound);
  const again = await rejection(a.cancelBackgroundResponse({ id }));
  t.equal(errorDetail(again)?.reason, "response_finished");
});

t.test("cancel aborts the running call and ends CANCELLED with the events so far", async (t) => {
  const { a, runner, fake } = await setup(t);
  fake.o.stallAfter = 3;
  const { id, req } = createReq();
  await a.createBackgroundResponse(req);
  const watching = collect(a.watchBackgroundResponse({ id }));
  for (let i = 0; i < 200 && fake.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 20));
  const inProgress = await rejection(a.getContext({ id }));
  t.equal(errorDetail(inProgress)?.reason, "response_in_progress");
  const cancelled = await a.cancelBackgroundResponse({ id });
  t.equal(cancelled.response?.background?.state, State.CANCELLED);
  t.ok(fake.calls[0]!.signal.aborted, "the chat call was aborted");
  const got = await watching;
  t.equal(got.filter((m) => m.item.case === "event").length, 3);
  t.match(got.at(-1)!.item, { case: "end", value: { state: State.CANCELLED } });
  t.equal((await runner.get(id))?.run.status, "CANCEL");
  t.equal(decodeEvents((await runner.get<BackgroundPayload>(id))!.payload.events).length, 3, "its events are kept");
});

t.test("a key revoked before the run stops it; a response that is not background cannot be watched or cancelled", async (t) => {
  const { a, storage } = await setup(t);
  await storage.keys.update("key_a", { revokeTime: Date.now() });
  const { id, req } = createReq();
  await a.createBackgroundResponse(req);
  const end = (await collect(a.watchBackgroundResponse({ id }))).at(-1)!.item;
  t.match(end, { case: "end", value: { state: State.FAILED, errorCode: Code.PermissionDenied } });

  await a.saveResponse({ id: "resp_plain1", status: "completed", model: "m", response: {} });
  t.equal(errorDetail(await rejection(collect(a.watchBackgroundResponse({ id: "resp_plain1" }))))?.reason, "not_background");
  t.equal(errorDetail(await rejection(a.cancelBackgroundResponse({ id: "resp_plain1" })))?.reason, "not_background");
  const bad = await rejection(a.createBackgroundResponse({ ...createReq().req, response: { ...createReq().req.response, status: "completed" } }));
  t.equal(bad.code, Code.InvalidArgument);
});

t.test("the sweeper deletes finished background tasks once they are as old as the retention", async (t) => {
  const { storage } = await setup(t);
  const T = 1_000_000;
  const task = (id: string, status: string, createTime: number) =>
    storage.tasks.insert({ id, kind: "background-response", status, data: {}, createTime, updateTime: createTime, version: 1, queue: BACKGROUND_QUEUE } as never);
  await task("resp_old_done", "SUCCESS", T);
  await task("resp_old_cancelled", "CANCEL", T + 1);
  await task("resp_new_done", "SUCCESS", T + 5_000);
  const sweeper = responseSweeper(storage.responses, { intervalMs: 0, now: () => T + 3_000, batch: 2, tasks: { store: storage.tasks, kind: "background-response", retentionMs: 2_000 } });
  await sweeper.runOnce();
  t.equal(await storage.tasks.get("resp_old_done"), undefined);
  t.equal(await storage.tasks.get("resp_old_cancelled"), undefined);
  t.ok(await storage.tasks.get("resp_new_done"), "a newer one stays");
});
