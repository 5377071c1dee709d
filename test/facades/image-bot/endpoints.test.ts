// Every /ib endpoint and envelope code on the local engine: submit, fetch,
// seed, upload, list, queue, cancel, the SSE stream and WatchTask, accounts,
// auth, and bad inputs answered with the right code (never a 500).
import t from "tap";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Status, ImageBotService } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { createParser } from "eventsource-parser";
import sharp from "sharp";
import { ADMIN_KEY, USER_KEY, addKey, client, download, image, startIb } from "./ib-helpers.js";

t.test("endpoints on the local engine", async (t) => {
  const s = await startIb({ taskMs: 150 });
  t.teardown(() => s.close());
  const ib = client(s);
  const red = await image(40, 40, "#dd2222");
  const blue = await image(40, 30, "#2233dd");

  t.test("no key, a wrong key: 401 with the envelope", async (t) => {
    for (const [path, method] of [
      ["/submit/imagine", "POST"],
      ["/task/1/fetch", "GET"],
      ["/account/list", "GET"],
      ["/task/queue", "GET"],
    ] as const) {
      const anon = await fetch(`${s.baseUrl}/ib${path}`, { method, headers: { "content-type": "application/json" }, ...(method === "POST" ? { body: "{}" } : {}) });
      t.equal(anon.status, 401, `${path} without a key`);
      t.match(await anon.json(), { code: 21, description: /API key/, result: null });
    }
    const wrong = await client(s, "sk-og-wrong").post("/submit/imagine", { prompt: "cat" });
    t.equal(wrong.status, 401);
    t.match(wrong.body, { code: 21, result: null });
  });

  t.test("imagine: code 1, then the task object of spec 2.2 through its lifecycle", async (t) => {
    const before = Date.now();
    const sub = await ib.post("/submit/imagine", { prompt: "a red fox --ar 3:2", state: "my-state" });
    t.equal(sub.status, 200);
    t.match(sub.body, { code: 1, description: "Submit success", properties: {}, result: /^\d{16}$/ });
    const task = await ib.waitFor(sub.body.result);
    t.match(task, {
      id: sub.body.result,
      action: "IMAGINE",
      status: "SUCCESS",
      prompt: "a red fox --ar 3:2",
      promptEn: "a red fox --ar 3:2",
      description: "/imagine a red fox --ar 3:2",
      failReason: "",
      progress: "100%",
      state: "my-state",
      properties: { finalPrompt: "a red fox --ar 3:2" },
    });
    t.ok(task.submitTime >= before - 5 && task.submitTime <= task.startTime && task.startTime <= task.finishTime && task.finishTime <= Date.now(), "epoch-ms times in order");
    t.same(
      task.buttons.map((b: { label: string; emoji: string }) => b.label || b.emoji),
      ["U1", "U2", "U3", "U4", "🔄", "V1", "V2", "V3", "V4"],
    );
    const img = await download(task.imageUrl);
    t.equal(img.status, 200);
    t.equal(img.type, "image/png");
    t.same([img.width, img.height], [64, 44], "a 2x2 grid of 32x22 images at 3:2");
  });

  t.test("SSE events and WatchTask follow a task from its first state to SUCCESS, with a preview while it runs", async (t) => {
    const sub = await ib.post("/submit/imagine", { prompt: "streamed" });
    const res = await fetch(`${s.baseUrl}/ib/task/${sub.body.result}/events`, { headers: { authorization: `Bearer ${USER_KEY}` } });
    t.equal(res.status, 200);
    t.match(res.headers.get("content-type"), /^text\/event-stream/);
    const events: { event: string; data: any }[] = [];
    const parser = createParser({ onEvent: (e) => events.push({ event: e.event ?? "message", data: JSON.parse(e.data) }) });
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    const tasks = events.filter((e) => e.event === "task").map((e) => e.data);
    t.equal(events.at(-1)!.event, "done");
    t.equal(tasks.at(-1).status, "SUCCESS");
    t.equal(tasks.at(-1).progress, "100%");
    const progress = tasks.map((x) => Number.parseInt(x.progress, 10));
    t.same(
      progress,
      [...progress].sort((a, b) => a - b),
      "progress never goes down",
    );
    t.ok(
      tasks.some((x) => x.status === "IN_PROGRESS" && x.imageUrl),
      "a preview URL while it runs",
    );
    const preview = tasks.find((x) => x.status === "IN_PROGRESS" && x.imageUrl);
    t.equal((await download(preview.imageUrl)).status, 200, "the preview is served");

    const rpc = createClient(ImageBotService, createConnectTransport({ baseUrl: s.baseUrl, httpVersion: "1.1" }));
    const sub2 = await ib.post("/submit/imagine", { prompt: "watched" });
    const seen: Status[] = [];
    for await (const m of rpc.watchTask({ id: sub2.body.result }, { headers: { authorization: `Bearer ${USER_KEY}` } })) seen.push(m.task!.status);
    t.equal(seen.at(-1), Status.SUCCESS);
    t.ok(seen.includes(Status.IN_PROGRESS));
    const refused = rpc.watchTask({ id: sub2.body.result }, { headers: { authorization: `Bearer ${ADMIN_KEY}x` } });
    await t.rejects(refused[Symbol.asyncIterator]().next(), { code: 16 });
    const missing = await fetch(`${s.baseUrl}/ib/task/404404/events`, { headers: { authorization: `Bearer ${USER_KEY}` } });
    t.equal(missing.status, 404);
    t.match(await missing.json(), { code: 21, result: null });
  });

  t.test("blend 2 to 5 images at the chosen dimensions; 1 or 6 images are refused", async (t) => {
    const task = await ib.run("/submit/blend", { base64Array: [red, blue], dimensions: "PORTRAIT" });
    t.match(task, { action: "BLEND", status: "SUCCESS", description: `/blend ${task.id} 2` });
    const img = await download(task.imageUrl);
    t.same([img.width, img.height], [44, 64], "2:3 tiles of 22x32");
    const five = await ib.post("/submit/blend", { base64Array: [red, blue, red, blue, red], dimensions: "LANDSCAPE" });
    t.equal(five.body.code, 1);
    for (const n of [1, 6]) {
      const r = await ib.post("/submit/blend", { base64Array: Array(n).fill(red) });
      t.equal(r.status, 400, `${n} images`);
      t.same(r.body, { code: 21, description: `base64Array: blend takes 2 to 5 images; got ${n}`, properties: {}, result: null });
    }
  });

  t.test("describe: four prompts from the image, imagine buttons", async (t) => {
    const task = await ib.run("/submit/describe", { base64: await image(60, 30, "#1010e0") });
    t.match(task, { action: "DESCRIBE", status: "SUCCESS", description: `/describe ${task.id}.png` });
    const prompts = String(task.properties.finalPrompt).split("\n\n");
    t.equal(prompts.length, 4);
    t.match(prompts[0], /^1️⃣ .*blue.*--ar 2:1$/);
    t.same(
      task.buttons.map((b: { customId: string }) => b.customId),
      ["MJ::Job::PicReader::1", "MJ::Job::PicReader::2", "MJ::Job::PicReader::3", "MJ::Job::PicReader::4", "MJ::Picread::Retry"],
    );
    t.equal((await download(task.imageUrl)).width, 60, "imageUrl is the described image");
  });

  t.test("shorten: important tokens and shortened prompts", async (t) => {
    const task = await ib.run("/submit/shorten", { prompt: "a very detailed photograph of an ancient castle on a misty mountain at sunrise --ar 16:9" });
    t.match(task, { action: "SHORTEN", status: "SUCCESS", imageUrl: "" });
    t.match(task.properties.finalPrompt, /^## Important tokens\n.*castle.*\n\n## Shortened prompts\n1️⃣ .*--ar 16:9/s);
    t.equal(task.buttons.length, 5);
  });

  t.test("face swap: the envelope, then a SWAP_FACE task with the target's size", async (t) => {
    const r = await ib.post("/face-service/swap", { sourceBase64: await image(40, 40, "#eeccaa"), targetBase64: await image(50, 60, "#334455") });
    t.equal(r.status, 200);
    t.match(r.body, { code: 1, description: "Submit success", result: /^\d+$/ });
    const task = await ib.waitFor(r.body.result);
    t.match(task, { action: "SWAP_FACE", status: "SUCCESS", buttons: [] });
    const img = await download(task.imageUrl);
    t.same([img.width, img.height], [50, 60]);
    const centre = await sharp(img.bytes).removeAlpha().extract({ left: 25, top: 25, width: 1, height: 1 }).raw().toBuffer();
    const corner = await sharp(img.bytes).removeAlpha().extract({ left: 1, top: 1, width: 1, height: 1 }).raw().toBuffer();
    t.same([...centre], [0xee, 0xcc, 0xaa], "the face region comes from the source");
    t.same([...corner], [0x33, 0x44, 0x55], "the rest is the target");
  });

  t.test("upload-chat-images: URLs the gateway serves", async (t) => {
    const r = await ib.post("/submit/upload-chat-images", { base64Array: [red, blue] });
    t.equal(r.status, 200);
    t.equal(r.body.code, 1);
    t.equal(r.body.result.length, 2);
    const got = await download(r.body.result[1]);
    t.same([got.status, got.width, got.height], [200, 40, 30]);
    t.equal(got.bytes.toString("base64"), blue.split(",")[1], "the same bytes");
    const bad = await ib.post("/submit/upload-chat-images", { base64Array: [] });
    t.match(bad, { status: 400, body: { code: 21 } });
  });

  t.test("list-by-condition, task list and queue; other keys' tasks are invisible", async (t) => {
    const a = await ib.run("/submit/imagine", { prompt: "listed" });
    const adminTask = await client(s, ADMIN_KEY).run("/submit/imagine", { prompt: "admin's" });
    const r = await ib.post("/task/list-by-condition", { ids: [a.id, "999", adminTask.id] });
    t.equal(r.status, 200);
    t.same(
      r.body.map((x: { id: string }) => x.id),
      [a.id],
    );
    t.match(r.body[0], { status: "SUCCESS", progress: "100%" });
    const asAdmin = await client(s, ADMIN_KEY).post("/task/list-by-ids", { ids: [a.id, adminTask.id] });
    t.equal(asAdmin.body.length, 2, "admins see every task");
    const list = await ib.get("/task/list");
    t.ok(list.body.some((x: { id: string }) => x.id === a.id));
    t.notOk(list.body.some((x: { id: string }) => x.id === adminTask.id));
    const other = await client(s, USER_KEY).get(`/task/${adminTask.id}/fetch`);
    t.equal(other.status, 404, "another key's task does not exist for you");
    const queue = await ib.get("/task/queue");
    t.equal(queue.status, 200);
    t.ok(Array.isArray(queue.body));
    t.same((await ib.post("/task/list-by-condition", { ids: "x" })).body, { code: 21, description: "ids must be an array", properties: {}, result: null });
  });

  t.test("image-seed: a string; unknown task 404; unfinished task 400", async (t) => {
    const task = await ib.run("/submit/imagine", { prompt: "seeded" });
    const r = await ib.get(`/task/${task.id}/image-seed`);
    t.equal(r.status, 200);
    t.match(r.body, { code: 1, result: /^\d+$/ });
    t.equal((await ib.get(`/task/${task.id}/image-seed`)).body.result, r.body.result, "stable");
    const fixed = await ib.run("/submit/imagine", { prompt: "seeded --seed 12345" });
    t.equal((await ib.get(`/task/${fixed.id}/image-seed`)).body.result, "12345", "--seed in the prompt is the task's seed");
    const same = await ib.run("/submit/imagine", { prompt: "seeded --seed 12345" });
    t.same((await download(same.imageUrl)).raw, (await download(fixed.imageUrl)).raw, "the same seed and prompt give the same images");
    const missing = await ib.get("/task/1234/image-seed");
    t.equal(missing.status, 404);
    t.match(missing.body, { code: 21, description: "task 1234 does not exist", result: null });
    const running = await ib.post("/submit/imagine", { prompt: "not yet" });
    const early = await ib.get(`/task/${running.body.result}/image-seed`);
    t.equal(early.status, 400);
    t.match(early.body, { code: 21, description: /has no finished image/ });
  });

  t.test("fetch of an unknown task: 404 with the envelope", async (t) => {
    const r = await ib.get("/task/1700000000000999/fetch");
    t.equal(r.status, 404);
    t.same(r.body, { code: 21, description: "task 1700000000000999 does not exist", properties: {}, result: null });
  });

  t.test("bad inputs get code 21 naming the problem, never a 500", async (t) => {
    const big = `data:image/png;base64,${(
      await sharp({ create: { width: 1400, height: 1400, channels: 3, background: "#000" } })
        .png({ compressionLevel: 0 })
        .toBuffer()
    ).toString("base64")}`;
    const jpeg = await image(10, 10, "#fff", "jpeg");
    const rows: [string, unknown, string][] = [
      ["/submit/imagine", {}, "prompt is required"],
      ["/submit/imagine", { prompt: "" }, "prompt is required"],
      ["/submit/imagine", { prompt: 42 }, "prompt must be a string"],
      ["/submit/imagine", { prompt: "x", botType: "OTHER" }, "botType must be one of PRIMARY_BOT, ANIME_BOT, MID_JOURNEY, NIJI_JOURNEY"],
      ["/submit/imagine", { prompt: "x", base64Array: ["data:image/png;base64,!!!"] }, "base64Array[0] is not valid base64"],
      ["/submit/imagine", { prompt: "x", base64Array: ["iVBORw0KGgo="] }, "base64Array[0] must be a base64 image with its data-URL prefix, e.g. data:image/png;base64,..."],
      [
        "/submit/imagine",
        { prompt: "x", base64Array: [`data:image/png;base64,${Buffer.from("hello there, not an image").toString("base64")}`] },
        "base64Array[0]: the data is not a readable PNG image",
      ],
      ["/submit/imagine", { prompt: "x", base64Array: [`data:image/bmp;base64,Qk0=`] }, "base64Array[0]: image/bmp format is not accepted; use JPEG, PNG, GIF (static) or WEBP"],
      ["/submit/imagine", { prompt: "x", base64Array: [jpeg.replace("image/jpeg", "image/png")] }, "base64Array[0]: the prefix says image/png but the data is JPEG"],
      ["/submit/imagine", { prompt: "x", notifyHook: "ftp://example.com" }, "notifyHook must be an http or https URL"],
      ["/submit/describe", { base64: big }, `base64: the image is ${((big.length * 3) / 4 / 1048576).toFixed(1)} MB; at most 4 MB is accepted`],
      ["/submit/describe", {}, "base64 is required"],
      ["/face-service/swap", { sourceBase64: red }, "targetBase64 is required"],
      ["/submit/action", { taskId: "1" }, "customId is required"],
      ["/submit/modal", { prompt: "x" }, "taskId is required"],
    ];
    for (const [path, body, description] of rows) {
      const r = await ib.post(path, body);
      t.equal(r.status, 400, `${path} ${JSON.stringify(body).slice(0, 80)}`);
      t.match(r.body, { code: 21, result: null }, description);
      t.equal(r.body.description.replace(/ \d+\.\d MB/, " N MB"), description.replace(/ \d+\.\d MB/, " N MB"));
    }
    const notJson = await ib.post("/submit/imagine", "{not json", true);
    t.same(notJson, { status: 400, body: { code: 21, description: "the body is not valid JSON", properties: {}, result: null } });
    const task = await ib.run("/submit/imagine", { prompt: "for buttons" });
    const unknown = await ib.post("/submit/action", { taskId: task.id, customId: "MJ::JOB::upsample::1::not-this-task" });
    t.same(unknown, { status: 400, body: { code: 21, description: `customId MJ::JOB::upsample::1::not-this-task is not one of the buttons of task ${task.id}`, properties: {}, result: null } });
    const noTask = await ib.post("/submit/action", { taskId: "77", customId: task.buttons[0].customId });
    t.same(noTask, { status: 404, body: { code: 21, description: "task 77 does not exist", properties: {}, result: null } });
    const notModal = await ib.post("/submit/modal", { taskId: task.id, prompt: "x" });
    t.match(notModal, { status: 400, body: { code: 21, description: `task ${task.id} is not waiting for a modal submission (status SUCCESS)` } });
    const unknownPath = await ib.get("/nothing/here");
    t.match(unknownPath, { status: 404, body: { code: 21 } });
  });

  t.test("a banned word: code 21 with properties.bannedWord, and no task", async (t) => {
    const s2 = await startIb({ imageBot: { bannedWords: ["forbidden", "血腥"] } });
    t.teardown(() => s2.close());
    const c = client(s2);
    const r = await c.post("/submit/imagine", { prompt: "a Forbidden fruit" });
    t.equal(r.status, 400);
    t.same(r.body, { code: 21, description: "the prompt may contain a sensitive word: forbidden", properties: { bannedWord: "forbidden", promptEn: "a Forbidden fruit" }, result: null });
    const zh = await c.post("/submit/imagine", { prompt: "血腥的场景" });
    t.match(zh.body, { code: 21, properties: { bannedWord: "血腥" } });
    t.same((await c.get("/task/list")).body, [], "no task was created");
  });

  t.test("cancel: a queued and a running task; a finished one cannot be cancelled", async (t) => {
    const s3 = await startIb({ taskMs: 3000, imageBot: { accounts: [{ id: "one", concurrency: 1, queueSize: 5 }] } });
    t.teardown(() => s3.close());
    const c = client(s3);
    const running = await c.post("/submit/imagine", { prompt: "slow 1" });
    const queued = await c.post("/submit/imagine", { prompt: "slow 2" });
    t.equal(queued.body.code, 22);
    const q = await c.get("/task/queue");
    t.same(q.body.map((x: { id: string }) => x.id).sort(), [running.body.result, queued.body.result].sort(), "the queue lists both");
    const cq = await c.post(`/task/${queued.body.result}/cancel`, {});
    t.same(cq, { status: 200, body: { code: 1, description: "cancelled", properties: { status: "CANCEL" }, result: queued.body.result } });
    await c.waitFor(running.body.result, ["SUBMITTED", "IN_PROGRESS"]);
    await c.post(`/task/${running.body.result}/cancel`, {});
    const cancelled = await c.waitFor(running.body.result, ["CANCEL"]);
    t.match(cancelled, { status: "CANCEL", failReason: "cancelled by the client" });
    t.ok(cancelled.finishTime >= cancelled.submitTime);
    const again = await c.post(`/task/${running.body.result}/cancel`, {});
    t.match(again, { status: 400, body: { code: 21, description: /has already finished/ } });
    t.equal((await c.post("/task/55/cancel", {})).status, 404);
    t.same((await c.get("/task/queue")).body, [], "nothing left in the queue");
  });

  t.test("accounts: admin only; list, fetch, update; a disabled pool answers 24", async (t) => {
    const forbidden = await ib.get("/account/list");
    t.same(forbidden, { status: 403, body: { code: 21, description: "only admin keys may see or change accounts", properties: {}, result: null } });
    const admin = client(s, ADMIN_KEY);
    const list = await admin.get("/account/list");
    t.equal(list.status, 200);
    t.match(list.body, [
      { id: "local", channel: "local", enabled: true, concurrency: 3, queueSize: 10, modes: ["FAST"], botTypes: ["PRIMARY_BOT", "ANIME_BOT"], running: 0, queued: 0, lastError: "" },
    ]);
    t.match((await admin.get("/account/local/fetch")).body, { id: "local" });
    t.match(await admin.get("/account/nope/fetch"), { status: 404, body: { code: 21 } });
    const off = await admin.post("/account/local/update", { enable: false, remark: "maintenance" });
    t.match(off, { status: 200, body: { id: "local", enabled: false, remark: "maintenance" } });
    const refused = await ib.post("/submit/imagine", { prompt: "no account" });
    t.same(refused, { status: 200, body: { code: 24, description: "account unavailable: no enabled account matches the request", properties: {}, result: null } });
    t.match(await admin.post("/account/local/update", { concurrency: 0 }), { status: 400, body: { code: 21, description: "concurrency must be between 1 and 100" } });
    t.match(await admin.post("/account/local/update", { enabled: true }), { status: 200, body: { enabled: true } });
    t.match(await ib.post("/account/local/update", { enabled: false }), { status: 403 });
  });

  t.test("code 25: a key whose budget is used up", async (t) => {
    await addKey(s, "key_broke", "sk-test-broke-0123456789", { budget: 5, spent: 5 });
    const r = await client(s, "sk-test-broke-0123456789").post("/submit/imagine", { prompt: "cat" });
    t.same(r, { status: 403, body: { code: 25, description: "insufficient balance: the API key's credit budget is used up", properties: {}, result: null } });
  });

  t.test("rate limited: 429 with code 23 and retry-after", async (t) => {
    await addKey(s, "key_slow", "sk-test-slow-0123456789", { requestsPerMinute: 1 });
    const c = client(s, "sk-test-slow-0123456789");
    t.equal((await c.post("/submit/imagine", { prompt: "one" })).body.code, 1);
    const res = await fetch(`${s.baseUrl}/ib/submit/imagine`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test-slow-0123456789", "content-type": "application/json" },
      body: JSON.stringify({ prompt: "two" }),
    });
    t.equal(res.status, 429);
    t.match(await res.json(), { code: 23, description: /rate limit/, result: null });
    t.match(res.headers.get("retry-after"), /^\d+$/);
  });

  t.test("the /mj alias and mj-api-secret work like /ib and Bearer", async (t) => {
    const res = await fetch(`${s.baseUrl}/mj/submit/imagine`, {
      method: "POST",
      headers: { "mj-api-secret": USER_KEY, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "alias" }),
    });
    const body = (await res.json()) as { code: number; result: string };
    t.match(body, { code: 1 });
    t.equal((await client(s, USER_KEY, "/mj").waitFor(body.result)).status, "SUCCESS");
  });
});
