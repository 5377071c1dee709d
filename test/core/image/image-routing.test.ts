import t from "tap";
import { channelSchema } from "../../../src/config.js";
import { imageRouting } from "../../../src/core/image/image-routing.js";
import type { ImageProvider } from "../../../src/core/ports.js";

const provider = (kind: string): ImageProvider => ({ kind, run: async () => ({ images: [] }) });
const local = provider("local");
const ch = (o: Record<string, unknown>) => channelSchema.parse({ provider: "openai", baseUrl: "http://x/v1", ...o });

t.test("no matching channel -> local", async (t) => {
  const r = imageRouting([{ channel: ch({ name: "a", models: ["dall-e-*"] }), provider: provider("openai") }], local);
  t.same(
    r.resolve("gpt-image-1", "IMG_MODEL_C").map((x) => [x.channel, x.provider.kind, x.upstreamModel]),
    [["local", "local", "gpt-image-1"]],
  );
});

t.test("globs match the client name or the profile; modelMap renames; disabled and non-openai skipped", async (t) => {
  const r = imageRouting(
    [
      { channel: ch({ name: "by-profile", models: ["IMG_MODEL_B"], modelMap: { IMG_MODEL_B: "dall-e-3" } }), provider: provider("openai") },
      { channel: ch({ name: "off", models: ["*"], enabled: false }), provider: provider("openai") },
      { channel: ch({ name: "claude", models: ["*"], provider: "anthropic" }), provider: provider("anthropic") },
    ],
    local,
  );
  t.same(
    r.resolve("my-b", "IMG_MODEL_B").map((x) => [x.channel, x.upstreamModel]),
    [["by-profile", "dall-e-3"]],
  );
});

t.test("priority first, then weighted order", async (t) => {
  const ups = [
    { channel: ch({ name: "low", models: ["m"], priority: 0 }), provider: provider("openai") },
    { channel: ch({ name: "heavy", models: ["m"], priority: 5, weight: 3 }), provider: provider("openai") },
    { channel: ch({ name: "light", models: ["m"], priority: 5, weight: 1 }), provider: provider("openai") },
    { channel: ch({ name: "zero", models: ["m"], priority: 5, weight: 0 }), provider: provider("openai") },
  ];
  const order = (rng: number) =>
    imageRouting(ups, local, () => rng)
      .resolve("m", "IMG_MODEL_A")
      .map((x) => x.channel);
  t.same(order(0), ["heavy", "light", "zero", "low"]);
  t.same(order(0.8), ["light", "heavy", "zero", "low"], "a draw past 3/4 picks the light one");
  const counts: Record<string, number> = { heavy: 0, light: 0 };
  let seed = 1;
  const rng = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const r = imageRouting(ups, local, rng);
  for (let i = 0; i < 4000; i++) counts[r.resolve("m", "IMG_MODEL_A")[0]!.channel]!++;
  t.ok(counts.heavy! > counts.light! * 2, `weights respected (${counts.heavy}:${counts.light})`);
});
