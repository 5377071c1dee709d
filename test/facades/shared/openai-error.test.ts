// The OpenAI error table of Chat Completions and Responses: core errors and fastify's body errors ->
// status, OpenAI's body and the retry headers.
import t from "tap";
import { Code, coreError } from "../../../src/core/errors.js";
import { INVALID_JSON, SERVER_ERROR, toWireError } from "../../../src/facades/shared/openai-error.js";

t.test("core errors", async (t) => {
  const rows: [unknown, number, Record<string, unknown>, Record<string, string>?][] = [
    [coreError(Code.Unauthenticated, "missing API key"), 401, { code: "invalid_api_key", message: /^You didn't provide/ }],
    [coreError(Code.Unauthenticated, "bad key"), 401, { code: "invalid_api_key", message: /^Incorrect API key/ }],
    [coreError(Code.PermissionDenied, "this API key may not use the openai-responses interface", { reason: "format_not_allowed" }), 403, { code: "format_not_allowed" }],
    [coreError(Code.NotFound, "no such file", { reason: "not_found", field: "turns[0].parts[0].source" }), 404, { code: null, param: "input[0].content[0].file_id" }],
    [
      coreError(Code.ResourceExhausted, "slow down", { reason: "rate_limited", retryAfterMs: 2500 }),
      429,
      { type: "requests", code: "rate_limit_exceeded" },
      { "retry-after": "3", "retry-after-ms": "3000" },
    ],
    [coreError(Code.ResourceExhausted, "no credit", { reason: "insufficient_quota" }), 429, { type: "insufficient_quota", code: "insufficient_quota" }],
    [coreError(Code.Unavailable, "", { reason: "overloaded", retryAfterMs: 1000 }), 503, { type: "server_error", message: SERVER_ERROR, code: "overloaded" }, { "retry-after": "1" }],
    [coreError(Code.DeadlineExceeded, "too slow"), 504, { type: "server_error", message: "too slow" }],
    [
      coreError(Code.InvalidArgument, "anthropic cannot do logprobs", { reason: "unsupported_by_upstream", field: "config.response_logprobs" }),
      400,
      { code: "unsupported_parameter", param: "include" },
    ],
    [coreError(Code.InvalidArgument, "too big", { reason: "request_too_large" }), 413, { code: "request_too_large" }],
    [coreError(Code.Internal, "secret detail"), 500, { type: "server_error", message: SERVER_ERROR }],
    [coreError(Code.Unknown, "secret detail"), 500, { message: SERVER_ERROR }],
  ];
  const clientField = (f: string) => (f === "turns[0].parts[0].source" ? "input[0].content[0].file_id" : f === "config.response_logprobs" ? "include" : f);
  for (const [err, status, body, headers] of rows) {
    const w = toWireError(err, { model: "m", clientField });
    t.equal(w.status, status, (err as Error).message);
    t.match(w.body.error, body);
    if (headers) t.match(w.headers, headers);
  }
  const nf = toWireError(coreError(Code.NotFound, "x", { reason: "model_not_found" }), { model: "gpt-x" });
  t.same(nf.body.error, { message: "The model `gpt-x` does not exist or you do not have access to it.", type: "invalid_request_error", param: null, code: "model_not_found" });
});

t.test("fastify's body errors and anything else", async (t) => {
  const tooLarge = Object.assign(new Error("x"), { code: "FST_ERR_CTP_BODY_TOO_LARGE", statusCode: 413 });
  t.match(toWireError(tooLarge), { status: 413, body: { error: { code: "request_too_large" } } });
  const depth = Object.assign(new Error("JSON nested more than 100 levels"), { code: "FST_ERR_CTP_INVALID_JSON_BODY" });
  t.match(toWireError(depth).body.error.message, `${INVALID_JSON} JSON nested more than 100 levels`);
  const plain = Object.assign(new Error("x"), { name: "FastifyError", code: "FST_ERR_CTP_INVALID_JSON_BODY" });
  t.equal(toWireError(plain).body.error.message, INVALID_JSON);
  t.match(toWireError(Object.assign(new Error("x"), { code: "FST_ERR_CTP_EMPTY_JSON_BODY" })), { status: 400 });
  t.match(toWireError(new SyntaxError("bad")), { status: 400 });
  t.match(toWireError({ statusCode: 413 }), { status: 413 });
  t.match(toWireError({ statusCode: 415 }), { status: 400 });
  t.match(toWireError(new Error("boom")), { status: 500, body: { error: { message: SERVER_ERROR } } });
  t.match(toWireError(undefined), { status: 500 });
});
