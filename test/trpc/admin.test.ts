// The admin procedures through @trpc/client: keys (the secret shown once,
// revoke), usage, channels, image-bot accounts, tasks and videos; any other
// key gets FORBIDDEN.
import t from "tap";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../src/trpc/router.js";
import { ADMIN_KEY, startServer } from "../helpers/app.js";

const server = await startServer({
  config: {
    local: { blocklist: ["forbidden-topic"], chunkDelayMs: 0, signingSecret: "", faultInjection: true, taskMs: 50 },
    imageBot: { tileSize: 32, pollIntervalMs: 50, accounts: [], bannedWords: [], translateModel: "" },
    channels: [{ name: "mj", provider: "midjourney", baseUrl: "http://user:pw@127.0.0.1:9/mj?token=x", apiKey: "mj-secret" }],
  } as never,
});
t.teardown(() => server.close());

const client = (key = ADMIN_KEY) => createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${server.baseUrl}/trpc`, headers: { authorization: `Bearer ${key}` } })] });
const admin = client();
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: unknown) => (e instanceof TRPCClientError ? (e as TRPCClientError<AppRouter>).data?.code : String(e)),
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const user = await admin.admin.keys.create.mutate({ name: "user", formats: ["trpc", "image-bot", "video"] });
const userKey = user.secret;

async function post(path: string, body: unknown) {
  const res = await fetch(server.baseUrl + path, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${userKey}` }, body: JSON.stringify(body) });
  return (await res.json()) as any;
}

t.test("keys: the secret is shown once; list, update, revoke", async (t) => {
  const made = await admin.admin.keys.create.mutate({
    name: "team-a",
    formats: ["messages"],
    models: ["claude-*"],
    budget: 5,
    limits: { requestsPerMinute: 10, tokensPerMinute: 0, concurrentRequests: 2 },
  });
  t.match(made.secret, /^sk-og-/);
  t.match(made.key, { name: "team-a", admin: false, formats: ["messages"], models: ["claude-*"], budget: 5, spent: 0, limits: { requestsPerMinute: 10, concurrentRequests: 2 }, revokeTime: null });
  t.equal(made.key.prefix, made.secret.slice(0, 10));
  const listed = await admin.admin.keys.list.query();
  const found = listed.find((k) => k.id === made.key.id);
  t.match(found, { name: "team-a", prefix: made.key.prefix });
  t.notOk(JSON.stringify(listed).includes(made.secret), "never listed again");
  t.notOk("secret" in found!);
  const updated = await admin.admin.keys.update.mutate({ id: made.key.id, budget: 9 });
  t.match(updated, { budget: 9, formats: ["messages"], models: ["claude-*"], limits: { requestsPerMinute: 10 } }, "fields not named are kept");
  const revoked = await admin.admin.keys.revoke.mutate({ id: made.key.id });
  t.ok(typeof revoked.revokeTime === "number" && revoked.revokeTime > 0);
  t.notOk(
    (await admin.admin.keys.list.query()).some((k) => k.id === made.key.id),
    "revoked keys are hidden by default",
  );
  t.ok((await admin.admin.keys.list.query({ includeRevoked: true })).some((k) => k.id === made.key.id));
  t.equal(await codeOf(client(made.secret).models.list.query()), "UNAUTHORIZED", "a revoked key stops working");
});

t.test("usage: the records and totals of a key", async (t) => {
  const res = await client(userKey).chat.generate.mutate({ model: "local-chat", messages: [{ role: "user", content: "count my tokens" }], maxTokens: 32 });
  let usage = await admin.admin.usage.query({ keyId: user.key.id });
  for (let i = 0; i < 200 && usage.records.length < 1; i++) {
    await sleep(25);
    usage = await admin.admin.usage.query({ keyId: user.key.id });
  }
  t.equal(usage.records.length, 1);
  t.match(usage.records[0], {
    keyId: user.key.id,
    format: "trpc",
    model: "local-chat",
    channel: "local",
    inputTokens: res.usage.inputTokens,
    outputTokens: res.usage.outputTokens,
    status: "ok",
    requestId: String,
  });
  t.match(usage.totals, { requests: 1, inputTokens: res.usage.inputTokens, outputTokens: res.usage.outputTokens });
  t.equal((await admin.admin.usage.query({ keyId: user.key.id, format: "messages" })).totals.requests, 0, "filters apply");
});

t.test("channels: list without credentials, disable and enable", async (t) => {
  const list = await admin.admin.channels.list.query();
  t.same(list, [
    { name: "mj", provider: "midjourney", baseUrl: "http://127.0.0.1:9/mj", models: [], modelMap: {}, priority: 0, weight: 1, enabled: true, coolingDown: false, lastError: "", lastErrorTime: null },
  ]);
  t.match(await admin.admin.channels.setEnabled.mutate({ name: "mj", enabled: false }), { name: "mj", enabled: false });
  t.equal((await admin.admin.channels.list.query())[0]!.enabled, false);
  t.match(await admin.admin.channels.setEnabled.mutate({ name: "mj", enabled: true }), { enabled: true });
  t.equal(await codeOf(admin.admin.channels.setEnabled.mutate({ name: "nope", enabled: true })), "NOT_FOUND");
});

t.test("accounts: list and update", async (t) => {
  const list = await admin.admin.accounts.list.query();
  t.same(
    list.map((a) => [a.id, a.channel]),
    [
      ["local", "local"],
      ["mj", "mj"],
    ],
  );
  t.match(list[0], { enabled: true, concurrency: 3, queueSize: 10, modes: ["FAST"], botTypes: ["PRIMARY_BOT", "ANIME_BOT"], running: 0, queued: 0, lastError: "", lastErrorTime: null });
  const upd = await admin.admin.accounts.update.mutate({ id: "mj", enabled: false, remark: "maintenance", modes: ["RELAX", "TURBO"], queueSize: 4 });
  t.match(upd, { id: "mj", enabled: false, remark: "maintenance", modes: ["RELAX", "TURBO"], queueSize: 4, concurrency: 10 });
  t.match((await admin.admin.accounts.list.query())[1], { enabled: false, remark: "maintenance" }, "kept");
  t.equal(await codeOf(admin.admin.accounts.update.mutate({ id: "mj", concurrency: 0 })), "BAD_REQUEST");
  t.equal(await codeOf(admin.admin.accounts.update.mutate({ id: "nope", enabled: true })), "NOT_FOUND");
});

t.test("tasks: every key's image-bot tasks, by status, a page at a time", async (t) => {
  const ids: string[] = [];
  for (const prompt of ["a red fox", "a blue whale"]) {
    const r = await post("/ib/submit/imagine", { prompt });
    t.equal(r.code, 1);
    ids.push(r.result);
  }
  let done = await admin.admin.tasks.list.query({ statuses: ["SUCCESS"] });
  for (let i = 0; i < 400 && !ids.every((id) => done.tasks.some((x) => x.id === id)); i++) {
    await sleep(25);
    done = await admin.admin.tasks.list.query({ statuses: ["SUCCESS"] });
  }
  const fox = done.tasks.find((x) => x.id === ids[0]);
  t.match(fox, { action: "IMAGINE", status: "SUCCESS", prompt: "a red fox", progress: 100, accountId: "local", botType: "PRIMARY_BOT", imageUrl: /\/files\// });
  t.ok(fox!.submitTime! <= fox!.finishTime!);
  t.same((await admin.admin.tasks.list.query({ statuses: ["FAILURE"] })).tasks, [], "the status filter applies");
  const first = await admin.admin.tasks.list.query({ pageSize: 1 });
  t.equal(first.tasks.length, 1);
  t.not(first.nextPageToken, "");
  const second = await admin.admin.tasks.list.query({ pageSize: 1, pageToken: first.nextPageToken });
  t.equal(second.tasks.length, 1);
  t.not(second.tasks[0]!.id, first.tasks[0]!.id);
});

t.test("videos: every key's videos", async (t) => {
  const sub = await post("/v1/video/generations", { model: "kling-v1", prompt: "a calico cat", duration: 1, size: "160x90", fps: 4 });
  t.equal(sub.status, "processing");
  const res = await admin.admin.videos.list.query({ limit: 10 });
  t.match(
    res.videos.find((v) => v.id === sub.task_id),
    { model: "kling-v1", prompt: "a calico cat", seconds: 1, width: 160, height: 90, channel: "local", status: /QUEUED|IN_PROGRESS|COMPLETED/, error: null },
  );
  t.equal(res.hasMore, false);
});

t.test("any other key gets FORBIDDEN", async (t) => {
  const u = client(userKey);
  const calls: [string, () => Promise<unknown>][] = [
    ["keys.list", () => u.admin.keys.list.query()],
    ["keys.create", () => u.admin.keys.create.mutate({ name: "x" })],
    ["usage", () => u.admin.usage.query()],
    ["channels.list", () => u.admin.channels.list.query()],
    ["channels.setEnabled", () => u.admin.channels.setEnabled.mutate({ name: "mj", enabled: false })],
    ["accounts.list", () => u.admin.accounts.list.query()],
    ["accounts.update", () => u.admin.accounts.update.mutate({ id: "local", enabled: false })],
    ["tasks.list", () => u.admin.tasks.list.query()],
    ["videos.list", () => u.admin.videos.list.query()],
  ];
  for (const [name, call] of calls) t.equal(await codeOf(call()), "FORBIDDEN", name);
  const batched = await Promise.all(calls.map(([, call]) => codeOf(call())));
  t.same(
    batched,
    calls.map(() => "FORBIDDEN"),
    "also when the client batches them into one request",
  );
  t.equal((await admin.admin.channels.list.query())[0]!.enabled, true, "nothing changed");
  t.equal((await admin.admin.accounts.list.query())[0]!.enabled, true);
});
