// AdminService ListChannels / UpdateChannel against a real gateway with
// loopback fake upstreams: the listing (no credentials in base URLs), a chat
// channel disabled at runtime (its model falls over to another channel, then
// is the format's 404 when no channel is left), enabled again; last errors and
// cooldown as the routings see them; a midjourney channel disabled for the
// image-bot pool; admin keys only.
import t from "tap";
import Anthropic from "@anthropic-ai/sdk";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AdminService } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import type { ChannelConfig } from "../../../src/config.js";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";
import { fixture, startFakeUpstream, type Reply } from "../../fixtures/fake-upstream.js";
import { GREETING, openaiScript } from "../../fixtures/scripted.js";

const chan = (name: string, provider: ChannelConfig["provider"], baseUrl: string, extra: Partial<ChannelConfig> = {}) => ({
  name,
  provider,
  baseUrl,
  apiKey: `key-${name}`,
  models: ["gateway-chat"],
  ...extra,
});

let primaryReply: Reply = { json: fixture("anthropic/message-text.json") };
const primary = await startFakeUpstream(() => primaryReply);
const backup = await startFakeUpstream(openaiScript);
const mj = await startFakeUpstream(() => ({ status: 500, text: "down" }));
const server = await startServer({
  config: {
    upstream: {
      connectTimeoutMs: 1000,
      firstByteTimeoutMs: 5000,
      chunkTimeoutMs: 5000,
      retries: 0,
      maxAttempts: 4,
      backoffMs: 1,
      maxBackoffMs: 10,
      cooldownMs: 60_000,
      cooldownAfterFailures: 2,
      connections: 8,
    },
    local: { blocklist: ["forbidden-topic"], chunkDelayMs: 0, signingSecret: "", faultInjection: true, taskMs: 50 },
    channels: [
      chan("primary", "anthropic", primary.url, { priority: 1, modelMap: { "gateway-chat": "claude-upstream" } }),
      chan("backup", "openai", `${backup.url}/v1`, { weight: 2 }),
      chan("hidden", "gemini", "http://user:secret@127.0.0.1:9/v1beta?key=sk-secret#frag", { models: ["gemini-*"], enabled: false }),
      chan("mj", "midjourney", mj.url, { models: [] }),
    ],
  } as never,
});
t.teardown(async () => {
  await server.close();
  await Promise.all([primary.close(), backup.close(), mj.close()]);
});

const bearer = (k: string) => ({ headers: { authorization: `Bearer ${k}` } });
const admin = createClient(AdminService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
const claude = new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });
const ask = () => claude.messages.create({ model: "gateway-chat", max_tokens: 50, messages: [{ role: "user", content: "Hi!" }] });
const textOf = (m: Anthropic.Message) => m.content.map((b) => (b.type === "text" ? b.text : "")).join("");
const list = async () => new Map((await admin.listChannels({}, bearer(ADMIN_KEY))).channels.map((c) => [c.name, c]));
const setEnabled = (name: string, enabled: boolean) => admin.updateChannel({ name, enabled }, bearer(ADMIN_KEY));

t.test("lists every configured channel with its state, without credentials", async (t) => {
  const all = await list();
  t.same([...all.keys()], ["primary", "backup", "hidden", "mj"]);
  t.match(all.get("primary"), {
    provider: "anthropic",
    baseUrl: `${primary.url}/`,
    models: ["gateway-chat"],
    modelMap: { "gateway-chat": "claude-upstream" },
    priority: 1,
    weight: 1,
    enabled: true,
    coolingDown: false,
    lastError: "",
  });
  t.equal(all.get("primary")!.lastErrorTime, undefined);
  t.match(all.get("backup"), { provider: "openai", baseUrl: `${backup.url}/v1`, priority: 0, weight: 2, enabled: true });
  t.match(all.get("hidden"), { provider: "gemini", baseUrl: "http://127.0.0.1:9/v1beta", models: ["gemini-*"], enabled: false });
  const text = JSON.stringify([...all.values()], (_k, v) => (typeof v === "bigint" ? String(v) : v));
  t.notOk(/secret|key-/.test(text), "no user, password, query key or API key is shown");
});

t.test("a chat channel disabled at runtime: its model falls over, then is a 404; enabled again it serves", async (t) => {
  t.equal(textOf(await ask()), "Hello! How can I help you today?", "the primary (priority 1) serves");
  t.equal(primary.requests.length, 1);
  const off = await setEnabled("primary", false);
  t.match(off.channel, { name: "primary", enabled: false });
  t.equal(textOf(await ask()), GREETING, "the backup serves while the primary is disabled");
  t.equal(primary.requests.length, 1, "the disabled channel got nothing");
  t.equal(backup.requests.length, 1);
  await setEnabled("backup", false);
  const err = await ask().catch((e: unknown) => e);
  t.type(err, Anthropic.NotFoundError, "no enabled channel serves the model: the format's 404");
  t.match((err as InstanceType<typeof Anthropic.NotFoundError>).error, { type: "error", error: { type: "not_found_error" } });
  await setEnabled("primary", true);
  await setEnabled("backup", true);
  t.equal(textOf(await ask()), "Hello! How can I help you today?");
  t.equal(primary.requests.length, 2, "the primary serves again");
  t.same(
    [...(await list()).values()].map((c) => c.enabled),
    [true, true, false, true],
  );
});

t.test("failures are the channel's last error; repeated ones cool it down", async (t) => {
  primaryReply = { status: 529, json: fixture("anthropic/error-overloaded.json") };
  t.equal(textOf(await ask()), GREETING, "falls over to the backup");
  let p = (await list()).get("primary")!;
  t.match(p.lastError, /overloaded/);
  t.ok(p.lastErrorTime && Number(p.lastErrorTime.seconds) > 0, "with its time");
  t.equal(p.coolingDown, false, "one failure does not cool it down");
  await ask();
  p = (await list()).get("primary")!;
  t.equal(p.coolingDown, true, "two failures in a row do");
  t.equal((await list()).get("backup")!.lastError, "", "the healthy channel has none");
  primaryReply = { json: fixture("anthropic/message-text.json") };
});

t.test("a disabled midjourney channel takes no image-bot task; enabled, its failures are its last error", async (t) => {
  const submit = () =>
    fetch(`${server.baseUrl}/ib/submit/imagine`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({ prompt: "a red fox", accountFilter: { instanceId: "mj" } }),
    }).then(async (r) => (await r.json()) as { code: number; result: string | null });
  await setEnabled("mj", false);
  t.match(await submit(), { code: 24, result: null }, "the mj account's channel is disabled");
  await setEnabled("mj", true);
  const accepted = await submit();
  t.equal(accepted.code, 1);
  let c = (await list()).get("mj")!;
  for (let i = 0; i < 200 && !c.lastError; i++) {
    await new Promise((r) => setTimeout(r, 25));
    c = (await list()).get("mj")!;
  }
  t.match(c.lastError, /HTTP 500/, "the upstream's failure is on the channel");
});

t.test("admin keys only; unknown and unnamed channels", async (t) => {
  const plain = (await admin.createKey({ key: { name: "plain" } }, bearer(ADMIN_KEY))).secret;
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => Code.Unknown - 100,
      (e: unknown) => ConnectError.from(e).code,
    );
  t.equal(await codeOf(admin.listChannels({}, bearer(plain))), Code.PermissionDenied);
  t.equal(await codeOf(admin.updateChannel({ name: "primary", enabled: false }, bearer(plain))), Code.PermissionDenied);
  t.equal((await list()).get("primary")!.enabled, true, "nothing changed");
  t.equal(await codeOf(setEnabled("nope", false)), Code.NotFound);
  t.equal(await codeOf(setEnabled("", false)), Code.InvalidArgument);
});
