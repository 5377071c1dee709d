// Keys with scopes, budgets and rate limits, through the core as a Connect client sees it.
import t from "tap";
import { randomBytes } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Redis } from "ioredis";
import { AdminService } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import { ChatService, Role } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { ModelService } from "../../../gen/omnigate/model/v1/model_pb.js";
import { ErrorDetailSchema } from "../../../gen/omnigate/common/v1/common_pb.js";
import { retryAfterSeconds } from "../../../src/core/errors.js";
import { ADMIN_KEY, startServer, tempDir, type TestServer } from "../../helpers/app.js";

const bearer = (k: string) => ({ headers: { authorization: `Bearer ${k}` } });
const input = (text: string, model = "local-chat") => ({ model, turns: [{ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text } } }] }] });
const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return "ok";
  } catch (e) {
    return ConnectError.from(e);
  }
};

function clients(server: TestServer) {
  const transport = createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" });
  return { admin: createClient(AdminService, transport), chat: createClient(ChatService, transport), models: createClient(ModelService, transport) };
}

async function newKey(server: TestServer, key: Record<string, unknown>) {
  const res = await clients(server).admin.createKey({ key: { name: "test", ...key } }, bearer(ADMIN_KEY));
  return { id: res.key!.id, secret: res.secret };
}

t.test("admin API: keys are created with a one-time secret, listed, updated and revoked", async (t) => {
  const server = await startServer();
  t.teardown(() => server.close());
  const { admin, models } = clients(server);
  const created = await admin.createKey({ key: { name: "alice", formats: ["messages"], models: ["claude-*"], budget: 5, limits: { requestsPerMinute: 10 } } }, bearer(ADMIN_KEY));
  t.match(created.secret, /^sk-og-/);
  t.equal(created.key?.prefix, created.secret.slice(0, 10));
  const list = await admin.listKeys({}, bearer(ADMIN_KEY));
  t.ok(list.keys.some((k) => k.id === created.key!.id && k.name === "alice"));
  t.notOk(JSON.stringify(list.keys, (_k, v) => (typeof v === "bigint" ? String(v) : v)).includes(created.secret), "the secret is never listed");
  const updated = await admin.updateKey({ key: { id: created.key!.id, name: "alice2", budget: 7 }, updateMask: ["name", "budget"] }, bearer(ADMIN_KEY));
  t.equal(updated.key?.name, "alice2");
  t.equal(updated.key?.budget, 7);
  t.same(updated.key?.formats, ["messages"], "fields outside the mask are kept");
  const bad = await codeOf(admin.updateKey({ key: { id: created.key!.id }, updateMask: ["spent"] }, bearer(ADMIN_KEY)));
  t.equal((bad as ConnectError).code, Code.InvalidArgument);
  const unknownFormat = await codeOf(admin.createKey({ key: { name: "x", formats: ["smtp"] } }, bearer(ADMIN_KEY)));
  t.equal((unknownFormat as ConnectError).code, Code.InvalidArgument);

  const plain = await newKey(server, {});
  const denied = await codeOf(admin.listKeys({}, bearer(plain.secret)));
  t.equal((denied as ConnectError).code, Code.PermissionDenied, "non-admin keys cannot administer");
  t.equal(await codeOf(models.listModels({}, bearer(plain.secret))), "ok");
  await admin.revokeKey({ id: plain.id }, bearer(ADMIN_KEY));
  const revoked = await codeOf(models.listModels({}, bearer(plain.secret)));
  t.equal((revoked as ConnectError).code, Code.Unauthenticated, "a revoked key stops working at once");
  const missing = await codeOf(admin.getKey({ id: "key_nope" }, bearer(ADMIN_KEY)));
  t.equal((missing as ConnectError).code, Code.NotFound);
});

t.test("scopes: format and model", async (t) => {
  const server = await startServer();
  t.teardown(() => server.close());
  const { chat, models } = clients(server);
  const msgOnly = await newKey(server, { formats: ["messages"] });
  const e1 = (await codeOf(models.listModels({}, bearer(msgOnly.secret)))) as ConnectError;
  t.equal(e1.code, Code.PermissionDenied, "a messages-only key cannot call the core directly");
  t.equal(e1.findDetails(ErrorDetailSchema)[0]?.reason, "format_not_allowed");
  const claudeOnly = await newKey(server, { formats: ["core"], models: ["claude-*"] });
  t.equal(await codeOf(chat.generate({ input: input("hi", "claude-sonnet-4-6") }, bearer(claudeOnly.secret))), "ok");
  const e2 = (await codeOf(chat.generate({ input: input("hi", "gemini-2.5-flash") }, bearer(claudeOnly.secret)))) as ConnectError;
  t.equal(e2.code, Code.PermissionDenied);
  t.equal(e2.findDetails(ErrorDetailSchema)[0]?.reason, "model_not_allowed");
});

t.test("budgets hold under concurrency: 200 requests, a budget for 10", async (t) => {
  const server = await startServer({ config: { prices: { chat: [{ model: "*", input: 0, output: 0, request: 1 }], images: [], imageBot: {}, video: [] } } });
  t.teardown(() => server.close());
  const { chat, admin } = clients(server);
  const k = await newKey(server, { budget: 10 });
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => codeOf(chat.generate({ input: input(`request ${i}`) }, bearer(k.secret)))));
  const ok = results.filter((r) => r === "ok").length;
  const exhausted = results.filter((r) => r instanceof ConnectError && r.code === Code.PermissionDenied && r.findDetails(ErrorDetailSchema)[0]?.reason === "budget_exhausted").length;
  t.equal(ok, 10, "exactly the budget's worth succeeded");
  t.equal(exhausted, 190, "every other request was refused as over budget");
  const after = await admin.getKey({ id: k.id }, bearer(ADMIN_KEY));
  t.equal(after.key?.spent, 10, "spent equals the budget, never more");
});

t.test("budgets: a failed call is refunded, a call is settled at its real cost", async (t) => {
  const server = await startServer({ config: { prices: { chat: [{ model: "*", input: 1_000_000, output: 1_000_000, request: 0 }], images: [], imageBot: {}, video: [] } } });
  t.teardown(() => server.close());
  const { chat, admin } = clients(server);
  const k = await newKey(server, { budget: 100_000 });
  const failed = await codeOf(chat.generate({ input: input("please #fault:internal") }, bearer(k.secret)));
  t.type(failed, ConnectError);
  t.equal((await admin.getKey({ id: k.id }, bearer(ADMIN_KEY))).key?.spent, 0, "refunded");
  const res = await chat.generate({ input: { ...input("count me"), config: { maxOutputTokens: 1000 } } }, bearer(k.secret));
  const real = Number(res.usage!.inputTokens + res.usage!.outputTokens);
  t.equal((await admin.getKey({ id: k.id }, bearer(ADMIN_KEY))).key?.spent, real, "settled at input + output tokens, not the 1000-token reservation");
  const usage = await admin.queryUsage({ keyId: k.id }, bearer(ADMIN_KEY));
  t.equal(usage.totals?.credits, real, "usage records carry the same credits");
});

t.test("rate limits: requests per minute and concurrency", async (t) => {
  const server = await startServer({ config: { local: { chatModels: ["*"], blocklist: [], chunkDelayMs: 20, signingSecret: "s", faultInjection: true } } });
  t.teardown(() => server.close());
  const { chat, models } = clients(server);
  const rpm = await newKey(server, { limits: { requestsPerMinute: 3 } });
  for (let i = 0; i < 3; i++) t.equal(await codeOf(models.listModels({}, bearer(rpm.secret))), "ok");
  const limited = (await codeOf(models.listModels({}, bearer(rpm.secret)))) as ConnectError;
  t.equal(limited.code, Code.ResourceExhausted);
  t.ok((retryAfterSeconds(limited) ?? 0) >= 1, "says when to retry");

  const conc = await newKey(server, { limits: { concurrentRequests: 1 } });
  const slow = (async () => {
    let n = 0;
    for await (const _ of chat.streamGenerate({ input: input("a b c d e f g h i j k l m n o p q r s t") }, bearer(conc.secret))) n++;
    return n;
  })();
  await new Promise((r) => setTimeout(r, 60));
  const second = (await codeOf(chat.generate({ input: input("x") }, bearer(conc.secret)))) as ConnectError;
  t.equal(second.code, Code.ResourceExhausted, "a second concurrent call is refused");
  t.ok((await slow) > 5, "the first stream completes");
  t.equal(await codeOf(chat.generate({ input: input("x") }, bearer(conc.secret))), "ok", "the slot is free again after the stream");
});

t.test("usage totals agree with the usage in the responses", async (t) => {
  const server = await startServer();
  t.teardown(() => server.close());
  const { chat, admin } = clients(server);
  const k = await newKey(server, {});
  let inTok = 0;
  let outTok = 0;
  for (const text of ["one", "two words", "three little words"]) {
    const r = await chat.generate({ input: input(text) }, bearer(k.secret));
    inTok += Number(r.usage!.inputTokens);
    outTok += Number(r.usage!.outputTokens);
  }
  const u = await admin.queryUsage({ keyId: k.id }, bearer(ADMIN_KEY));
  t.equal(Number(u.totals!.requests), 3);
  t.equal(Number(u.totals!.inputTokens), inTok);
  t.equal(Number(u.totals!.outputTokens), outTok);
  t.equal(u.records.length, 3);
  t.equal(u.records[0]?.format, "core");
});

t.test("a Redis-backed limit is shared by two instances", async (t) => {
  const prefix = `omnigate-test-${randomBytes(4).toString("hex")}:`;
  const redisUrl = "redis://127.0.0.1:6379";
  const dataDir = tempDir();
  const a = await startServer({ dataDir, config: { redisUrl, redisPrefix: prefix } });
  const b = await startServer({ dataDir, config: { redisUrl, redisPrefix: prefix } });
  const redis = new Redis(redisUrl);
  t.teardown(async () => {
    await a.close();
    await b.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });
  const k = await newKey(a, { limits: { requestsPerMinute: 4 } });
  const calls = [a, b, a, b, a, b, a, b].map((s) => codeOf(clients(s).models.listModels({}, bearer(k.secret))));
  const results = await Promise.all(calls);
  t.equal(results.filter((r) => r === "ok").length, 4, "4 requests per minute in total across both instances");
  t.ok(results.filter((r) => r !== "ok").every((r) => (r as ConnectError).code === Code.ResourceExhausted));
  t.ok((await redis.keys(`${prefix}*`)).length > 0, "state lives under the configured prefix");
});

t.test("streamed chat is budgeted too, and refusals at the gate leave a usage record", async (t) => {
  const server = await startServer({ config: { prices: { chat: [{ model: "*", input: 0, output: 0, request: 1 }], images: [], imageBot: {}, video: [] } } });
  t.teardown(() => server.close());
  const { chat, admin } = clients(server);
  const k = await newKey(server, { budget: 1.5 });
  const drain = async () => {
    try {
      for await (const _ of chat.streamGenerate({ input: input("stream me") }, bearer(k.secret)));
      return "ok";
    } catch (e) {
      return ConnectError.from(e);
    }
  };
  t.equal(await drain(), "ok", "the first stream fits the budget");
  const second = (await drain()) as ConnectError;
  t.equal(second.code, Code.PermissionDenied, "the second does not");
  t.equal(second.findDetails(ErrorDetailSchema)[0]?.reason, "budget_exhausted");
  t.equal((await admin.getKey({ id: k.id }, bearer(ADMIN_KEY))).key?.spent, 1, "exactly one stream was charged");
  const usage = await admin.queryUsage({ keyId: k.id }, bearer(ADMIN_KEY));
  t.ok(
    usage.records.some((r) => r.status === "rejected:budget_exhausted"),
    "the refusal is recorded",
  );
  t.equal(usage.totals?.credits, 1);
});
