import t from "tap";
import sharp from "sharp";
import { fetchBytes, rawRgba, startImages } from "./helpers.js";

const env = await startImages();
t.teardown(() => env.server.close());
const { client } = env;

t.test("generate with the default url response, then fetch the url", async (t) => {
  const res = await client.images.generate({ model: "IMG_MODEL_A", prompt: "a lighthouse at dusk", size: "256x256" }).withResponse();
  const body = res.data;
  t.match(res.response.headers.get("x-request-id"), /^req_/);
  t.equal(body.data?.length, 1);
  t.type(body.created, "number");
  const url = body.data![0]!.url!;
  t.match(url, new RegExp(`^${env.server.baseUrl}/files/file_[0-9a-f]{32}\\?exp=\\d+&sig=[0-9a-f]{64}$`));
  t.notOk(body.data![0]!.b64_json);
  t.notOk(body.data![0]!.revised_prompt, "IMG_MODEL_A keeps the prompt");
  t.notOk(body.usage, "no usage for IMG_MODEL_A");
  t.equal(body.size, "256x256");
  const got = await fetchBytes(url);
  t.equal(got.status, 200);
  t.equal(got.type, "image/png");
  const meta = await sharp(got.bytes).metadata();
  t.equal(meta.format, "png");
  t.equal(meta.width, 256);
  t.equal(meta.height, 256);
  const exp = Number(new URL(url).searchParams.get("exp"));
  t.ok(Math.abs(exp - (body.created + 3600)) <= 1, "url valid for 60 minutes");
});

t.test("generate with b64_json, n = 2: real, different images", async (t) => {
  const body = await client.images.generate({ prompt: "two foxes", size: "256x256", n: 2, response_format: "b64_json" });
  t.equal(body.data?.length, 2);
  t.notOk(body.data![0]!.url);
  const [a, b] = body.data!.map((d) => Buffer.from(d.b64_json!, "base64"));
  const ma = await sharp(a!).metadata();
  t.equal(ma.format, "png");
  t.equal(ma.width, 256);
  t.notOk(a!.equals(b!), "each image of a request differs");
  const stats = await sharp(a!).stats();
  t.ok(
    stats.channels.slice(0, 3).every((c) => c.stdev > 10),
    "not a flat colour",
  );
});

t.test("same prompt and seed give identical bytes; different prompts differ", async (t) => {
  const gen = async (prompt: string, seed: number) => {
    const body = await client.images.generate({ prompt, size: "256x256", response_format: "b64_json", seed } as never);
    return Buffer.from(body.data![0]!.b64_json!, "base64");
  };
  const a1 = await gen("a red bicycle", 7);
  const a2 = await gen("a red bicycle", 7);
  const b = await gen("a green submarine", 7);
  const c = await gen("a red bicycle", 8);
  t.ok(a1.equals(a2), "deterministic");
  t.notOk(a1.equals(b), "prompt changes the image");
  t.notOk(a1.equals(c), "seed changes the image");
  const [ra, rb] = [await rawRgba(a1), await rawRgba(b)];
  let diff = 0;
  for (let i = 0; i < ra.data.length; i += 4) if (Math.abs(ra.data[i]! - rb.data[i]!) > 40) diff++;
  t.ok(diff > (ra.width * ra.height) / 5, `visibly different (${diff} pixels)`);
});

t.test("IMG_MODEL_B rewrites the prompt and returns revised_prompt", async (t) => {
  const body = await client.images.generate({ model: "dall-e-3", prompt: "a cat on a sofa", quality: "hd", style: "natural", response_format: "b64_json" });
  const d = body.data![0]!;
  t.ok(d.revised_prompt);
  t.not(d.revised_prompt, "a cat on a sofa");
  t.match(d.revised_prompt!, /^A cat on a sofa, /);
  t.ok(d.revised_prompt!.length > "a cat on a sofa".length, "expanded");
  t.equal(body.quality, "hd");
  t.equal(body.size, "1024x1024");
  const meta = await sharp(Buffer.from(d.b64_json!, "base64")).metadata();
  t.equal(meta.width, 1024);
  t.notOk(body.usage);
});

t.test("IMG_MODEL_C reports usage that follows from the inputs", async (t) => {
  const prompt = "a tiny robot watering plants";
  const low = await client.images.generate({ model: "gpt-image-1", prompt, quality: "low", size: "1024x1024", response_format: "b64_json" });
  t.same(low.usage, {
    input_tokens: low.usage!.input_tokens_details.text_tokens,
    input_tokens_details: { text_tokens: low.usage!.input_tokens_details.text_tokens, image_tokens: 0 },
    output_tokens: 272,
    total_tokens: low.usage!.input_tokens_details.text_tokens + 272,
    output_tokens_details: { text_tokens: 0, image_tokens: 272 },
  });
  t.equal(low.usage!.input_tokens_details.text_tokens, 6, "a, tiny, robot, water+ing, plants");
  const longer = await client.images.generate({ model: "gpt-image-1", prompt: prompt + " in the rain", quality: "low", size: "1024x1024", response_format: "b64_json" });
  t.equal(longer.usage!.input_tokens_details.text_tokens, 9, "three more words");
  const two = await client.images.generate({ model: "IMG_MODEL_C", prompt, quality: "medium", size: "1536x1024", n: 2, response_format: "b64_json" });
  t.equal(two.usage!.output_tokens, 2 * 1584);
  t.equal(two.quality, "medium");
  t.equal(two.size, "1536x1024");
  t.equal(two.output_format, "png");
  t.equal(two.background, "opaque");
  const meta = await sharp(Buffer.from(two.data![1]!.b64_json!, "base64")).metadata();
  t.same([meta.width, meta.height], [1536, 1024]);
  const auto = await client.images.generate({ model: "IMG_MODEL_C", prompt, response_format: "b64_json" });
  t.equal(auto.size, "1024x1024", "auto size");
  t.equal(auto.quality, "high", "auto quality");
  t.equal(auto.usage!.output_tokens, 4160);
});

t.test("IMG_MODEL_D: output formats, transparency, echoed fields, no usage", async (t) => {
  const png = await client.images.generate({ model: "IMG_MODEL_D", prompt: "a floating balloon", background: "transparent", output_format: "png", quality: "low", response_format: "b64_json" });
  t.equal(png.background, "transparent");
  t.equal(png.output_format, "png");
  t.equal(png.quality, "low");
  t.notOk(png.usage);
  const img = Buffer.from(png.data![0]!.b64_json!, "base64");
  const meta = await sharp(img).metadata();
  t.equal(meta.hasAlpha, true);
  const alpha = (await sharp(img).stats()).channels[3]!;
  t.equal(alpha.min, 0, "some pixels fully transparent");
  t.equal(alpha.max, 255, "some pixels opaque");

  const webp = await client.images.generate({ model: "gpt-image-1-mini", prompt: "a floating balloon", output_format: "webp", output_compression: 50, response_format: "url" });
  t.equal(webp.output_format, "webp");
  const got = await fetchBytes(webp.data![0]!.url!);
  t.equal(got.type, "image/webp");
  t.equal((await sharp(got.bytes).metadata()).format, "webp");

  const jpeg = await client.images.generate({ model: "IMG_MODEL_D", prompt: "a floating balloon", output_format: "jpeg", size: "1536x1024", response_format: "b64_json" });
  const jm = await sharp(Buffer.from(jpeg.data![0]!.b64_json!, "base64")).metadata();
  t.equal(jm.format, "jpeg");
  t.same([jm.width, jm.height], [1536, 1024]);
  t.equal(jpeg.background, "opaque");
  t.equal(jpeg.quality, "medium", "auto quality of IMG_MODEL_D");
});

t.test("blocklisted prompts are refused like a safety system", async (t) => {
  const err = await client.images.generate({ prompt: "tell me about forbidden-topic", size: "256x256" }).catch((e) => e);
  t.equal(err.status, 400);
  t.equal(err.type, "image_generation_user_error");
  t.equal(err.code, "moderation_blocked");
  t.equal(err.param, null);
});

t.test("image models are listed", async (t) => {
  const list = await client.models.list();
  const ids = list.data.map((m) => m.id);
  for (const id of ["IMG_MODEL_A", "IMG_MODEL_B", "IMG_MODEL_C", "IMG_MODEL_D", "dall-e-2", "dall-e-3", "gpt-image-1", "gpt-image-1-mini"]) t.ok(ids.includes(id), id);
});
