// Pure facade pieces: wire -> core requests, core batch -> wire, zod issues
// and ConnectErrors -> the OpenAI error shape.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ImageBatchSchema, ResponseFormat } from "../../../gen/omnigate/image/v1/image_pb.js";
import { coreError } from "../../../src/core/errors.js";
import { fromConnectError } from "../../../src/facades/openai-images/errors.js";
import { typedFields } from "../../../src/facades/openai-images/multipart.js";
import { fromCoreBatch, toCoreEdit, toCoreGenerate, toCoreVariation } from "../../../src/facades/openai-images/translate.js";
import * as wire from "../../../src/facades/openai-images/wire.js";

t.test("toCoreGenerate", async (t) => {
  const r = toCoreGenerate(wire.generationsBody.parse({ prompt: "p", model: "m", n: 2, size: "256x256", response_format: "b64_json", output_compression: 0, seed: 9, style: null, user: "u" }));
  t.equal(r.prompt, "p");
  t.match(r.options, { model: "m", n: 2, size: "256x256", responseFormat: ResponseFormat.B64_JSON, outputCompression: 0, seed: 9n, style: "", user: "u" });
  const d = toCoreGenerate(wire.generationsBody.parse({ prompt: "p" }));
  t.match(d.options, { model: "", n: 0, responseFormat: ResponseFormat.UNSPECIFIED, outputCompression: undefined, seed: undefined });
  t.equal(toCoreGenerate(wire.generationsBody.parse({ prompt: "p", response_format: "url" })).options?.responseFormat, ResponseFormat.URL);
});

t.test("toCoreEdit / toCoreVariation keep image order and the mask", async (t) => {
  const f = (name: string) => ({ field: "image[]", filename: name, mimeType: "image/png", data: new Uint8Array([1]) });
  const e = toCoreEdit(wire.editFields.parse({ prompt: "p", input_fidelity: "high" }), [f("a"), f("b")], { ...f("m"), field: "mask" });
  t.same(
    e.images.map((i) => i.filename),
    ["a", "b"],
  );
  t.equal(e.mask?.filename, "m");
  t.equal(e.mask?.source.case, "data");
  t.equal(e.options?.inputFidelity, "high");
  t.equal(toCoreEdit(wire.editFields.parse({ prompt: "p" }), [f("a")], undefined).mask, undefined);
  const v = toCoreVariation(wire.variationFields.parse({ n: 3 }), f("v"));
  t.equal(v.image?.filename, "v");
  t.equal(v.options?.n, 3);
});

t.test("typedFields", async (t) => {
  t.same(typedFields({ n: "2", output_compression: " 50 ", seed: "1.5", stream: "true", prompt: "7", x: "abc", partial_images: "two" }, wire.NUMERIC_FIELDS, wire.BOOLEAN_FIELDS), {
    n: 2,
    output_compression: 50,
    seed: 1.5,
    stream: true,
    prompt: "7",
    x: "abc",
    partial_images: "two",
  });
});

t.test("fromCoreBatch", async (t) => {
  const batch = create(ImageBatchSchema, {
    created: 1700000000n,
    images: [{ file: { url: "http://gw/files/f?exp=1&sig=a" }, revisedPrompt: "rp" }, { file: { data: new Uint8Array([104, 105]) } }],
    usage: { inputTokens: 3n, outputTokens: 4n, totalTokens: 7n, inputTokensDetails: { textTokens: 2n, imageTokens: 1n } },
    outputFormat: "png",
    size: "1024x1024",
    quality: "high",
    background: "opaque",
    model: "IMG_MODEL_C",
    channel: "local",
  });
  t.same(fromCoreBatch(batch), {
    created: 1700000000,
    data: [{ url: "http://gw/files/f?exp=1&sig=a", revised_prompt: "rp" }, { b64_json: "aGk=" }],
    background: "opaque",
    output_format: "png",
    quality: "high",
    size: "1024x1024",
    usage: { input_tokens: 3, input_tokens_details: { text_tokens: 2, image_tokens: 1 }, output_tokens: 4, total_tokens: 7 },
  });
  t.same(fromCoreBatch(create(ImageBatchSchema, { created: 5n })), { created: 5, data: [] }, "no optional fields when unset");
  t.same(fromCoreBatch(undefined), { created: 0, data: [] });
});

t.test("describeIssue", async (t) => {
  const d = (body: unknown, schema: { safeParse: (v: unknown) => { error?: unknown } } = wire.generationsBody) => wire.describeIssue(schema.safeParse(body).error as never, body);
  t.same(d({}), { type: "invalid_request_error", message: "Missing required parameter: 'prompt'.", param: "prompt", code: "missing_required_parameter" });
  t.same(d({ prompt: "p", n: 1.5 }), { type: "invalid_request_error", message: "Invalid type for 'n': expected an integer, but got a decimal number instead.", param: "n", code: "invalid_type" });
  t.same(d({ prompt: "p", n: "2" }).code, "invalid_type");
  t.same(d({ prompt: ["p"] }).message, "Invalid type for 'prompt': expected a string, but got an array instead.");
  t.same(d({ prompt: "p", n: 0 }), {
    type: "invalid_request_error",
    message: "Invalid 'n': integer below minimum value. Expected a value >= 1, but got 0 instead.",
    param: "n",
    code: "integer_below_min_value",
  });
  t.same(d({ prompt: "p", response_format: "png" }), {
    type: "invalid_request_error",
    message: "Invalid value: 'png'. Supported values are: 'url' and 'b64_json'.",
    param: "response_format",
    code: "invalid_value",
  });
  t.same(d({ prompt: "p", foo: 1, n: 0 }).code, "integer_below_min_value", "a real problem wins over an unknown key");
  t.same(d({ prompt: "p", foo: 1 }), { type: "invalid_request_error", message: "Unknown parameter: 'foo'.", param: "foo", code: "unknown_parameter" });
  t.same(d("text"), { type: "invalid_request_error", message: "The request body must be a JSON object.", param: null, code: "invalid_type" });
  t.same(d({ image: "x" }, wire.variationFields).param, "image");
});

t.test("ConnectError -> OpenAI error table", async (t) => {
  const rows: Array<[ConnectError, number, string, string | null, string | null, Record<string, string>?]> = [
    [coreError(Code.InvalidArgument, "bad size", { field: "size", reason: "invalid_value", metadata: { code: "invalid_value" } }), 400, "invalid_request_error", "size", "invalid_value"],
    [coreError(Code.InvalidArgument, "generic", { field: "x", reason: "invalid_field" }), 400, "invalid_request_error", "x", null],
    [coreError(Code.InvalidArgument, "no", { reason: "moderation_blocked" }), 400, "image_generation_user_error", null, "moderation_blocked"],
    [coreError(Code.Unauthenticated, "missing API key", { reason: "invalid_api_key" }), 401, "invalid_request_error", null, "invalid_api_key"],
    [coreError(Code.PermissionDenied, "no", { reason: "format_not_allowed" }), 403, "invalid_request_error", null, "format_not_allowed"],
    [coreError(Code.PermissionDenied, "no", { reason: "permission_denied" }), 403, "invalid_request_error", null, null],
    [coreError(Code.NotFound, "no", { reason: "model_not_found", field: "model", metadata: { code: "model_not_found" } }), 404, "invalid_request_error", "model", "model_not_found"],
    [coreError(Code.ResourceExhausted, "slow", { reason: "rate_limited", retryAfterMs: 2500 }), 429, "requests", null, "rate_limit_exceeded", { "retry-after": "3", "retry-after-ms": "3000" }],
    [coreError(Code.ResourceExhausted, "broke", { reason: "budget_exhausted", metadata: { code: "insufficient_quota" } }), 429, "insufficient_quota", null, "insufficient_quota"],
    [coreError(Code.Unavailable, "down", { reason: "upstream_error" }), 503, "server_error", null, "upstream_error"],
    [coreError(Code.DeadlineExceeded, "slow", { reason: "upstream_timeout" }), 504, "server_error", null, "upstream_timeout"],
    [new ConnectError("secret internals", Code.Internal), 500, "server_error", null, null],
  ];
  for (const [err, status, type, param, code, headers] of rows) {
    const w = fromConnectError(err);
    t.equal(w.status, status, `${err.rawMessage} status`);
    t.equal(w.body.error.type, type, "type");
    t.equal(w.body.error.param, param, "param");
    t.equal(w.body.error.code, code, "code");
    t.same(w.headers, headers ?? {}, "headers");
  }
  t.notMatch(fromConnectError(new ConnectError("secret internals", Code.Internal)).body.error.message, /secret/);
});
