// Failures at the edge: auth, malformed bodies, wrong content types, unknown
// routes, oversize uploads - all in the OpenAI error shape.
import { randomBytes } from "node:crypto";
import t, { type Test } from "tap";
import OpenAI from "openai";
import { ADMIN_KEY, makePng, startImages } from "./helpers.js";

const env = await startImages();
t.teardown(() => env.server.close());
const base = env.server.baseUrl;
const auth = { authorization: `Bearer ${ADMIN_KEY}` };

async function call(path: string, init: RequestInit) {
  const res = await fetch(base + path, init);
  const text = await res.text();
  let body: { error?: { message: string; type: string; param: string | null; code: string | null } } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // asserted below
  }
  return { status: res.status, type: res.headers.get("content-type"), requestId: res.headers.get("x-request-id"), body, text };
}

function isOpenAIError(t: Test, r: Awaited<ReturnType<typeof call>>, status: number, code: string | null, param: string | null = null) {
  t.equal(r.status, status, "status");
  t.match(r.type, /^application\/json/, "json");
  t.ok(r.body.error, "error object");
  t.type(r.body.error?.message, "string");
  t.type(r.body.error?.type, "string");
  t.equal(r.body.error?.code, code, "code");
  t.equal(r.body.error?.param, param, "param");
  t.match(r.requestId, /^req_/, "x-request-id");
}

t.test("missing key -> 401 invalid_api_key, before the body is read", async (t) => {
  const r = await call("/v1/images/generations", { method: "POST", headers: { "content-type": "application/json" }, body: '{"prompt":"x"}' });
  isOpenAIError(t, r, 401, "invalid_api_key");
  const m = await call("/v1/images/edits", { method: "POST", body: new FormData() });
  isOpenAIError(t, m, 401, "invalid_api_key");
});

t.test("wrong key -> 401 through the SDK", async (t) => {
  const bad = new OpenAI({ apiKey: "sk-nope-0000000000", baseURL: base + "/v1", maxRetries: 0 });
  const err = await bad.images.generate({ prompt: "x", size: "256x256" }).catch((e) => e);
  t.ok(err instanceof OpenAI.AuthenticationError);
  t.equal(err.status, 401);
  t.equal(err.code, "invalid_api_key");
  t.match(err.requestID, /^req_/);
});

t.test("malformed JSON and non-object bodies", async (t) => {
  const headers = { ...auth, "content-type": "application/json" };
  isOpenAIError(t, await call("/v1/images/generations", { method: "POST", headers, body: '{"prompt": "x",' }), 400, "invalid_json");
  isOpenAIError(t, await call("/v1/images/generations", { method: "POST", headers, body: "" }), 400, "invalid_json");
  isOpenAIError(t, await call("/v1/images/generations", { method: "POST", headers, body: "[1,2]" }), 400, "invalid_type");
  isOpenAIError(t, await call("/v1/images/generations", { method: "POST", headers, body: "null" }), 400, "invalid_type");
});

t.test("wrong content types", async (t) => {
  isOpenAIError(t, await call("/v1/images/generations", { method: "POST", headers: { ...auth, "content-type": "text/plain" }, body: "a cat" }), 415, "invalid_content_type");
  isOpenAIError(
    t,
    await call("/v1/images/generations", {
      method: "POST",
      headers: auth,
      body: (() => {
        const f = new FormData();
        f.append("prompt", "x");
        return f;
      })(),
    }),
    400,
    "invalid_content_type",
  );
  isOpenAIError(t, await call("/v1/images/edits", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: '{"prompt":"x"}' }), 400, "invalid_content_type");
  isOpenAIError(
    t,
    await call("/v1/images/edits", {
      method: "POST",
      headers: { ...auth, "content-type": "multipart/form-data; boundary=XYZ" },
      body: '--XYZ\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nunterminated',
    }),
    400,
    "invalid_multipart",
  );
});

t.test("unknown routes and methods under /v1/images", async (t) => {
  const r = await call("/v1/images/nope", { method: "POST", headers: auth });
  isOpenAIError(t, r, 404, "unknown_url");
  t.equal(r.body.error?.message, "Invalid URL (POST /v1/images/nope)");
  isOpenAIError(t, await call("/v1/images/generations", { method: "GET", headers: auth }), 404, "unknown_url");
});

t.test("oversize upload without a model: refused at the 25 MB cap in the OpenAI shape", async (t) => {
  const form = new FormData();
  form.append("image", new Blob([randomBytes(26 * 1024 * 1024)], { type: "image/png" }), "huge.png");
  form.append("prompt", "x");
  isOpenAIError(t, await call("/v1/images/edits", { method: "POST", headers: auth, body: form }), 400, "invalid_image_size", "image");
  // The server is still fine afterwards.
  const ok = await env.client.images.edit({ image: new File([await makePng(64, 64, { hole: true })], "a.png", { type: "image/png" }), prompt: "x", size: "256x256", response_format: "b64_json" });
  t.equal(ok.data?.length, 1);
});

t.test("variations refuse a second file", async (t) => {
  const png = await makePng(64, 64);
  const form = new FormData();
  form.append("image", new Blob([png], { type: "image/png" }), "a.png");
  form.append("image", new Blob([png], { type: "image/png" }), "b.png");
  isOpenAIError(t, await call("/v1/images/variations", { method: "POST", headers: auth, body: form }), 400, "too_many_images", "image");
  const form2 = new FormData();
  form2.append("image", new Blob([png], { type: "image/png" }), "a.png");
  form2.append("mask", new Blob([png], { type: "image/png" }), "m.png");
  isOpenAIError(t, await call("/v1/images/variations", { method: "POST", headers: auth, body: form2 }), 400, "too_many_images", "image");
  const form3 = new FormData();
  form3.append("image", new Blob([png], { type: "image/png" }), "a.png");
  form3.append("prompt", "x");
  isOpenAIError(t, await call("/v1/images/variations", { method: "POST", headers: auth, body: form3 }), 400, "unknown_parameter", "prompt");
});
