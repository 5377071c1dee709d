// Embedding routing: which channels serve a model, in which order, the local
// engine after them, and the cooldown bookkeeping of reported attempts.
import t from "tap";
import { ConnectError, Code } from "@connectrpc/connect";
import { channelSchema, configSchema } from "../../../src/config.js";
import { embeddingRouting, type EmbeddingChannel } from "../../../src/core/embedding/embedding-routing.js";
import type { EmbeddingProvider } from "../../../src/core/ports.js";
import { channelStates } from "../../../src/core/routing/channel-state.js";
import { cooldownTracker } from "../../../src/core/routing/cooldown.js";

const provider = (kind: string): EmbeddingProvider => ({ kind, embed: async () => Promise.reject(new Error("not called")) });
const local = provider("local");
const upstream = configSchema.parse({}).upstream;
const ch = (o: Record<string, unknown>): EmbeddingChannel => {
  const config = channelSchema.parse({ provider: "openai", baseUrl: "http://x/v1", ...o });
  return { config, provider: provider(config.provider) };
};
const names = (r: ReturnType<ReturnType<typeof embeddingRouting>["resolve"]>) => r.map((x) => `${x.channel}:${x.upstreamModel}`);

t.test("channels whose models or modelMap match, local last for its globs; others are not served", async (t) => {
  const r = embeddingRouting({
    channels: [
      ch({ name: "oa", models: ["text-embedding-3-*"] }),
      ch({ name: "mapped", provider: "gemini", models: [], modelMap: { "text-embedding-3-small": "gemini-embedding-001" } }),
      ch({ name: "off", models: ["*"], enabled: false }),
      ch({ name: "chat", models: ["gpt-*"] }),
    ],
    local: { provider: local, globs: ["text-embedding-3-small", "local-*"] },
    upstream,
    rng: () => 0,
  });
  t.same(names(r.resolve("text-embedding-3-small")), ["oa:text-embedding-3-small", "mapped:gemini-embedding-001", "local:text-embedding-3-small"]);
  t.same(names(r.resolve("text-embedding-3-large")), ["oa:text-embedding-3-large"], "the local engine only for its globs");
  t.same(names(r.resolve("local-embed")), ["local:local-embed"]);
  t.same(r.resolve("claude-sonnet-4-6"), [], "nothing serves it");
});

t.test("higher priority first, then weighted order; a cooling channel goes last", async (t) => {
  const cooldown = cooldownTracker(1, () => 0);
  const channels = [ch({ name: "low", models: ["m"], priority: 0 }), ch({ name: "heavy", models: ["m"], priority: 5, weight: 3 }), ch({ name: "light", models: ["m"], priority: 5, weight: 1 })];
  const order = (rng: number) =>
    embeddingRouting({ channels, upstream, rng: () => rng, cooldown })
      .resolve("m")
      .map((x) => x.channel);
  t.same(order(0), ["heavy", "light", "low"]);
  t.same(order(0.9), ["light", "heavy", "low"], "a draw past 3/4 picks the light one first");
  cooldown.fail("heavy", 60_000);
  t.same(order(0), ["light", "low", "heavy"], "the cooling channel is tried last");
});

t.test("report: failures cool a channel down and are kept as its last error; a success resets", async (t) => {
  let now = 1000;
  const configs = [ch({ name: "a", models: ["m"] }), ch({ name: "b", models: ["m"] })];
  const states = channelStates(
    configs.map((c) => c.config),
    { now: () => now },
  );
  const r = embeddingRouting({ channels: configs, upstream: { ...upstream, cooldownAfterFailures: 2, cooldownMs: 500 }, states, now: () => now, rng: () => 0 });
  const a = r.resolve("m").find((x) => x.channel === "a")!;
  const err = new ConnectError("the openai upstream is overloaded", Code.Unavailable);
  r.report(a, false, err);
  t.same(r.resolve("m")[0]!.channel, "a", "one failure: not yet cooling");
  r.report(a, false, err);
  t.same(
    r.resolve("m").map((x) => x.channel),
    ["b", "a"],
    "two in a row: cooling, tried last",
  );
  t.match(states.get("a")?.lastError, /overloaded/, "the error is the channel's last error");
  now += 501;
  t.same(r.resolve("m")[0]!.channel, "a", "the cooldown ends");
  r.report({ channel: "local", provider: local, upstreamModel: "m" }, false, err);
  t.pass("a route that is no channel is not tracked");
  await states.setEnabled("a", false);
  t.same(
    r.resolve("m").map((x) => x.channel),
    ["b"],
    "a channel disabled at runtime takes nothing",
  );
});

t.test("retry policy: the channel's own retries, none for the local engine", async (t) => {
  const r = embeddingRouting({ channels: [ch({ name: "a", models: ["m"], retries: 3 }), ch({ name: "b", models: ["m"] })], upstream });
  t.equal(r.policy.retries("a"), 3);
  t.equal(r.policy.retries("b"), upstream.retries);
  t.equal(r.policy.retries("local"), 0);
  t.equal(r.policy.maxAttempts, upstream.maxAttempts);
});
