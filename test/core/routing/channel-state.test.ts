// The runtime channel registry, and the chat, image and video routings
// consulting it at resolve time.
import t from "tap";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import { Code, ConnectError } from "@connectrpc/connect";
import { channelSchema, configSchema } from "../../../src/config.js";
import { coreError } from "../../../src/core/errors.js";
import { imageRouting } from "../../../src/core/image/image-routing.js";
import { channelStates, isChannelFault, publicBaseUrl } from "../../../src/core/routing/channel-state.js";
import { channelChatRouting } from "../../../src/core/routing/chat-routing.js";
import { videoRouting } from "../../../src/core/video/video-routing.js";
import type { ChatProvider, ImageProvider, VideoProvider } from "../../../src/core/ports.js";

const ch = (o: Record<string, unknown>) => channelSchema.parse({ provider: "openai", baseUrl: "http://x/v1", models: ["m"], ...o });

t.test("publicBaseUrl drops credentials, query and fragment", async (t) => {
  t.equal(publicBaseUrl("https://u:p@api.example.com/v1beta?key=abc#x"), "https://api.example.com/v1beta");
  t.equal(publicBaseUrl("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080/v1");
  t.equal(publicBaseUrl("not a url"), "");
});

t.test("isChannelFault: upstream trouble, not the request's", async (t) => {
  t.equal(isChannelFault(coreError(Code.Unavailable, "down")), true);
  t.equal(isChannelFault(coreError(Code.DeadlineExceeded, "slow")), true);
  t.equal(isChannelFault(coreError(Code.PermissionDenied, "bad key", { reason: "upstream_auth" })), true);
  t.equal(isChannelFault(coreError(Code.InvalidArgument, "bad size", { reason: "invalid_value", field: "size" })), false);
  t.equal(isChannelFault(new ConnectError("gone", Code.Canceled)), false);
  t.equal(isChannelFault(new Error("boom")), true, "an unexpected error is the provider's");
});

t.test("enabled from config, changed at runtime; last errors; unknown names", async (t) => {
  let clock = 1000;
  const cooling = new Set<string>();
  const s = channelStates([ch({ name: "a" }), ch({ name: "b", enabled: false, modelMap: { m: "up" }, priority: 3, weight: 0.5 })], { now: () => clock, cooling: (n) => cooling.has(n) });
  t.same([s.isEnabled("a"), s.isEnabled("b"), s.isEnabled("local")], [true, false, true], "names that are not channels are always enabled");
  t.match(s.get("b"), {
    name: "b",
    provider: "openai",
    baseUrl: "http://x/v1",
    models: ["m"],
    modelMap: { m: "up" },
    priority: 3,
    weight: 0.5,
    enabled: false,
    coolingDown: false,
    lastError: "",
    lastErrorTime: 0,
  });
  t.match(await s.setEnabled("b", true), { name: "b", enabled: true });
  t.equal(s.isEnabled("b"), true);
  t.equal(await s.setEnabled("nope", true), undefined);
  s.recordError("a", coreError(Code.Unavailable, "upstream answered 503", { reason: "upstream_unavailable" }));
  clock = 2000;
  s.recordError("b", "plain text " + "x".repeat(600));
  s.recordError("local", "ignored");
  cooling.add("a");
  t.match(s.get("a"), { lastError: "upstream_unavailable: upstream answered 503", lastErrorTime: 1000, coolingDown: true });
  t.equal(s.get("b")!.lastError.length, 500, "capped");
  t.equal(s.get("b")!.lastErrorTime, 2000);
  t.same(
    s.list().map((c) => c.name),
    ["a", "b"],
  );
  t.equal(s.get("local"), undefined);
});

t.test("chat routing asks the registry at each resolve and records reported failures", async (t) => {
  const provider = { kind: "stub" } as ChatProvider;
  const upstream = { ...configSchema.parse({}).upstream, cooldownAfterFailures: 1, cooldownMs: 60_000 };
  const configs = [ch({ name: "a", priority: 1 }), ch({ name: "b" }), ch({ name: "off", enabled: false, priority: 9 })];
  const states = channelStates(configs, { now: () => 5 });
  const r = channelChatRouting({ channels: configs.map((config) => ({ config, provider })), upstream, states, rng: () => 0 });
  t.same(
    r.resolve("m").map((x) => x.channel),
    ["a", "b"],
  );
  await states.setEnabled("a", false);
  await states.setEnabled("off", true);
  t.same(
    r.resolve("m").map((x) => x.channel),
    ["off", "b"],
    "a change applies to the next resolve",
  );
  const route = r.resolve("m")[0]!;
  r.report(route, false, coreError(Code.Unavailable, "503", { reason: "upstream_unavailable" }));
  t.match(states.get("off"), { lastError: "upstream_unavailable: 503", lastErrorTime: 5 });
  t.equal(r.cooling?.("off"), true);
  r.report(route, true);
  t.equal(r.cooling?.("off"), false, "a success resets it");
  t.equal(r.policy.retries("off"), upstream.retries, "channels disabled in config keep their policy");
});

t.test("image routing: a disabled channel leaves the model to the next one or the local engine", async (t) => {
  const p = (kind: string): ImageProvider => ({ kind, run: async () => ({ images: [] }) });
  const configs = [ch({ name: "img", models: ["dall-e-*"] }), ch({ name: "spare", models: ["dall-e-*"], enabled: false })];
  const states = channelStates(configs, { now: () => 7 });
  const r = imageRouting(
    configs.map((channel) => ({ channel, provider: p("openai") })),
    p("local"),
    () => 0,
    states,
  );
  t.same(
    r.resolve("dall-e-2", "IMG_MODEL_A").map((x) => x.channel),
    ["img"],
  );
  await states.setEnabled("img", false);
  t.same(
    r.resolve("dall-e-2", "IMG_MODEL_A").map((x) => x.channel),
    ["local"],
  );
  await states.setEnabled("spare", true);
  t.same(
    r.resolve("dall-e-2", "IMG_MODEL_A").map((x) => x.channel),
    ["spare"],
  );
  r.report!({ channel: "spare", provider: p("openai"), upstreamModel: "x" }, coreError(Code.InvalidArgument, "bad size", { reason: "invalid_value" }));
  t.equal(states.get("spare")!.lastError, "", "the request's fault is not the channel's");
  r.report!({ channel: "spare", provider: p("openai"), upstreamModel: "x" }, coreError(Code.Unavailable, "down", { reason: "upstream_error" }));
  t.equal(states.get("spare")!.lastError, "upstream_error: down");
});

t.test("video routing: disabled channels keep their provider and queue but serve no new task", async (t) => {
  const p = (kind: string) => ({ kind }) as VideoProvider;
  const configs = [ch({ name: "vid", provider: "video-gateway", models: ["kling-*"] }), ch({ name: "later", provider: "openai-videos", models: ["sora-*"], enabled: false })];
  const states = channelStates(configs, { now: () => 9 });
  const r = videoRouting(
    configs.map((channel) => ({ channel, provider: p(channel.provider) })),
    p("local"),
    undefined,
    () => 0,
    states,
  );
  t.same(r.channels(), ["local", "vid", "later"]);
  t.equal(r.provider("later")?.kind, "openai-videos");
  t.same(
    r.resolve("kling-v1").map((x) => x.channel),
    ["vid"],
  );
  t.throws(() => r.resolve("sora-2"), { code: Code.InvalidArgument }, "not served while disabled (and the local engine serves none once channels exist)");
  await states.setEnabled("later", true);
  await states.setEnabled("vid", false);
  t.same(
    r.resolve("sora-2").map((x) => x.channel),
    ["later"],
  );
  t.throws(() => r.resolve("kling-v1"), { code: Code.InvalidArgument });
  r.report!("vid", coreError(Code.Unavailable, "gateway down"));
  t.equal(states.get("vid")!.lastError, "gateway down");
  const noStates = videoRouting([{ channel: configs[1]!, provider: p("openai-videos") }], p("local"), undefined);
  t.same(
    noStates.resolve("anything").map((x) => x.channel),
    ["local"],
    "without a registry the configured flag counts; only disabled channels: the local engine serves",
  );
  noStates.report!("later", coreError(Code.Unavailable, "x"));
});

t.test("with a store, an enable/disable outlives a restart and reaches other instances on refresh", async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "og-channels-"));
  const storage = openSqliteStorage(dir);
  t.teardown(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const configs = [ch({ name: "a" }), ch({ name: "b", enabled: false })];
  const one = channelStates(configs, { now: () => 1, store: storage.taskAccounts });
  const two = channelStates(configs, { now: () => 1, store: storage.taskAccounts });
  await one.setEnabled("a", false);
  await one.setEnabled("b", true);
  t.same([two.isEnabled("a"), two.isEnabled("b")], [true, false], "the other instance still has the config's values");
  await two.refresh();
  t.same([two.isEnabled("a"), two.isEnabled("b")], [false, true], "until it refreshes");
  const restarted = channelStates(configs, { now: () => 2, store: storage.taskAccounts });
  await restarted.refresh();
  t.same([restarted.isEnabled("a"), restarted.isEnabled("b")], [false, true], "a restart keeps the admin's choice");
  t.equal(await one.setEnabled("gone", true), undefined);
  t.same(
    (await storage.taskAccounts.list("channel")).map((r) => r.id),
    ["a", "b"],
    "unknown names are not stored",
  );
});
