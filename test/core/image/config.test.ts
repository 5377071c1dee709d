// The settings the image domain adds: channels, URL secret, image aliases.
import t from "tap";
import { configSchema, loadConfig, ConfigError } from "../../../src/config.js";

t.test("defaults", async (t) => {
  const c = configSchema.parse({});
  t.same(c.channels, []);
  t.equal(c.urlSecret, "");
  t.same(c.images, {
    aliases: { "dall-e-2": "IMG_MODEL_A", "dall-e-3": "IMG_MODEL_B", "gpt-image-1": "IMG_MODEL_C", "gpt-image-1-mini": "IMG_MODEL_D" },
    urlTtlMs: 3_600_000,
    sweepIntervalMs: 60_000,
    orphanGraceMs: 3_600_000,
  });
  t.equal(configSchema.parse({ images: { orphanGraceMs: 0 } }).images.orphanGraceMs, 0, "0 turns the orphan sweep off");
  t.throws(() => configSchema.parse({ images: { orphanGraceMs: -1 } }));
});

t.test("environment: OMNIGATE_CHANNELS (JSON) and OMNIGATE_URL_SECRET", async (t) => {
  const c = loadConfig({
    OMNIGATE_DATA_DIR: t.testdir(),
    OMNIGATE_URL_SECRET: "abc",
    OMNIGATE_CHANNELS: JSON.stringify([{ name: "oa", provider: "openai", baseUrl: "https://api.openai.com/v1", apiKey: "k", models: ["dall-e-*"] }]),
  });
  t.equal(c.urlSecret, "abc");
  t.same(c.channels, [{ name: "oa", provider: "openai", baseUrl: "https://api.openai.com/v1", apiKey: "k", models: ["dall-e-*"], modelMap: {}, priority: 0, weight: 1, enabled: true }]);
  t.throws(() => loadConfig({ OMNIGATE_DATA_DIR: t.testdir(), OMNIGATE_CHANNELS: "[{" }), ConfigError);
  t.throws(() => loadConfig({ OMNIGATE_DATA_DIR: t.testdir(), OMNIGATE_CHANNELS: JSON.stringify([{ name: "x", provider: "nope", baseUrl: "http://x" }]) }), ConfigError);
});

t.test("image aliases must name a profile", async (t) => {
  t.equal(configSchema.safeParse({ images: { aliases: { mine: "IMG_MODEL_C" } } }).success, true);
  t.equal(configSchema.safeParse({ images: { aliases: { mine: "IMG_MODEL_Z" } } }).success, false);
});
