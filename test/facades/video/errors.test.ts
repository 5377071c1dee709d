// The error tables of both video wires.
import t from "tap";
import { Code, ConnectError } from "@connectrpc/connect";
import { coreError, invalidArgument, notFound, permissionDenied, unauthenticated } from "../../../src/core/errors.js";
import { errorBody, facadeError, fromConnectError, toErrorFields } from "../../../src/facades/video/errors.js";
import { GENERATIONS_PARAMS, OPENAI_PARAMS } from "../../../src/facades/video/translate.js";

t.test("ConnectError -> status, type, code and the wire's param name", async (t) => {
  const cases: Array<[ConnectError, number, string, string | null, string | null]> = [
    [invalidArgument("bad", "duration", "invalid_value"), 400, "invalid_request_error", "invalid_value", "seconds"],
    [coreError(Code.FailedPrecondition, "not ready", { reason: "video_not_ready", field: "id" }), 400, "invalid_request_error", "video_not_ready", "video_id"],
    [unauthenticated("invalid API key"), 401, "authentication_error", "invalid_api_key", null],
    [permissionDenied("no", "format_not_allowed"), 403, "permission_error", "format_not_allowed", null],
    [notFound("gone", "video_not_found"), 404, "not_found_error", "video_not_found", null],
    [coreError(Code.ResourceExhausted, "slow down", { reason: "rate_limited", retryAfterMs: 2000 }), 429, "rate_limit_error", "rate_limited", null],
    [coreError(Code.Internal, "secret upstream text"), 500, "server_error", null, null],
    [new ConnectError("boom", Code.Unknown), 500, "server_error", null, null],
  ];
  for (const [err, status, type, code, param] of cases) {
    const e = fromConnectError(err, OPENAI_PARAMS);
    t.same([e.status, e.type, e.code, e.param], [status, type, code, param], err.rawMessage);
    if (status === 500) t.notMatch(e.message, /secret/, "internal text stays inside");
  }
  t.same(fromConnectError(coreError(Code.ResourceExhausted, "x", { retryAfterMs: 2000 }), {}).headers, { "retry-after": "2", "retry-after-ms": "2000" });
  t.equal(fromConnectError(invalidArgument("bad", "input_reference"), GENERATIONS_PARAMS).param, "image");
});

t.test("bodies: flat with string param for generations, wrapped for OpenAI", async (t) => {
  const e = fromConnectError(notFound("Video with id 'x' not found.", "video_not_found"), GENERATIONS_PARAMS);
  t.same(errorBody("generations", e), { code: "video_not_found", message: "Video with id 'x' not found.", param: "", type: "not_found_error" });
  t.same(errorBody("openai", e), { error: { message: "Video with id 'x' not found.", type: "not_found_error", param: null, code: "video_not_found" } });
  const internal = fromConnectError(coreError(Code.Internal, "x"), {});
  t.same(errorBody("generations", internal), { code: null, message: "The server had an error while processing your request.", param: "", type: "server_error" });
});

t.test("fastify errors and facade errors", async (t) => {
  t.equal(toErrorFields(Object.assign(new Error("x"), { code: "FST_ERR_CTP_INVALID_JSON_BODY", statusCode: 400 }), {}).code, "invalid_json");
  t.equal(toErrorFields(Object.assign(new Error("x"), { code: "FST_ERR_CTP_BODY_TOO_LARGE", statusCode: 413 }), {}).status, 413);
  t.equal(toErrorFields(Object.assign(new Error("x"), { code: "FST_ERR_CTP_INVALID_MEDIA_TYPE", statusCode: 415 }), {}).status, 415);
  t.equal(toErrorFields(facadeError(400, "m", "p", "c"), {}).param, "p");
  t.same(toErrorFields(new TypeError("oops"), {}).status, 500);
});
