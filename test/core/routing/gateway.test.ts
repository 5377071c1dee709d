// Retry, fallback, cooldown, timeouts, abort-on-disconnect and upstream errors
// as clients see them: a real gateway in front of fake upstreams, driven by the
// official SDKs.
import t from "tap";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI, ApiError } from "@google/genai";
import type { ChannelConfig } from "../../../src/config.js";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";
import { fixture, sseChunks, startFakeUpstream, type Reply } from "../../fixtures/fake-upstream.js";
import { anthropicScript, GREETING, openaiScript } from "../../fixtures/scripted.js";

const upstreamCfg = {
  connectTimeoutMs: 1000,
  firstByteTimeoutMs: 5000,
  chunkTimeoutMs: 5000,
  retries: 1,
  maxAttempts: 4,
  backoffMs: 1,
  maxBackoffMs: 10,
  cooldownMs: 60_000,
  cooldownAfterFailures: 2,
  connections: 8,
};
const chan = (name: string, provider: ChannelConfig["provider"], baseUrl: string, extra: Partial<ChannelConfig> = {}): ChannelConfig => ({
  name,
  provider,
  baseUrl,
  apiKey: `key-${name}`,
  models: ["gateway-chat", "gemini-2.5-flash"],
  modelMap: {},
  priority: 0,
  weight: 1,
  enabled: true,
  ...extra,
});
const ask = (c: Anthropic, content = "Hi!") => c.messages.create({ model: "gateway-chat", max_tokens: 100, messages: [{ role: "user", content }] });
const textOf = (m: Anthropic.Message) => m.content.map((b) => (b.type === "text" ? b.text : "")).join("");

t.test("retry, then fall over to the next channel, then cool the failing one down", async (t) => {
  let primaryReply: Reply = { status: 503, json: fixture("anthropic/error-overloaded.json") };
  const primary = await startFakeUpstream(() => primaryReply);
  const backup = await startFakeUpstream(openaiScript);
  const server = await startServer({
    config: { upstream: upstreamCfg, channels: [chan("primary", "anthropic", primary.url, { priority: 1 }), chan("backup", "openai", `${backup.url}/v1`)] },
  });
  t.teardown(async () => {
    await server.close();
    await primary.close();
    await backup.close();
  });
  const c = new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });
  const m = await ask(c);
  t.equal(textOf(m), GREETING);
  t.equal(primary.requests.length, 2, "one retry on the primary");
  t.equal(backup.requests.length, 1, "then the backup served");
  t.equal(primary.requests[0]!.headers["x-api-key"], "key-primary");
  t.equal(backup.requests[0]!.headers.authorization, "Bearer key-backup");
  await ask(c);
  t.equal(primary.requests.length, 2, "the primary is cooling down: not tried first");
  t.equal(backup.requests.length, 2);
  let usage = await server.deps.storage.usage.query({});
  for (let i = 0; i < 100 && usage.rows.length < 2; i++) {
    await new Promise((r) => setTimeout(r, 10));
    usage = await server.deps.storage.usage.query({});
  }
  t.same(
    usage.rows.map((r) => [r.channel, r.status]),
    [
      ["backup", "ok"],
      ["backup", "ok"],
    ],
    "usage names the channel that served",
  );
  primaryReply = { json: fixture("anthropic/message-text.json") };
  backup.setHandler(() => ({ status: 500, json: { error: { message: "boom", type: "server_error" } } }));
  const m3 = await ask(c);
  t.equal(textOf(m3), "Hello! How can I help you today?", "a cooling channel is still tried when the others fail");
});

t.test("a slow first byte falls over; a model no channel serves is 404", async (t) => {
  const slow = await startFakeUpstream(() => ({ json: fixture("anthropic/message-text.json"), delayMs: 3000 }));
  const fast = await startFakeUpstream(anthropicScript);
  const server = await startServer({
    config: { upstream: { ...upstreamCfg, retries: 0 }, channels: [chan("slow", "anthropic", slow.url, { priority: 1, timeouts: { firstByteMs: 150 } }), chan("fast", "anthropic", fast.url)] },
  });
  t.teardown(async () => {
    await server.close();
    await slow.close();
    await fast.close();
  });
  const c = new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });
  const m = await ask(c);
  t.equal(textOf(m), GREETING);
  t.equal(slow.requests.length, 1);
  t.equal(fast.requests.length, 1);
  const err = await c.messages.create({ model: "claude-unknown", max_tokens: 5, messages: [{ role: "user", content: "x" }] }).then(
    () => undefined,
    (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
  );
  t.equal(err?.status, 404);
});

t.test("upstream errors reach each client format as its own error, without upstream text", async (t) => {
  let reply: Reply = {};
  const up = await startFakeUpstream(() => reply);
  const server = await startServer({ config: { upstream: { ...upstreamCfg, retries: 0, maxAttempts: 1 }, channels: [chan("only", "anthropic", up.url)] } });
  t.teardown(async () => {
    await server.close();
    await up.close();
  });
  const c = new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });
  const ai = new GoogleGenAI({ apiKey: ADMIN_KEY, httpOptions: { baseUrl: server.baseUrl } });
  const anthropicErr = () =>
    ask(c).then(
      () => undefined,
      (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
    );
  const geminiErr = () =>
    ai.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" }).then(
      () => undefined,
      (e: unknown) => e as ApiError,
    );

  reply = { status: 429, json: fixture("anthropic/error-rate-limit.json"), headers: { "retry-after": "7" } };
  const e429 = await anthropicErr();
  t.equal(e429?.status, 429);
  t.equal((e429?.error as { error: { type: string } }).error.type, "rate_limit_error");
  t.equal(e429?.headers?.get("retry-after"), "7");
  t.notMatch(JSON.stringify(e429?.error), /sk-ant-secret|exceed/);
  const g429 = await geminiErr();
  t.equal(g429?.status, 429);
  t.match(g429?.message, /RESOURCE_EXHAUSTED/);

  reply = { status: 529, json: fixture("anthropic/error-overloaded.json") };
  const e529 = await anthropicErr();
  t.equal(e529?.status, 529);
  t.equal((e529?.error as { error: { type: string } }).error.type, "overloaded_error");
  const g503 = await geminiErr();
  t.equal(g503?.status, 503);

  reply = { status: 401, json: fixture("anthropic/error-auth.json") };
  const e401 = await anthropicErr();
  t.not(e401?.status, 401, "the client's key is fine: an upstream key problem is not the client's 401");
  t.ok((e401?.status ?? 0) >= 500);
  t.notMatch(JSON.stringify(e401?.error), /x-api-key/);

  reply = { status: 400, json: fixture("anthropic/error-invalid.json") };
  const e400 = await anthropicErr();
  t.equal(e400?.status, 400);
  t.notMatch(JSON.stringify(e400?.error), /x-secret-42/);

  reply = { chunks: sseChunks("anthropic/stream-overloaded.sse") };
  const mid = await c.messages
    .stream({ model: "gateway-chat", max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
    .finalMessage()
    .then(
      () => undefined,
      (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
    );
  t.ok(mid instanceof Anthropic.APIError, "a mid-stream upstream error reaches the SDK as an error event");
  t.match(mid?.message, /overloaded_error/);
});

t.test("a client that disconnects aborts the upstream request", async (t) => {
  const up = await startFakeUpstream(() => ({ chunks: sseChunks("anthropic/stream-tool-use.sse"), chunkDelayMs: 300 }));
  const server = await startServer({ config: { upstream: upstreamCfg, channels: [chan("only", "anthropic", up.url)] } });
  t.teardown(async () => {
    await server.close();
    await up.close();
  });
  const c = new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });
  const aborted = up.nextAbort();
  const ac = new AbortController();
  const stream = await c.messages.create({ model: "gateway-chat", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] }, { signal: ac.signal });
  const seen: string[] = [];
  const reading = (async () => {
    for await (const e of stream) {
      seen.push(e.type);
      if (e.type === "content_block_delta") ac.abort();
    }
  })().catch(() => undefined);
  await aborted;
  await reading;
  t.equal(up.aborted, 1, "the upstream saw its request go away");
  t.ok(seen.includes("message_start"));
  t.notOk(seen.includes("message_stop"));
});

t.test("a stream that breaks before its first event falls over; after it, the client gets an error event", async (t) => {
  let first: Reply = { chunks: sseChunks("anthropic/stream-tool-use.sse"), breakAfter: 0 };
  const a = await startFakeUpstream(() => first);
  const b = await startFakeUpstream(anthropicScript);
  const server = await startServer({ config: { upstream: { ...upstreamCfg, retries: 0 }, channels: [chan("a", "anthropic", a.url, { priority: 1 }), chan("b", "anthropic", b.url)] } });
  t.teardown(async () => {
    await server.close();
    await a.close();
    await b.close();
  });
  const c = new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });
  const m = await c.messages.stream({ model: "gateway-chat", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }).finalMessage();
  t.equal(textOf(m), GREETING);
  t.same([a.requests.length, b.requests.length], [1, 1]);
  first = { chunks: sseChunks("anthropic/stream-tool-use.sse"), breakAfter: 5 };
  const before = b.requests.length;
  const err = await c.messages
    .stream({ model: "gateway-chat", max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
    .finalMessage()
    .then(
      () => undefined,
      (e: unknown) => e as Error,
    );
  t.ok(err, "the broken stream ends with an error");
  t.match(err?.message, /api_error|overloaded_error/);
  t.equal(b.requests.length, before, "no switch once events reached the client");
});
