// Pure translation to and from the OpenAI Images API, and the error table.
import t from "tap";
import { Code } from "@connectrpc/connect";
import { errorDetail, retryAfterSeconds } from "../../../src/core/errors.js";
import { fromStreamError, fromTransportError, fromVendorError, retryAfterMs } from "../../../src/providers/openai-images/errors.js";
import { addUsage, fromVendorImages, fromVendorUsage, toVendorForm, toVendorGenerate } from "../../../src/providers/openai-images/translate.js";
import type { ImageJob } from "../../../src/core/ports.js";
import { imageStreamEvent, imagesResponse } from "../../../src/providers/openai-images/wire.js";

const given: ImageJob["given"] = { size: "", quality: "", style: "", outputFormat: "", background: "", moderation: "", inputFidelity: "", responseFormat: "", user: "" };
const job = (over: Partial<ImageJob>): ImageJob => ({
  operation: "generate",
  profile: "IMG_MODEL_C",
  prompt: "p",
  images: [],
  n: 1,
  width: 1024,
  height: 1024,
  quality: "high",
  style: "",
  outputFormat: "png",
  background: "opaque",
  given,
  ...over,
});
const img = (name: string) => ({ data: new Uint8Array([1, 2]), mimeType: "image/png", filename: name, format: "png", width: 2, height: 1 });

t.test("toVendorGenerate sends only what the client set", async (t) => {
  t.same(toVendorGenerate(job({}), "gpt-image-1"), { model: "gpt-image-1", prompt: "p", n: 1 });
  t.same(
    toVendorGenerate(job({ n: 3, given: { ...given, size: "auto", quality: "low", outputFormat: "webp", background: "transparent", outputCompression: 0, moderation: "low", user: "u1" } }), "m"),
    { model: "m", prompt: "p", n: 3, size: "auto", quality: "low", output_format: "webp", background: "transparent", output_compression: 0, moderation: "low", user: "u1" },
  );
  t.same(
    toVendorGenerate(job({ profile: "IMG_MODEL_B", given: { ...given, style: "natural", responseFormat: "url" } }), "dall-e-3"),
    {
      model: "dall-e-3",
      prompt: "p",
      n: 1,
      style: "natural",
      response_format: "b64_json",
    },
    "older models are always asked for b64_json",
  );
});

t.test("toVendorForm: image vs image[], mask last, no prompt for variations", async (t) => {
  const one = toVendorForm(job({ operation: "edit", profile: "IMG_MODEL_A", images: [img("a.png")] }), "dall-e-2");
  t.same(
    one.files.map((f) => [f.field, f.filename]),
    [["image", "a.png"]],
  );
  t.same(one.fields, [
    ["model", "dall-e-2"],
    ["prompt", "p"],
    ["n", "1"],
    ["response_format", "b64_json"],
  ]);
  const two = toVendorForm(job({ operation: "edit", images: [img("a.png"), img("b.png")], mask: img("m.png"), given: { ...given, inputFidelity: "low" } }), "gpt-image-1");
  t.same(
    two.files.map((f) => [f.field, f.filename]),
    [
      ["image[]", "a.png"],
      ["image[]", "b.png"],
      ["mask", "m.png"],
    ],
  );
  t.same(two.fields, [
    ["model", "gpt-image-1"],
    ["prompt", "p"],
    ["n", "1"],
    ["input_fidelity", "low"],
  ]);
  const v = toVendorForm(job({ operation: "variation", profile: "IMG_MODEL_A", prompt: "", images: [img("v.png")], n: 2 }), "dall-e-2");
  t.same(v.fields, [
    ["model", "dall-e-2"],
    ["n", "2"],
    ["response_format", "b64_json"],
  ]);
});

t.test("fromVendorImages", async (t) => {
  const parsed = imagesResponse.parse({
    created: 5,
    data: [{ b64_json: "AAA", revised_prompt: "r" }, { url: "http://x/y.png", revised_prompt: "" }, { b64_json: null }],
    usage: { input_tokens: 3, output_tokens: 4, input_tokens_details: { text_tokens: 2, image_tokens: 1 } },
    extra: true,
  });
  const out = fromVendorImages(parsed);
  t.same(out.images, [
    { b64: "AAA", url: undefined, revisedPrompt: "r" },
    { b64: undefined, url: "http://x/y.png", revisedPrompt: undefined },
    { b64: undefined, url: undefined, revisedPrompt: undefined },
  ]);
  t.equal(out.usage?.totalTokens, 7n, "total derived when missing");
  t.equal(out.usage?.inputTokensDetails?.imageTokens, 1n);
  t.equal(out.usage?.outputTokensDetails, undefined);
  t.equal(fromVendorImages(imagesResponse.parse({ data: [] })).usage, undefined);
});

t.test("error table", async (t) => {
  const body = (code: string | number | null, param: string | null = null, message = "upstream words sk-123") => ({ error: { message, type: "x", param, code } });
  const rows: Array<[number, unknown, Record<string, string>, Code, string, string, string | undefined]> = [
    [400, body("invalid_value", "size"), {}, Code.InvalidArgument, "invalid_value", "size", "invalid_value"],
    [400, body("weird code!", "bad param!"), {}, Code.InvalidArgument, "upstream_invalid_request", "", undefined],
    [400, body("safe_looking_code", "safe_looking_param"), {}, Code.InvalidArgument, "upstream_invalid_request", "", undefined],
    [400, body("unsupported_parameter", "image[]"), {}, Code.InvalidArgument, "unsupported_parameter", "image", "unsupported_parameter"],
    [400, body(7, "toString"), {}, Code.InvalidArgument, "upstream_invalid_request", "", undefined],
    [400, body("moderation_blocked"), {}, Code.InvalidArgument, "moderation_blocked", "", "moderation_blocked"],
    [400, body("content_policy_violation"), {}, Code.InvalidArgument, "moderation_blocked", "", "moderation_blocked"],
    [400, "not json", {}, Code.InvalidArgument, "upstream_invalid_request", "", undefined],
    [401, body("invalid_api_key"), {}, Code.Internal, "upstream_auth", "", undefined],
    [403, body(null), {}, Code.Internal, "upstream_auth", "", undefined],
    [404, body("model_not_found"), {}, Code.NotFound, "model_not_found", "model", "model_not_found"],
    [408, body(null), {}, Code.Unavailable, "upstream_error", "", undefined],
    [429, body("rate_limit_exceeded"), { "retry-after": "3" }, Code.ResourceExhausted, "rate_limited", "", "rate_limit_exceeded"],
    [429, body("insufficient_quota"), {}, Code.ResourceExhausted, "upstream_quota", "", "insufficient_quota"],
    [500, body(null), {}, Code.Unavailable, "upstream_error", "", undefined],
    [503, undefined, {}, Code.Unavailable, "upstream_error", "", undefined],
    [302, undefined, {}, Code.Unknown, "upstream_error", "", undefined],
  ];
  for (const [status, b, headers, code, reason, field, metaCode] of rows) {
    const e = fromVendorError(status, headers, b, "ch", 0);
    const d = errorDetail(e)!;
    t.equal(e.code, code, `${status} code`);
    t.equal(d.reason, reason, `${status} reason`);
    t.equal(d.field, field, `${status} field`);
    t.equal(d.metadata.code, metaCode, `${status} metadata.code`);
    t.equal(d.metadata.channel, "ch");
    t.notMatch(e.message, /sk-123|upstream words|safe_looking|toString/, "no upstream text");
  }
  t.equal(retryAfterSeconds(fromVendorError(429, { "retry-after": "3" }, undefined, "ch", 0)), 3);
});

t.test("retry-after parsing", async (t) => {
  t.equal(retryAfterMs({ "retry-after-ms": "1500", "retry-after": "9" }, 0), 1500);
  t.equal(retryAfterMs({ "retry-after": "2" }, 0), 2000);
  t.equal(retryAfterMs({ "retry-after": ["4", "5"] }, 0), 4000);
  t.equal(retryAfterMs({ "retry-after": new Date(10_000).toUTCString() }, 4000), 6000);
  t.equal(retryAfterMs({ "retry-after": "soon" }, 0), undefined);
  t.equal(retryAfterMs({}, 0), undefined);
});

t.test("transport errors", async (t) => {
  t.equal(fromTransportError(Object.assign(new Error("x"), { code: "UND_ERR_HEADERS_TIMEOUT" }), "c").code, Code.DeadlineExceeded);
  t.equal(fromTransportError(Object.assign(new Error("x"), { name: "AbortError" }), "c").code, Code.Canceled);
  t.equal(fromTransportError(Object.assign(new Error("x"), { code: "ECONNREFUSED" }), "c").code, Code.Unavailable);
  const ce = fromVendorError(500, {}, undefined, "c", 0);
  t.equal(fromTransportError(ce, "c"), ce, "ConnectErrors pass through");
});

t.test("a streamed job adds stream and partial_images", async (t) => {
  t.same(toVendorGenerate(job({ partialImages: 0 }), "gpt-image-1"), { model: "gpt-image-1", prompt: "p", n: 1, partial_images: 0, stream: true });
  const form = toVendorForm(job({ operation: "edit", images: [img("a.png")], partialImages: 2 }), "gpt-image-1");
  t.same(form.fields, [
    ["model", "gpt-image-1"],
    ["prompt", "p"],
    ["n", "1"],
    ["partial_images", "2"],
    ["stream", "true"],
  ]);
});

t.test("usage of several completed events adds up", async (t) => {
  const a = fromVendorUsage({ input_tokens: 5, output_tokens: 40, total_tokens: 45, input_tokens_details: { text_tokens: 3, image_tokens: 2 } });
  const b = fromVendorUsage({ input_tokens: 0, output_tokens: 40, output_tokens_details: { text_tokens: 0, image_tokens: 40 } });
  const sum = addUsage(a, b)!;
  t.match(sum, { inputTokens: 5n, outputTokens: 80n, totalTokens: 85n, inputTokensDetails: { textTokens: 3n, imageTokens: 2n }, outputTokensDetails: { textTokens: 0n, imageTokens: 40n } });
  t.equal(addUsage(undefined, b), b);
  t.equal(addUsage(a, undefined), a);
  t.equal(addUsage(a, fromVendorUsage({ input_tokens: 1, output_tokens: 1 }))!.outputTokensDetails, undefined, "no details on either side: none");
});

t.test("error events in a stream", async (t) => {
  const moderated = fromStreamError({ type: "error", error: { code: "moderation_blocked", message: "no sk-123" } }, "ch");
  t.equal(moderated.code, Code.InvalidArgument);
  t.match(errorDetail(moderated), { reason: "moderation_blocked", metadata: { code: "moderation_blocked", channel: "ch" } });
  const flat = fromStreamError({ type: "error", code: "content_policy_violation", message: "x" }, "ch");
  t.equal(errorDetail(flat)?.reason, "moderation_blocked", "the error's fields at the top level");
  for (const body of [{ error: { code: "server_error", message: "upstream words sk-123" } }, undefined, "text", { error: "flat string" }]) {
    const e = fromStreamError(body, "ch");
    t.equal(e.code, Code.Unavailable);
    t.equal(errorDetail(e)?.reason, "upstream_error");
    t.notMatch(e.message, /sk-123|upstream words/);
  }
});

t.test("a partial image's index the neutral model cannot hold reads as absent", async (t) => {
  for (const bad of [1.5, -1, 2 ** 31, "1"]) t.equal(imageStreamEvent.parse({ type: "image_generation.partial_image", partial_image_index: bad }).partial_image_index, undefined, String(bad));
  t.equal(imageStreamEvent.parse({ type: "image_generation.partial_image", partial_image_index: 2 }).partial_image_index, 2);
});
