// The OpenAI-compatible images upstream, driven through the gateway with the
// openai SDK: channel routing and modelMap, JSON and multipart requests,
// re-hosting of b64 and URL results, and error mapping.
import t from "tap";
import OpenAI, { toFile } from "openai";
import sharp from "sharp";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";
import { startFakeUpstream, UPSTREAM_KEY, UPSTREAM_MARKER } from "./fake-upstream.js";

const fake = await startFakeUpstream();
t.teardown(() => fake.close());

const aliases = {
  "dall-e-2": "IMG_MODEL_A",
  "dall-e-3": "IMG_MODEL_B",
  "gpt-image-1": "IMG_MODEL_C",
  "gpt-image-1-mini": "IMG_MODEL_D",
  ...Object.fromEntries(
    ["fail-500", "rate", "quota", "auth", "bad-size", "moderated", "garbage", "no-model", "url-result", "broken-url", "flaky", "off", "down", "leaky", "leaky-size"].map((m) => [m, "IMG_MODEL_A"]),
  ),
};
const channel = (over: Record<string, unknown>) => ({ provider: "openai", baseUrl: fake.url + "/v1", apiKey: UPSTREAM_KEY, modelMap: {}, priority: 0, weight: 1, enabled: true, ...over });
const server = await startServer({
  config: {
    images: { aliases, urlTtlMs: 3_600_000, sweepIntervalMs: 60_000 },
    channels: [
      channel({
        name: "main",
        models: ["dall-e-*", "gpt-image-1", "fail-500", "rate", "quota", "bad-size", "moderated", "garbage", "no-model", "url-result", "broken-url", "leaky", "leaky-size"],
        modelMap: { "dall-e-3": "dall-e-3-upstream" },
      }),
      channel({ name: "wrong-key", models: ["auth"], apiKey: "sk-wrong" }),
      channel({ name: "flaky-first", models: ["flaky"], priority: 10, modelMap: { flaky: "fail-500" } }),
      channel({ name: "flaky-second", models: ["flaky"], priority: 1, modelMap: { flaky: "dall-e-2" } }),
      channel({ name: "disabled", models: ["off"], enabled: false }),
      channel({ name: "unreachable", models: ["down"], baseUrl: "http://127.0.0.1:9/v1" }),
    ],
  } as never,
});
t.teardown(() => server.close());
const client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: server.baseUrl + "/v1", maxRetries: 0 });

const last = () => fake.requests[fake.requests.length - 1]!;
const png64 = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
  .png()
  .toBuffer();

t.test("generations go upstream as JSON, renamed by modelMap; b64 results are re-hosted as gateway URLs", async (t) => {
  const before = fake.requests.length;
  const res = await client.images.generate({ model: "dall-e-3", prompt: "a castle", quality: "hd", size: "1024x1792" });
  t.equal(fake.requests.length, before + 1);
  const up = last();
  t.equal(up.path, "/v1/images/generations");
  t.equal(up.headers.authorization, `Bearer ${UPSTREAM_KEY}`);
  t.same(up.json, { model: "dall-e-3-upstream", prompt: "a castle", n: 1, size: "1024x1792", quality: "hd", response_format: "b64_json" });
  const d = res.data![0]!;
  t.equal(d.revised_prompt, "An upstream-revised prompt.");
  t.ok(d.url!.startsWith(server.baseUrl + "/files/"), "a gateway URL, never the upstream's");
  const got = await fetch(d.url!);
  t.equal(got.status, 200);
  t.ok(Buffer.from(await got.arrayBuffer()).equals(fake.png), "same bytes as the upstream produced");
});

t.test("gpt-image upstream: no response_format sent, usage passed through, b64 returned inline", async (t) => {
  const res = await client.images.generate({ model: "gpt-image-1", prompt: "a kite", n: 2, quality: "low", response_format: "b64_json" });
  t.same(last().json, { model: "gpt-image-1", prompt: "a kite", n: 2, quality: "low" });
  t.equal(res.data?.length, 2);
  t.ok(Buffer.from(res.data![1]!.b64_json!, "base64").equals(fake.png));
  t.same(res.usage, { input_tokens: 11, input_tokens_details: { text_tokens: 7, image_tokens: 4 }, output_tokens: 99, total_tokens: 110 });
  t.equal(res.size, "48x32", "the size of what was really produced");
});

t.test("URL results are downloaded and re-hosted", async (t) => {
  const res = await client.images.generate({ model: "url-result", prompt: "x", size: "256x256" });
  t.equal(last().path, "/cdn/result.png", "the gateway fetched the upstream URL");
  const url = res.data![0]!.url!;
  t.ok(url.startsWith(server.baseUrl + "/files/"));
  t.notMatch(url, fake.url);
  t.ok(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(fake.png));
  const b64 = await client.images.generate({ model: "url-result", prompt: "x", size: "256x256", response_format: "b64_json" });
  t.ok(Buffer.from(b64.data![0]!.b64_json!, "base64").equals(fake.png), "or inlined when asked for b64_json");
});

t.test("edits go up as multipart: `image[]` for several, `image` for one, mask and fields", async (t) => {
  await client.images.edit({
    model: "gpt-image-1",
    prompt: "add snow",
    image: [await toFile(png64, "a.png", { type: "image/png" }), await toFile(png64, "b.png", { type: "image/png" })],
    mask: await toFile(png64, "mask.png", { type: "image/png" }),
    input_fidelity: "high",
    response_format: "b64_json",
  } as never);
  const up = last();
  t.equal(up.path, "/v1/images/edits");
  t.match(up.headers["content-type"], /^multipart\/form-data; boundary=/);
  const files = up.parts!.filter((p) => p.filename);
  t.same(
    files.map((f) => [f.name, f.filename, f.type, f.size]),
    [
      ["image[]", "a.png", "image/png", png64.length],
      ["image[]", "b.png", "image/png", png64.length],
      ["mask", "mask.png", "image/png", png64.length],
    ],
  );
  const fields = Object.fromEntries(up.parts!.filter((p) => !p.filename).map((p) => [p.name, p.value]));
  t.same(fields, { model: "gpt-image-1", prompt: "add snow", n: "1", input_fidelity: "high" });

  await client.images.edit({ model: "dall-e-2", prompt: "one", image: await toFile(png64, "one.png", { type: "image/png" }), size: "256x256", response_format: "b64_json" });
  const one = last();
  t.same(
    one.parts!.filter((p) => p.filename).map((p) => p.name),
    ["image"],
  );
  t.equal(one.parts!.find((p) => p.name === "response_format")?.value, "b64_json");
});

t.test("variations go up as multipart", async (t) => {
  const res = await client.images.createVariation({ model: "dall-e-2", image: await toFile(png64, "v.png", { type: "image/png" }), n: 2, size: "512x512" });
  const up = last();
  t.equal(up.path, "/v1/images/variations");
  t.same(
    up.parts!.map((p) => [p.name, p.value ?? p.filename]),
    [
      ["model", "dall-e-2"],
      ["n", "2"],
      ["size", "512x512"],
      ["response_format", "b64_json"],
      ["image", "v.png"],
    ],
  );
  t.equal(res.data?.length, 2);
});

t.test("models without a channel stay on the local engine; disabled channels are skipped", async (t) => {
  const before = fake.requests.length;
  const d = await client.images.generate({ model: "gpt-image-1-mini", prompt: "local", quality: "low", response_format: "b64_json" });
  t.equal((await sharp(Buffer.from(d.data![0]!.b64_json!, "base64")).metadata()).width, 1024);
  await client.images.generate({ model: "off", prompt: "local", size: "256x256" });
  t.equal(fake.requests.length, before, "upstream untouched");
});

t.test("a failing channel falls over to the next one", async (t) => {
  const before = fake.requests.length;
  const res = await client.images.generate({ model: "flaky", prompt: "x", size: "256x256", response_format: "b64_json" });
  t.same(
    fake.requests.slice(before).map((r) => r.json?.model),
    ["fail-500", "dall-e-2"],
    "higher priority first, then the next",
  );
  t.ok(Buffer.from(res.data![0]!.b64_json!, "base64").equals(fake.png));
});

interface Expect {
  model: string;
  status: number;
  type: string;
  code: string | null;
  param?: string | null;
  retryAfter?: string;
}
const errors: Expect[] = [
  { model: "fail-500", status: 503, type: "server_error", code: "upstream_error" },
  { model: "rate", status: 429, type: "requests", code: "rate_limit_exceeded", retryAfter: "7" },
  { model: "quota", status: 429, type: "insufficient_quota", code: "insufficient_quota" },
  { model: "auth", status: 500, type: "server_error", code: null },
  { model: "bad-size", status: 400, type: "invalid_request_error", code: "invalid_value", param: "size" },
  { model: "moderated", status: 400, type: "image_generation_user_error", code: "moderation_blocked" },
  { model: "garbage", status: 503, type: "server_error", code: "upstream_bad_response" },
  { model: "no-model", status: 404, type: "invalid_request_error", code: "model_not_found", param: "model" },
  { model: "broken-url", status: 503, type: "server_error", code: "upstream_error" },
  { model: "down", status: 503, type: "server_error", code: "upstream_unreachable" },
];
for (const e of errors) {
  t.test(`upstream failure ${e.model} -> ${e.status} ${e.code}`, async (t) => {
    const err = await client.images.generate({ model: e.model, prompt: "x", size: "256x256" }).catch((x) => x);
    t.ok(err instanceof OpenAI.APIError);
    t.equal(err.status, e.status);
    t.equal(err.type, e.type);
    t.equal(err.code, e.code);
    t.equal(err.param, e.param ?? null);
    if (e.retryAfter) t.equal(err.headers.get("retry-after"), e.retryAfter);
    t.notMatch(err.message, UPSTREAM_KEY, "never leaks the upstream key");
    t.notMatch(err.message, /Incorrect API key|internal note|Rate limit reached/, "nor upstream text");
  });
}

t.test("a 400 whose message, type, param and code are upstream strings: the client sees only the gateway's words", async (t) => {
  const cases: Array<[string, string | null]> = [
    ["leaky", null],
    ["leaky-size", "size"],
  ];
  for (const [model, param] of cases) {
    const res = await fetch(server.baseUrl + "/v1/images/generations", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ model, prompt: "x", size: "256x256" }),
    });
    const text = await res.text();
    t.equal(res.status, 400, model);
    t.same(
      JSON.parse(text),
      { error: { message: JSON.parse(text).error.message, type: "invalid_request_error", param, code: "upstream_invalid_request" } },
      `${model}: the gateway's own code, a param only when it is a known field`,
    );
    t.notMatch(text, UPSTREAM_MARKER, `${model}: no upstream string in the body`);
    t.notMatch(JSON.stringify([...res.headers]), UPSTREAM_MARKER, `${model}: nor in the headers`);
  }
});
