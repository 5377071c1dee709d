// The ChatService cached-content RPCs and the use of a cache as context, over
// the core's in-process transport (the same interceptors a remote caller meets).
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { CachedContentSchema, ChatInputSchema, ChatService, Role, type ChatInput, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { configSchema } from "../../../src/config.js";
import { ensureKeys } from "../../../src/core/auth/bootstrap.js";
import { hashSecret } from "../../../src/core/auth/secrets.js";
import { createDeps, type AppDeps } from "../../../src/server/deps.js";
import { errorDetail } from "../../../src/core/errors.js";
import { ADMIN_KEY, tempDir } from "../../helpers/app.js";
import type { CoreClient } from "../../../src/core/call/service.js";
import { callInit } from "../call/harness.js";

const OTHER_KEY = "sk-test-other-0123456789";
let clock = Date.UTC(2026, 0, 1);
let deps: AppDeps;
let chat: CoreClient<typeof ChatService>;
const as = (key: string) => callInit({ apiKey: key });

t.before(async () => {
  const config = configSchema.parse({ dataDir: tempDir(), logLevel: "silent", bootstrapKey: ADMIN_KEY });
  deps = await createDeps(config, { now: () => clock });
  await ensureKeys(deps.storage.keys, { bootstrapKey: ADMIN_KEY, now: clock });
  await deps.storage.keys.insert({
    id: "key_other",
    name: "other",
    hash: hashSecret(OTHER_KEY),
    prefix: "sk-test",
    admin: false,
    formats: [],
    models: [],
    budget: 0,
    spent: 0,
    limits: { requestsPerMinute: 0, tokensPerMinute: 0, concurrentRequests: 0 },
    createTime: clock,
  });
  chat = deps.core.clients.chat;
});
t.teardown(() => deps.storage.close());

const text = (role: Role, s: string) => ({ role, parts: [{ kind: { case: "text" as const, value: { text: s } } }] });
const cacheBody = (model = "gemini-2.5-flash") =>
  create(CachedContentSchema, {
    model,
    displayName: "handbook",
    system: [{ kind: { case: "text", value: { text: "You are the company handbook." } } }],
    turns: [text(Role.USER, "The handbook says that every Friday is pizza day, and Mondays start at ten."), text(Role.ASSISTANT, "Noted.")],
  });

async function codeOf(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error("expected the call to fail");
}

t.test("create, get, list, update and delete", async (t) => {
  const made = (await chat.createCachedContent({ cachedContent: cacheBody(), ttlSeconds: 600n }, as(ADMIN_KEY))).cachedContent!;
  t.match(made.name, /^cachedContents\/[a-z0-9]+$/);
  t.equal(made.model, "gemini-2.5-flash");
  t.equal(made.displayName, "handbook");
  t.equal(made.turns.length, 2);
  t.equal(timestampMs(made.createTime!), clock);
  t.equal(timestampMs(made.expireTime!), clock + 600_000);
  const counted = await chat.countTokens({ input: create(ChatInputSchema, { model: "gemini-2.5-flash", system: made.system, turns: made.turns }) }, as(ADMIN_KEY));
  t.equal(made.totalTokens, counted.inputTokens, "total_tokens is what count_tokens says for the cached context");

  const got = (await chat.getCachedContent({ name: made.name }, as(ADMIN_KEY))).cachedContent!;
  t.equal(got.name, made.name);
  t.equal(got.system[0]!.kind.value && (got.system[0]!.kind as { value: { text: string } }).value.text, "You are the company handbook.");

  const second = (await chat.createCachedContent({ cachedContent: cacheBody() }, as(ADMIN_KEY))).cachedContent!;
  t.equal(timestampMs(second.expireTime!), clock + 3_600_000, "default TTL is one hour");
  const page1 = await chat.listCachedContents({ pageSize: 1 }, as(ADMIN_KEY));
  t.equal(page1.cachedContents.length, 1);
  t.not(page1.nextPageToken, "");
  const page2 = await chat.listCachedContents({ pageSize: 1, pageToken: page1.nextPageToken }, as(ADMIN_KEY));
  t.equal(page2.cachedContents.length, 1);
  t.not(page2.cachedContents[0]!.name, page1.cachedContents[0]!.name);
  t.same(new Set([page1.cachedContents[0]!.name, page2.cachedContents[0]!.name]), new Set([made.name, second.name]));

  clock += 1000;
  const updated = (await chat.updateCachedContent({ name: made.name, ttlSeconds: 7200n }, as(ADMIN_KEY))).cachedContent!;
  t.equal(timestampMs(updated.expireTime!), clock + 7_200_000);
  t.equal(timestampMs(updated.updateTime!), clock);
  const absolute = (await chat.updateCachedContent({ name: made.name, expireTime: timestampFromMs(clock + 5000) }, as(ADMIN_KEY))).cachedContent!;
  t.equal(timestampMs(absolute.expireTime!), clock + 5000);

  await chat.deleteCachedContent({ name: second.name }, as(ADMIN_KEY));
  t.equal((await codeOf(chat.getCachedContent({ name: second.name }, as(ADMIN_KEY)))).code, Code.NotFound);
  t.equal((await codeOf(chat.deleteCachedContent({ name: second.name }, as(ADMIN_KEY)))).code, Code.NotFound);
  await chat.deleteCachedContent({ name: made.name }, as(ADMIN_KEY));
});

t.test("entries belong to the key that made them", async (t) => {
  const made = (await chat.createCachedContent({ cachedContent: cacheBody() }, as(ADMIN_KEY))).cachedContent!;
  const err = await codeOf(chat.getCachedContent({ name: made.name }, as(OTHER_KEY)));
  t.equal(err.code, Code.NotFound);
  t.equal((await chat.listCachedContents({}, as(OTHER_KEY))).cachedContents.length, 0);
  const gen = await codeOf(chat.generate({ input: { model: "gemini-2.5-flash", cachedContent: made.name, turns: [text(Role.USER, "hi")] } }, as(OTHER_KEY)));
  t.equal(gen.code, Code.NotFound);
  t.equal(errorDetail(gen)?.field, "cached_content");
  await chat.deleteCachedContent({ name: made.name }, as(ADMIN_KEY));
});

t.test("expired entries are NotFound", async (t) => {
  const made = (await chat.createCachedContent({ cachedContent: cacheBody(), ttlSeconds: 10n }, as(ADMIN_KEY))).cachedContent!;
  clock += 9_000;
  t.ok((await chat.getCachedContent({ name: made.name }, as(ADMIN_KEY))).cachedContent);
  clock += 1_000;
  t.equal((await codeOf(chat.getCachedContent({ name: made.name }, as(ADMIN_KEY)))).code, Code.NotFound);
  t.notOk((await chat.listCachedContents({}, as(ADMIN_KEY))).cachedContents.some((c) => c.name === made.name));
  const gen = await codeOf(chat.generate({ input: { model: "gemini-2.5-flash", cachedContent: made.name, turns: [text(Role.USER, "hi")] } }, as(ADMIN_KEY)));
  t.equal(gen.code, Code.NotFound);
});

t.test("bad requests", async (t) => {
  const cases: [string, Promise<unknown>, Code, string][] = [
    ["no model", chat.createCachedContent({ cachedContent: create(CachedContentSchema, { turns: cacheBody().turns }) }, as(ADMIN_KEY)), Code.InvalidArgument, "cached_content.model"],
    ["empty", chat.createCachedContent({ cachedContent: create(CachedContentSchema, { model: "gemini-2.5-flash" }) }, as(ADMIN_KEY)), Code.InvalidArgument, "cached_content.turns"],
    ["past expiry", chat.createCachedContent({ cachedContent: { ...cacheBody(), expireTime: timestampFromMs(clock - 1) } }, as(ADMIN_KEY)), Code.InvalidArgument, "cached_content.expire_time"],
    ["negative ttl", chat.createCachedContent({ cachedContent: cacheBody(), ttlSeconds: -5n }, as(ADMIN_KEY)), Code.InvalidArgument, "cached_content.ttl_seconds"],
    ["bad name", chat.getCachedContent({ name: "caches/x" }, as(ADMIN_KEY)), Code.InvalidArgument, "name"],
    ["bad token", chat.listCachedContents({ pageToken: "!!" }, as(ADMIN_KEY)), Code.InvalidArgument, "page_token"],
    ["no key", chat.getCachedContent({ name: "cachedContents/abc" }, callInit({ apiKey: undefined })), Code.Unauthenticated, ""],
  ];
  for (const [name, p, code, field] of cases) {
    const err = await codeOf(p);
    t.equal(err.code, code, name);
    if (field) t.equal(errorDetail(err)?.field, field, `${name}: field`);
  }
  const made = (await chat.createCachedContent({ cachedContent: cacheBody() }, as(ADMIN_KEY))).cachedContent!;
  const noExpiry = await codeOf(chat.updateCachedContent({ name: made.name }, as(ADMIN_KEY)));
  t.equal(noExpiry.code, Code.InvalidArgument);
  const mismatch = await codeOf(chat.generate({ input: { model: "gemini-2.5-pro", cachedContent: made.name, turns: [text(Role.USER, "hi")] } }, as(ADMIN_KEY)));
  t.equal(mismatch.code, Code.InvalidArgument);
  t.equal(errorDetail(mismatch)?.reason, "cached_content_model_mismatch");
});

t.test("a cache is context, counted as cache-read tokens", async (t) => {
  const made = (await chat.createCachedContent({ cachedContent: cacheBody() }, as(ADMIN_KEY))).cachedContent!;
  const rest = [text(Role.USER, "When is pizza day?")];
  const input: ChatInput = create(ChatInputSchema, { model: "gemini-2.5-flash", cachedContent: made.name, turns: rest });
  const restOnly = await chat.countTokens({ input: { model: "gemini-2.5-flash", turns: rest } }, as(ADMIN_KEY));

  const resp = await chat.generate({ input }, as(ADMIN_KEY));
  t.equal(resp.usage!.cacheReadTokens, made.totalTokens, "cache_read_tokens = the cache's total");
  t.equal(resp.usage!.inputTokens, restOnly.inputTokens, "input_tokens counts only the rest");
  t.match((resp.candidates[0]!.parts.at(-1)!.kind as { value: { text: string } }).value.text, /When is pizza day\?/);

  const counted = await chat.countTokens({ input }, as(ADMIN_KEY));
  t.equal(counted.cachedTokens, made.totalTokens);
  t.equal(counted.inputTokens, restOnly.inputTokens);

  const events: StreamGenerateResponse[] = [];
  for await (const e of chat.streamGenerate({ input }, as(ADMIN_KEY))) events.push(e);
  const final = events.filter((e) => e.event.case === "usage").at(-1)!.event.value as { cacheReadTokens: bigint; inputTokens: bigint };
  t.equal(final.cacheReadTokens, made.totalTokens);
  t.equal(final.inputTokens, restOnly.inputTokens);
  const start = events[0]!.event;
  t.equal(start.case, "start");
  t.equal((start.value as { usage?: { cacheReadTokens: bigint } }).usage?.cacheReadTokens, made.totalTokens);

  const generatedOnly = await chat.generate({ input: { model: "gemini-2.5-flash", turns: rest } }, as(ADMIN_KEY));
  t.equal(generatedOnly.usage!.cacheReadTokens, 0n, "no cache, no cache-read tokens");
});
