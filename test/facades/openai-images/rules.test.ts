// Every rule of spec 4.2 and 8, broken once, with the exact status, param and
// code the OpenAI SDK sees.
import { randomBytes } from "node:crypto";
import t from "tap";
import sharp from "sharp";
import type OpenAI from "openai";
import { file, makeMask, makePng, startImages } from "./helpers.js";

const env = await startImages();
t.teardown(() => env.server.close());
const { client } = env;

const MB = 1024 * 1024;
const square = await makePng(64, 64, { hole: true });
const opaque = await makePng(64, 64, { alpha: false });
const rect = await makePng(64, 32, { hole: true });
const jpeg = await sharp(opaque).jpeg().toBuffer();
const gif = await sharp(opaque).gif().toBuffer();
const mask = await makeMask(64, 64, { x0: 0, y0: 0, x1: 32, y1: 32 });
const wrongMask = await makeMask(32, 32, { x0: 0, y0: 0, x1: 16, y1: 16 });
const maskNoAlpha = await makePng(64, 64, { alpha: false });
const over4 = randomBytes(4 * MB + 10);
const over25 = randomBytes(25 * MB + 10);
const long = (n: number) => "x".repeat(n);

type Client = OpenAI;
interface Rule {
  name: string;
  call: (c: Client) => Promise<unknown>;
  param: string | null;
  code: string;
  status?: number;
}

const gen = (body: Record<string, unknown>) => (c: Client) => c.images.generate({ prompt: "a cat", size: "256x256", ...body } as never);
const edit = async (body: Record<string, unknown>) => {
  const files = { image: await file(square, "square.png") };
  return (c: Client) => c.images.edit({ prompt: "a hat", ...files, ...body } as never);
};
const vary = (body: Record<string, unknown>) => async (c: Client) => c.images.createVariation({ image: await file(square, "square.png"), ...body } as never);

const rules: Rule[] = [
  // generations
  { name: "prompt is required", call: (c) => c.images.generate({ size: "256x256" } as never), param: "prompt", code: "missing_required_parameter" },
  { name: "IMG_MODEL_A prompt at most 1000", call: gen({ prompt: long(1001) }), param: "prompt", code: "string_above_max_length" },
  { name: "IMG_MODEL_B prompt at most 4000", call: gen({ model: "IMG_MODEL_B", size: "1024x1024", prompt: long(4001) }), param: "prompt", code: "string_above_max_length" },
  { name: "IMG_MODEL_C prompt at most 32000", call: gen({ model: "IMG_MODEL_C", size: "1024x1024", prompt: long(32001) }), param: "prompt", code: "string_above_max_length" },
  { name: "n at most 10", call: gen({ n: 11 }), param: "n", code: "integer_above_max_value" },
  { name: "n at least 1", call: gen({ n: 0 }), param: "n", code: "integer_below_min_value" },
  { name: "n is an integer", call: gen({ n: 1.5 }), param: "n", code: "invalid_type" },
  { name: "IMG_MODEL_B supports only n = 1", call: gen({ model: "dall-e-3", size: "1024x1024", n: 2 }), param: "n", code: "integer_above_max_value" },
  { name: "IMG_MODEL_D n at most 8", call: gen({ model: "IMG_MODEL_D", size: "1024x1024", n: 9 }), param: "n", code: "integer_above_max_value" },
  { name: "IMG_MODEL_A sizes", call: gen({ size: "1792x1024" }), param: "size", code: "invalid_value" },
  { name: "IMG_MODEL_B sizes", call: gen({ model: "IMG_MODEL_B", size: "512x512" }), param: "size", code: "invalid_value" },
  { name: "IMG_MODEL_C sizes", call: gen({ model: "IMG_MODEL_C", size: "256x256" }), param: "size", code: "invalid_value" },
  { name: "IMG_MODEL_D sizes", call: gen({ model: "IMG_MODEL_D", size: "1024x1536" }), param: "size", code: "invalid_value" },
  { name: "only IMG_MODEL_B has hd quality", call: gen({ quality: "hd" }), param: "quality", code: "invalid_value" },
  { name: "IMG_MODEL_B quality standard or hd", call: gen({ model: "IMG_MODEL_B", size: "1024x1024", quality: "low" }), param: "quality", code: "invalid_value" },
  { name: "IMG_MODEL_D quality low, medium, high", call: gen({ model: "IMG_MODEL_D", size: "1024x1024", quality: "hd" }), param: "quality", code: "invalid_value" },
  { name: "only IMG_MODEL_B has style", call: gen({ style: "vivid" }), param: "style", code: "unsupported_parameter" },
  { name: "style vivid or natural", call: gen({ model: "IMG_MODEL_B", size: "1024x1024", style: "bold" }), param: "style", code: "invalid_value" },
  { name: "response_format url or b64_json", call: gen({ response_format: "png" }), param: "response_format", code: "invalid_value" },
  { name: "IMG_MODEL_D output_format png, jpeg, webp", call: gen({ model: "IMG_MODEL_D", size: "1024x1024", output_format: "gif" }), param: "output_format", code: "invalid_value" },
  { name: "IMG_MODEL_A has no output_format", call: gen({ output_format: "png" }), param: "output_format", code: "unsupported_parameter" },
  { name: "IMG_MODEL_D background auto, transparent, opaque", call: gen({ model: "IMG_MODEL_D", size: "1024x1024", background: "white" }), param: "background", code: "invalid_value" },
  { name: "transparent background needs png", call: gen({ model: "IMG_MODEL_D", size: "1024x1024", background: "transparent", output_format: "jpeg" }), param: "background", code: "invalid_value" },
  {
    name: "output_compression at most 100",
    call: gen({ model: "IMG_MODEL_D", size: "1024x1024", output_format: "jpeg", output_compression: 101 }),
    param: "output_compression",
    code: "integer_above_max_value",
  },
  { name: "unknown model", call: gen({ model: "no-such-model" }), param: "model", code: "invalid_value" },
  { name: "unknown parameter", call: gen({ colour: "red" }), param: "colour", code: "unknown_parameter" },
  { name: "prompt is a string", call: gen({ prompt: 42 }), param: "prompt", code: "invalid_type" },
  { name: "IMG_MODEL_A does not stream", call: gen({ stream: true }), param: "stream", code: "unsupported_value" },
  { name: "IMG_MODEL_B does not stream", call: gen({ model: "dall-e-3", size: "1024x1024", stream: true }), param: "stream", code: "unsupported_value" },
  { name: "partial_images at most 3", call: gen({ model: "gpt-image-1", size: "1024x1024", stream: true, partial_images: 4 }), param: "partial_images", code: "integer_above_max_value" },
  { name: "partial_images at least 0", call: gen({ model: "gpt-image-1", size: "1024x1024", stream: true, partial_images: -1 }), param: "partial_images", code: "integer_below_min_value" },
  { name: "a stream carries b64_json only", call: gen({ model: "gpt-image-1-mini", size: "1024x1024", stream: true, response_format: "url" }), param: "response_format", code: "invalid_value" },
  // edits
  { name: "edits support IMG_MODEL_A and IMG_MODEL_C only", call: await edit({ model: "dall-e-3" }), param: "model", code: "invalid_value" },
  { name: "edit image is required", call: (c) => c.images.edit({ prompt: "a hat" } as never), param: "image", code: "missing_required_parameter" },
  { name: "edit prompt is required", call: async (c) => c.images.edit({ image: await file(square, "a.png") } as never), param: "prompt", code: "missing_required_parameter" },
  { name: "IMG_MODEL_A edit prompt at most 1000", call: await edit({ prompt: long(1001) }), param: "prompt", code: "string_above_max_length" },
  { name: "IMG_MODEL_C edit prompt at most 32000", call: await edit({ model: "IMG_MODEL_C", prompt: long(32001) }), param: "prompt", code: "string_above_max_length" },
  { name: "IMG_MODEL_A image must be PNG", call: await edit({ model: "dall-e-2", image: await file(jpeg, "a.jpg", "image/jpeg") }), param: "image", code: "invalid_image_format" },
  { name: "IMG_MODEL_A image must be a valid PNG", call: await edit({ model: "dall-e-2", image: await file(randomBytes(300), "junk.png") }), param: "image", code: "invalid_image_format" },
  {
    name: "IMG_MODEL_A image under 4MB (model part first: refused while streaming)",
    call: async (c) => c.images.edit({ model: "dall-e-2", prompt: "x", image: await file(over4, "big.png") }),
    param: "image",
    code: "invalid_image_size",
  },
  {
    name: "IMG_MODEL_A image under 4MB (image part first: refused by the core)",
    call: async (c) => c.images.edit({ image: await file(over4, "big.png"), prompt: "x", model: "dall-e-2" }),
    param: "image",
    code: "invalid_image_size",
  },
  { name: "IMG_MODEL_A image must be square", call: await edit({ image: await file(rect, "rect.png") }), param: "image", code: "image_not_square" },
  { name: "IMG_MODEL_A without mask needs transparency", call: await edit({ image: await file(opaque, "opaque.png") }), param: "image", code: "image_not_transparent" },
  {
    name: "IMG_MODEL_A takes one image",
    call: async (c) => c.images.edit({ model: "dall-e-2", prompt: "x", image: [await file(square, "a.png"), await file(square, "b.png")] }),
    param: "image",
    code: "too_many_images",
  },
  { name: "IMG_MODEL_C images PNG, WEBP or JPG", call: await edit({ model: "gpt-image-1", image: await file(gif, "a.gif", "image/gif") }), param: "image", code: "invalid_image_format" },
  { name: "IMG_MODEL_C images under 25MB", call: await edit({ model: "gpt-image-1", image: await file(over25, "huge.png") }), param: "image", code: "invalid_image_size" },
  {
    name: "IMG_MODEL_C at most 16 images",
    call: async (c) => c.images.edit({ model: "gpt-image-1", prompt: "x", image: await Promise.all(Array.from({ length: 17 }, (_, i) => file(opaque, `${i}.png`))) }),
    param: "image",
    code: "too_many_images",
  },
  { name: "mask must match the image's dimensions", call: await edit({ mask: await file(wrongMask, "mask.png") }), param: "mask", code: "invalid_mask_size" },
  { name: "mask must be PNG", call: await edit({ mask: await file(jpeg, "mask.jpg", "image/jpeg") }), param: "mask", code: "invalid_image_format" },
  { name: "mask under 4MB", call: await edit({ mask: await file(over4, "mask.png") }), param: "mask", code: "invalid_image_size" },
  { name: "mask needs an alpha channel", call: await edit({ mask: await file(maskNoAlpha, "mask.png") }), param: "mask", code: "invalid_mask_format" },
  { name: "IMG_MODEL_A edit sizes", call: await edit({ model: "dall-e-2", size: "1024x1536" }), param: "size", code: "invalid_value" },
  { name: "IMG_MODEL_A edit quality standard only", call: await edit({ model: "dall-e-2", quality: "high" }), param: "quality", code: "invalid_value" },
  { name: "IMG_MODEL_C edit quality high, medium, low", call: await edit({ model: "gpt-image-1", quality: "hd" }), param: "quality", code: "invalid_value" },
  { name: "input_fidelity is IMG_MODEL_C only", call: await edit({ model: "dall-e-2", input_fidelity: "high" }), param: "input_fidelity", code: "unsupported_parameter" },
  { name: "edit n at most 10", call: await edit({ n: 11 }), param: "n", code: "integer_above_max_value" },
  { name: "IMG_MODEL_A edits do not stream", call: await edit({ model: "dall-e-2", stream: true }), param: "stream", code: "unsupported_value" },
  { name: "edit partial_images at most 3", call: await edit({ model: "gpt-image-1", stream: true, partial_images: 9 }), param: "partial_images", code: "integer_above_max_value" },
  // variations
  { name: "variations are IMG_MODEL_A only", call: vary({ model: "gpt-image-1" }), param: "model", code: "invalid_value" },
  { name: "variation image is required", call: (c) => c.images.createVariation({} as never), param: "image", code: "missing_required_parameter" },
  { name: "variation image must be PNG", call: async (c) => c.images.createVariation({ image: await file(jpeg, "a.jpg", "image/jpeg") }), param: "image", code: "invalid_image_format" },
  { name: "variation image must be square", call: async (c) => c.images.createVariation({ image: await file(rect, "rect.png") }), param: "image", code: "image_not_square" },
  { name: "variation image under 4MB", call: async (c) => c.images.createVariation({ image: await file(over4, "big.png") }), param: "image", code: "invalid_image_size" },
  { name: "variation n at most 10", call: vary({ n: 11 }), param: "n", code: "integer_above_max_value" },
  { name: "variation sizes", call: vary({ size: "1536x1024" }), param: "size", code: "invalid_value" },
];

for (const r of rules) {
  t.test(r.name, async (t) => {
    const err = await r.call(client).then(
      () => undefined,
      (e: unknown) => e as { status: number; param: string | null; code: string | null; type: string; message: string },
    );
    t.ok(err, "refused");
    if (!err) return;
    t.equal(err.status, r.status ?? 400, "status");
    t.equal(err.type, "invalid_request_error", "type");
    t.equal(err.param, r.param, "param");
    t.equal(err.code, r.code, "code");
    t.match(err.message, /^\d{3} \S/, "message");
  });
}

t.test("OpenAI-style messages", async (t) => {
  const size = await gen({ size: "512x513" })(client).catch((e) => e);
  t.equal(size.message, "400 Invalid value: '512x513'. Supported values are: '256x256', '512x512', and '1024x1024'.");
  const prompt = await gen({ prompt: long(1001) })(client).catch((e) => e);
  t.equal(prompt.message, "400 Invalid 'prompt': string too long. Expected a string with maximum length 1000, but got a string with length 1001 instead.");
  const n = await gen({ model: "IMG_MODEL_B", size: "1024x1024", n: 3 })(client).catch((e) => e);
  t.equal(n.message, "400 Invalid 'n': integer above maximum value. Expected a value <= 1, but got 3 instead.");
});

t.test("limits are inclusive: the largest allowed values pass", async (t) => {
  const ok = await client.images.generate({ prompt: long(1000), size: "256x256", n: 1, response_format: "b64_json" });
  t.equal(ok.data?.length, 1);
  const edited = await client.images.edit({ prompt: long(1000), image: await file(square, "a.png"), mask: await file(mask, "m.png"), size: "256x256", response_format: "b64_json" });
  t.equal(edited.data?.length, 1);
});
