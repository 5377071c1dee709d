// Chat routing and the chat catalog built from Config (src/server/chat-deps.ts).
import t from "tap";
import { configSchema } from "../../src/config.js";
import { createChatDeps, isImagePattern } from "../../src/server/chat-deps.js";
import { silentLogger } from "../../src/providers/shared/log.js";
import type { ChatProvider } from "../../src/core/ports.js";
import type { ModelEntry } from "../../src/core/model/catalog.js";

const local = { kind: "local" } as ChatProvider;
const localEntries = [{ id: "local-listed" } as ModelEntry];
const ch = (name: string, provider: string, models: string[], extra: object = {}) => ({ name, provider, baseUrl: "http://127.0.0.1:9/v1", models, ...extra });
const deps = (cfg: object) => createChatDeps(configSchema.parse(cfg), local, localEntries, { log: silentLogger });

t.test("no chat channel: the local engine serves every name and lists its own models", async (t) => {
  for (const cfg of [{}, { channels: [ch("img", "openai", ["dall-e-*", "gpt-image-1"]), ch("vid", "openai-videos", ["sora-*"])] }]) {
    const d = deps(cfg);
    t.same(
      d.routing.resolve("anything").map((r) => r.channel),
      ["local"],
    );
    t.same(
      d.catalogEntries.map((e) => e.id),
      ["local-listed"],
    );
    await d.close();
  }
  const only = deps({ local: { chatModels: ["local-*"] } });
  t.same(only.routing.resolve("gpt-4").length, 0, "local.chatModels limits the engine");
});

t.test("chat channels: routes by models and modelMap, local only when named, concrete names listed", async (t) => {
  const d = deps({
    channels: [
      ch("oa", "openai", ["gpt-*", "o3"], { modelMap: { "claude-sonnet-4-6": "gpt-4.1" }, priority: 1 }),
      ch("an", "anthropic", ["claude-*"]),
      ch("off", "gemini", ["gemini-2.5-flash"], { enabled: false }),
      ch("img", "openai", ["dall-e-3"]),
    ],
    local: { chatModels: ["local-chat"] },
  });
  t.teardown(() => d.close());
  t.same(
    d.routing.resolve("claude-sonnet-4-6").map((r) => [r.channel, r.upstreamModel]),
    [
      ["oa", "gpt-4.1"],
      ["an", "claude-sonnet-4-6"],
    ],
  );
  t.same(
    d.routing.resolve("gpt-4o").map((r) => r.channel),
    ["oa"],
  );
  t.same(
    d.routing.resolve("local-chat").map((r) => r.channel),
    ["local"],
  );
  t.same(d.routing.resolve("gemini-2.5-flash"), [], "disabled channels serve nothing; the local engine is not a catch-all any more");
  t.same(d.routing.resolve("mistral"), []);
  t.same(
    d.catalogEntries.map((e) => [e.id, e.ownedBy, e.channels]).sort(),
    [
      ["claude-sonnet-4-6", "openai", ["oa"]],
      ["local-chat", "omnigate-local", ["local"]],
      ["o3", "openai", ["oa"]],
    ].sort(),
  );
});

t.test("local.chatModels unset: every name without a chat channel, none once one is configured", async (t) => {
  const alone = deps({});
  t.same(
    alone.routing.resolve("claude-sonnet-4-6").map((r) => r.channel),
    ["local"],
  );
  const d = deps({ channels: [ch("an", "anthropic", ["claude-*"])] });
  t.teardown(() => d.close());
  t.same(
    d.routing.resolve("claude-sonnet-4-6").map((r) => r.channel),
    ["an"],
    "the channel serves its models, without the local engine behind it",
  );
  t.same(d.routing.resolve("gpt-4o"), [], "a name no channel serves is not answered by the local engine");
  t.same(d.routing.resolve("local-chat"), [], "nor is the local engine's own name");
  t.notOk(
    d.catalogEntries.some((e) => e.ownedBy === "omnigate-local"),
    "the catalog lists no local model",
  );
});

t.test("image patterns", async (t) => {
  const images = new Set(["dall-e-3", "IMG_MODEL_A"]);
  t.same(
    ["dall-e-*", "gpt-image-1", "IMG_MODEL_*", "dall-e-3", "gpt-*", "*", "gpt-4.1", "claude-*"].map((p) => isImagePattern(p, images)),
    [true, true, true, true, false, false, false, false],
  );
});
