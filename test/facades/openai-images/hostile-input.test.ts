// Hostile input on /v1/images that once gave 500s: prompts with characters XML
// cannot hold (the local engine sets the prompt as SVG text) and image files
// whose header reads but whose pixels do not decode. Each gets a 200 with an
// image, or a 400 in OpenAI's error shape naming the file's field.
import t, { type Test } from "tap";
import sharp from "sharp";
import { ADMIN_KEY, makeMask, makePng, startImages } from "./helpers.js";

const env = await startImages();
t.teardown(() => env.server.close());
const base = env.server.baseUrl;
const auth = { authorization: `Bearer ${ADMIN_KEY}` };

const PROMPTS: Array<[string, string]> = [
  ["U+0001", "\\u0001"],
  ["NUL", "\\u0000"],
  ["U+001F", "\\u001f"],
  ["U+FFFF", "\\uffff"],
];

/** The PNG with one byte of its IHDR chunk's CRC flipped: metadata reads it, decoding fails. */
function badIhdrCrc(png: Buffer): Buffer {
  const out = Buffer.from(png);
  // Signature (8), then IHDR: length 13, type, 13 data bytes, CRC at 29.
  t.same([out.readUInt32BE(8), out.toString("latin1", 12, 16)], [13, "IHDR"], "the CRC being broken is IHDR's");
  out[29] = out[29]! ^ 0xff;
  return out;
}

/** The PNG cut short inside its image data. */
const truncated = (png: Buffer) => png.subarray(0, Math.floor(png.length * 0.6));

async function form(path: string, fields: Record<string, string>, files: Array<[string, Buffer, string]>) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const [k, bytes, name] of files) fd.append(k, new Blob([bytes], { type: "image/png" }), name);
  const res = await fetch(base + path, { method: "POST", headers: auth, body: fd });
  return { status: res.status, body: (await res.json()) as any };
}

async function isImage(t: Test, b64: string | undefined) {
  t.type(b64, "string");
  const meta = await sharp(Buffer.from(b64 ?? "", "base64")).metadata();
  t.equal(meta.format, "png");
}

function isInvalidImage(t: Test, r: { status: number; body: any }, param: string) {
  t.equal(r.status, 400, "400");
  t.same(Object.keys(r.body.error).sort(), ["code", "message", "param", "type"], "OpenAI's error shape");
  t.match(r.body.error, { type: "invalid_request_error", param, code: "invalid_image_format", message: /corrupt/ });
  t.notMatch(r.body.error.message, /CRC|libpng|vips|sharp/i, "no library text");
}

for (const [name, escaped] of PROMPTS) {
  t.test(`generations: a prompt with ${name} renders`, async (t) => {
    const res = await fetch(base + "/v1/images/generations", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: `{"model":"dall-e-2","prompt":"a${escaped}b","size":"256x256","response_format":"b64_json"}`,
    });
    t.equal(res.status, 200);
    await isImage(t, ((await res.json()) as any).data?.[0]?.b64_json);
  });
}

t.test("generations: a prompt with half a surrogate pair is a 400 naming it (the neutral model cannot hold it)", async (t) => {
  const res = await fetch(base + "/v1/images/generations", {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: `{"model":"dall-e-2","prompt":"a\\ud800b","size":"256x256","response_format":"b64_json"}`,
  });
  t.equal(res.status, 400);
  t.match(await res.json(), { error: { type: "invalid_request_error", message: /\$\.prompt holds an unpaired UTF-16 surrogate/ } });
});

t.test("edits: a prompt with control characters renders", async (t) => {
  const image = await makePng(256, 256, { hole: true });
  for (const c of ["\u0001", "\u0000", "\u001f", "\uffff"]) {
    const r = await form("/v1/images/edits", { model: "dall-e-2", prompt: `a${c}b`, size: "256x256", response_format: "b64_json" }, [["image", image, "i.png"]]);
    t.equal(r.status, 200, JSON.stringify(c));
    await isImage(t, r.body.data?.[0]?.b64_json);
  }
});

t.test("edits: an image or a mask whose IHDR CRC is wrong is a 400 naming it", async (t) => {
  const image = await makePng(256, 256);
  const mask = await makeMask(256, 256, { x0: 0, y0: 0, x1: 64, y1: 64 });
  const fields = { model: "dall-e-2", prompt: "a sun", size: "256x256" };
  isInvalidImage(
    t,
    await form("/v1/images/edits", fields, [
      ["image", badIhdrCrc(image), "bad.png"],
      ["mask", mask, "m.png"],
    ]),
    "image",
  );
  isInvalidImage(
    t,
    await form("/v1/images/edits", fields, [
      ["image", image, "i.png"],
      ["mask", badIhdrCrc(mask), "bad.png"],
    ]),
    "mask",
  );
  const gpt = { model: "gpt-image-1", prompt: "a sun", quality: "low" };
  isInvalidImage(
    t,
    await form("/v1/images/edits", gpt, [
      ["image[]", image, "a.png"],
      ["image[]", badIhdrCrc(image), "b.png"],
    ]),
    "image",
  );
});

t.test("edits without a mask: an image cut short is a 400 where its transparency is read", async (t) => {
  const image = await makePng(256, 256, { hole: true });
  isInvalidImage(t, await form("/v1/images/edits", { model: "dall-e-2", prompt: "a sun", size: "256x256" }, [["image", truncated(image), "cut.png"]]), "image");
  isInvalidImage(t, await form("/v1/images/edits", { model: "dall-e-2", prompt: "a sun", size: "256x256" }, [["image", badIhdrCrc(image), "bad.png"]]), "image");
});

t.test("variations: an image whose IHDR CRC is wrong is a 400", async (t) => {
  const image = await makePng(256, 256);
  isInvalidImage(t, await form("/v1/images/variations", { model: "dall-e-2", size: "256x256" }, [["image", badIhdrCrc(image), "bad.png"]]), "image");
  isInvalidImage(t, await form("/v1/images/variations", { model: "dall-e-2", size: "256x256" }, [["image", truncated(image), "cut.png"]]), "image");
});
