// The error table of the generate-content edge (pure).
import t from "tap";
import { Code } from "@connectrpc/connect";
import { z } from "zod";
import { coreError } from "../../../src/core/errors.js";
import { fromConnectError, fromFastifyError, fromZodError, toWireError, wireField } from "../../../src/facades/generate-content/errors.js";

const TABLE: [Code, number, string][] = [
  [Code.InvalidArgument, 400, "INVALID_ARGUMENT"],
  [Code.FailedPrecondition, 400, "FAILED_PRECONDITION"],
  [Code.OutOfRange, 400, "OUT_OF_RANGE"],
  [Code.Unauthenticated, 401, "UNAUTHENTICATED"],
  [Code.PermissionDenied, 403, "PERMISSION_DENIED"],
  [Code.NotFound, 404, "NOT_FOUND"],
  [Code.AlreadyExists, 409, "ALREADY_EXISTS"],
  [Code.Aborted, 409, "ABORTED"],
  [Code.ResourceExhausted, 429, "RESOURCE_EXHAUSTED"],
  [Code.Canceled, 499, "CANCELLED"],
  [Code.Internal, 500, "INTERNAL"],
  [Code.Unknown, 500, "UNKNOWN"],
  [Code.DataLoss, 500, "DATA_LOSS"],
  [Code.Unimplemented, 501, "UNIMPLEMENTED"],
  [Code.Unavailable, 503, "UNAVAILABLE"],
  [Code.DeadlineExceeded, 504, "DEADLINE_EXCEEDED"],
];

for (const [code, http, status] of TABLE) {
  const w = fromConnectError(coreError(code, "boom", { reason: "some_reason" }));
  t.equal(w.httpStatus, http, `${Code[code]} -> ${http}`);
  t.same(w.body.error, {
    code: http,
    message: "boom",
    status,
    details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "SOME_REASON", domain: "omnigate", metadata: {} }],
  });
}

t.test("INVALID_ARGUMENT names the field in this wire's words", async (t) => {
  const w = fromConnectError(coreError(Code.InvalidArgument, "config.max_output_tokens: must be at least 1", { field: "config.max_output_tokens", reason: "invalid_field" }));
  t.equal(w.body.error.message, "generationConfig.maxOutputTokens: must be at least 1");
  t.same(w.body.error.details[0], {
    "@type": "type.googleapis.com/google.rpc.BadRequest",
    fieldViolations: [{ field: "generationConfig.maxOutputTokens", description: "must be at least 1" }],
  });
});

t.test("retry info and the retry-after header", async (t) => {
  const w = fromConnectError(coreError(Code.ResourceExhausted, "slow down", { reason: "rate_limited", retryAfterMs: 2500 }));
  t.equal(w.headers["retry-after"], "3");
  t.same(w.body.error.details.at(-1), { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "3s" });
  t.equal(fromConnectError(coreError(Code.Unauthenticated, "bad key", { reason: "invalid_api_key" })).body.error.details[0]!.reason, "API_KEY_INVALID");
});

const FIELDS: [string, string][] = [
  ["turns[2].parts[0].signature", "contents[2].parts[0].thoughtSignature"],
  ["system[0]", "systemInstruction[0]"],
  ["config.temperature", "generationConfig.temperature"],
  ["config.thinking.budget_tokens", "generationConfig.thinkingConfig.thinkingBudget"],
  ["config.candidate_count", "generationConfig.candidateCount"],
  ["tool_choice", "toolConfig.functionCallingConfig"],
  ["cached_content", "cachedContent"],
  ["page_token", "pageToken"],
  ["ttl_seconds", "ttl"],
  ["cached_content.expire_time", "cachedContent.expireTime"],
  ["contents[0].parts[1].inlineData", "contents[0].parts[1].inlineData"],
  ["input.model", "model"],
];
for (const [core, want] of FIELDS) t.equal(wireField(core), want, `field ${core}`);

t.test("zod failures become field violations", async (t) => {
  const schema = z.object({ a: z.object({ b: z.array(z.number()) }), c: z.enum(["X"]) });
  const r = schema.safeParse({ a: { b: [1, "two"] }, c: "Y" }, { reportInput: true });
  t.notOk(r.success);
  const w = fromZodError(r.error!);
  t.equal(w.httpStatus, 400);
  t.equal(w.body.error.status, "INVALID_ARGUMENT");
  const v = (w.body.error.details[0] as { fieldViolations: { field: string; description: string }[] }).fieldViolations;
  t.same(
    v.map((x) => x.field),
    ["a.b[1]", "c"],
  );
  t.match(v[1]!.description, /"Y".*X/);
  t.match(w.body.error.message, /^\* GenerateContentRequest\.a\.b\[1\]: /);
});

t.test("zod type errors name both types with the right article, in protobuf's words", async (t) => {
  const schema = z.object({
    l: z.array(z.string()).optional(),
    o: z.object({}).optional(),
    r: z.record(z.string(), z.number()).optional(),
    i: z.number().int().optional(),
    s: z.string().optional(),
    b: z.boolean().optional(),
  });
  const described = (v: unknown) => {
    // As the facade parses a body that failed: again, with the input in the issues.
    const r = schema.safeParse(v, { reportInput: true });
    return (fromZodError(r.error!).body.error.details[0] as { fieldViolations: { description: string }[] }).fieldViolations[0]!.description;
  };
  t.equal(described({ l: 5 }), "Invalid value (number), expected a list");
  t.equal(described({ o: [] }), "Invalid value (list), expected an object");
  t.equal(described({ r: "x" }), "Invalid value (string), expected an object");
  t.equal(described({ i: "x" }), "Invalid value (string), expected a number");
  t.equal(described({ i: 1.5 }), "Invalid value (number), expected an integer");
  t.equal(described({ s: null }), "Invalid value (null), expected a string");
  t.equal(described({ b: {} }), "Invalid value (object), expected a boolean");
});

t.test("fastify errors", async (t) => {
  t.equal(fromFastifyError({ code: "FST_ERR_CTP_BODY_TOO_LARGE", statusCode: 413, message: "too large" }, 100)?.body.error.status, "PAYLOAD_TOO_LARGE");
  t.equal(fromFastifyError({ code: "FST_ERR_CTP_BODY_TOO_LARGE", statusCode: 413, message: "too large" }, 100)?.httpStatus, 413);
  t.equal(fromFastifyError({ code: "FST_ERR_CTP_INVALID_JSON_BODY", statusCode: 400, message: "bad" }, 100)?.body.error.status, "INVALID_ARGUMENT");
  t.equal(fromFastifyError({ code: "FST_ERR_CTP_INVALID_MEDIA_TYPE", statusCode: 415, message: "type" }, 100)?.httpStatus, 400);
  t.equal(fromFastifyError({ message: "other" }, 100), undefined);
  const w = toWireError(new Error("secret upstream text"), 100);
  t.equal(w.httpStatus, 500);
  t.notMatch(w.body.error.message, /secret/, "unknown errors do not leak");
});
