// The one pixel limit of client images: the function at its boundary, and a
// decompression bomb (a valid 8000x8000 PNG, about 200 KB on the wire) refused
// from its header by every surface that takes images, in the surface's own
// error shape: image-bot envelopes, /v1/images edits and variations (image
// and mask), and video references (multipart file and data URL).
import t from "tap";
import sharp from "sharp";
import { create } from "@bufbuild/protobuf";
import { InputFileSchema } from "../../gen/omnigate/common/v1/common_pb.js";
import { checkImage } from "../../src/core/image-bot/image-input.js";
import { MAX_INPUT_PIXELS, PIXEL_LIMIT_TEXT, withinPixelLimit } from "../../src/core/pixel-limit.js";
import { sniffImage } from "../../src/core/video/reference.js";
import { ADMIN_KEY, startServer } from "../helpers/app.js";

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: "#fff" } })
    .png({ compressionLevel: 9 })
    .toBuffer();
const bomb = await png(8000, 8000);
const dataUrl = (b: Buffer) => `data:image/png;base64,${b.toString("base64")}`;
const auth = { authorization: `Bearer ${ADMIN_KEY}` };

t.test("the limit: exactly MAX_INPUT_PIXELS passes, one pixel more does not", async (t) => {
  t.equal(MAX_INPUT_PIXELS, 40_000_000);
  t.equal(PIXEL_LIMIT_TEXT, "40 megapixels");
  t.equal(withinPixelLimit(MAX_INPUT_PIXELS, 1), true);
  t.equal(withinPixelLimit(MAX_INPUT_PIXELS + 1, 1), false);
  t.equal(withinPixelLimit(8000, 5000), true, "8000x5000 is exactly the limit");
  t.equal(withinPixelLimit(6000, 6000), true, "36 MP");
  t.equal(withinPixelLimit(8192, 8192), false);
});

t.test("checkImage and sniffImage read the header: 8000x5000 passes, 8000x5001 does not", async (t) => {
  const [atLimit, over] = await Promise.all([png(8000, 5000), png(8000, 5001)]);
  const file = (data: Buffer) => create(InputFileSchema, { mimeType: "image/png", source: { case: "data", value: data } });
  t.match(await checkImage(file(atLimit), "base64"), { width: 8000, height: 5000, mimeType: "image/png" });
  await t.rejects(checkImage(file(over), "base64"), { message: "[invalid_argument] base64: the image is 8000x5001 pixels; at most 40 megapixels are accepted" });
  t.equal(await sniffImage(atLimit), "image/png");
  await t.rejects(sniffImage(over), { message: "[invalid_argument] The reference image is 8000x5001 pixels; at most 40 megapixels are accepted." });
});

t.test("a bomb on every surface: the surface's own invalid-image error", async (t) => {
  const s = await startServer({ config: { local: { taskMs: 50, chunkDelayMs: 0 }, imageBot: { tileSize: 32 } } as never });
  t.teardown(() => s.close());
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${s.baseUrl}${path}`, {
      method: "POST",
      headers: { ...auth, ...(body instanceof FormData ? {} : { "content-type": "application/json" }) },
      body: body instanceof FormData ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const small = await png(64, 64);
  const bombText = (field: string) => `${field}: the image is 8000x8000 pixels; at most 40 megapixels are accepted`;

  t.test("image bot: face swap (both paths), imagine, blend, describe", async (t) => {
    const rows: [string, unknown, string][] = [
      ["/mj/insight-face/swap", { sourceBase64: dataUrl(bomb), targetBase64: dataUrl(bomb) }, "sourceBase64"],
      ["/ib/face-service/swap", { sourceBase64: dataUrl(small), targetBase64: dataUrl(bomb) }, "targetBase64"],
      ["/ib/submit/imagine", { prompt: "x", base64Array: [dataUrl(bomb)] }, "base64Array[0]"],
      ["/ib/submit/blend", { base64Array: [dataUrl(small), dataUrl(bomb)] }, "base64Array[1]"],
      ["/ib/submit/describe", { base64: dataUrl(bomb) }, "base64"],
    ];
    for (const [path, body, field] of rows) {
      t.same(await post(path, body), { status: 400, body: { code: 21, description: bombText(field), properties: {}, result: null } }, path);
    }
    const list = await fetch(`${s.baseUrl}/ib/task/list`, { headers: auth });
    t.same(await list.json(), [], "no task was created");
  });

  t.test("/v1/images edits (image, mask) and variations: OpenAI's 400", async (t) => {
    const form = (fields: Record<string, string>, files: Record<string, Buffer>) => {
      const f = new FormData();
      for (const [k, v] of Object.entries(fields)) f.append(k, v);
      for (const [k, v] of Object.entries(files)) f.append(k, new Blob([v], { type: "image/png" }), `${k}.png`);
      return f;
    };
    const refused = (param: string) => ({
      status: 400,
      body: { error: { message: `Invalid file '${param}.png': 8000x8000 exceeds the maximum of ${MAX_INPUT_PIXELS} pixels.`, type: "invalid_request_error", param, code: "invalid_image_size" } },
    });
    t.same(await post("/v1/images/edits", form({ model: "gpt-image-1", prompt: "x" }, { image: bomb })), refused("image"), "edit image");
    t.same(await post("/v1/images/edits", form({ model: "gpt-image-1", prompt: "x" }, { image: small, mask: bomb })), refused("mask"), "edit mask");
    t.same(await post("/v1/images/variations", form({ model: "dall-e-2" }, { image: bomb })), refused("image"), "variation");
  });

  t.test("video references: the video error, as a file and as a data URL", async (t) => {
    const f = new FormData();
    f.append("prompt", "x");
    f.append("size", "160x90");
    f.append("seconds", "1");
    f.append("input_reference", new Blob([bomb], { type: "image/png" }), "ref.png");
    const message = "The reference image is 8000x8000 pixels; at most 40 megapixels are accepted.";
    t.same(await post("/v1/videos", f), { status: 400, body: { error: { message, type: "invalid_request_error", param: "input_reference", code: "invalid_image" } } });
    const json = await post("/v1/video/generations", { prompt: "x", image: dataUrl(bomb) });
    t.match(json, { status: 400, body: { code: "invalid_image", message } });
  });
});
