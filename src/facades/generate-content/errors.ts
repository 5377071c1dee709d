// Errors at the generate-content edge: google.rpc.Status bodies
// `{"error":{"code","message","status","details"}}` (spec 7.5). One table maps
// Connect codes to HTTP statuses and Google status names; INVALID_ARGUMENT
// carries a google.rpc.BadRequest naming the field, errors with a reason an
// ErrorInfo, and retryable ones a RetryInfo.
import { Code, ConnectError } from "@connectrpc/connect";
import type { z } from "zod";
import { durationMs } from "@bufbuild/protobuf/wkt";
import { coreError, errorDetail, retryAfterSeconds } from "../../core/errors.js";
import { originField, type Origin } from "./contents.js";

const TYPE = "type.googleapis.com/google.rpc.";
export const ERROR_DOMAIN = "omnigate";

/** Connect code -> [HTTP status, google.rpc.Code name]. */
const TABLE: Record<Code, [number, string]> = {
  [Code.Canceled]: [499, "CANCELLED"],
  [Code.Unknown]: [500, "UNKNOWN"],
  [Code.InvalidArgument]: [400, "INVALID_ARGUMENT"],
  [Code.DeadlineExceeded]: [504, "DEADLINE_EXCEEDED"],
  [Code.NotFound]: [404, "NOT_FOUND"],
  [Code.AlreadyExists]: [409, "ALREADY_EXISTS"],
  [Code.PermissionDenied]: [403, "PERMISSION_DENIED"],
  [Code.ResourceExhausted]: [429, "RESOURCE_EXHAUSTED"],
  [Code.FailedPrecondition]: [400, "FAILED_PRECONDITION"],
  [Code.Aborted]: [409, "ABORTED"],
  [Code.OutOfRange]: [400, "OUT_OF_RANGE"],
  [Code.Unimplemented]: [501, "UNIMPLEMENTED"],
  [Code.Internal]: [500, "INTERNAL"],
  [Code.Unavailable]: [503, "UNAVAILABLE"],
  [Code.DataLoss]: [500, "DATA_LOSS"],
  [Code.Unauthenticated]: [401, "UNAUTHENTICATED"],
};

export interface GoogleStatus {
  code: number;
  message: string;
  status: string;
  details: Record<string, unknown>[];
}

export interface WireError {
  httpStatus: number;
  body: { error: GoogleStatus };
  headers: Record<string, string>;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * A core field path in this wire's words: turns[0] -> contents[0],
 * config.max_output_tokens -> generationConfig.maxOutputTokens, and so on.
 * Paths that are already wire paths pass through.
 */
export function wireField(field: string): string {
  const f = field
    .replace(/^input\./, "")
    .replace(/^turns\b/, "contents")
    .replace(/^system\b/, "systemInstruction")
    .replace(/^tool_choice\b/, "toolConfig.functionCallingConfig")
    .replace(/^config\.thinking\b/, "generationConfig.thinkingConfig")
    .replace(/^config\b/, "generationConfig")
    .replace(/\.budget_tokens$/, ".thinkingBudget")
    .replace(/\.tool_call\b/, ".functionCall")
    .replace(/\.tool_result\b/, ".functionResponse")
    .replace(/\.signature$/, ".thoughtSignature")
    .replace(/\.ttl_seconds$|^ttl_seconds$/, (m) => m.replace("ttl_seconds", "ttl"));
  return camel(f);
}

/** A core error about a part of the request, pointed at the wire field that part came from. */
export function atOrigin(err: unknown, origins: Origin[][]): unknown {
  if (!(err instanceof ConnectError)) return err;
  const d = errorDetail(err);
  const field = d?.field ? originField(origins, d.field) : undefined;
  if (!d || !field) return err;
  const message = err.rawMessage.startsWith(`${d.field}: `) ? `${field}: ${err.rawMessage.slice(d.field.length + 2)}` : err.rawMessage;
  return coreError(err.code, message, {
    reason: d.reason,
    field,
    metadata: { ...d.metadata },
    ...(d.retryAfter ? { retryAfterMs: durationMs(d.retryAfter) } : {}),
  });
}

const REASONS: Record<string, string> = { invalid_api_key: "API_KEY_INVALID" };

function status(httpStatus: number, name: string, message: string, details: Record<string, unknown>[] = [], headers: Record<string, string> = {}): WireError {
  return { httpStatus, body: { error: { code: httpStatus, message, status: name, details } }, headers };
}

export function badRequest(message: string, violations: { field: string; description: string }[], reason = "INVALID_ARGUMENT"): WireError {
  return status(400, "INVALID_ARGUMENT", message, [
    { "@type": `${TYPE}BadRequest`, fieldViolations: violations },
    { "@type": `${TYPE}ErrorInfo`, reason, domain: ERROR_DOMAIN, metadata: {} },
  ]);
}

/**
 * A key the gateway does not know, in Google's words: 400 INVALID_ARGUMENT
 * with reason API_KEY_INVALID (what the GenAI SDK and the Gemini CLI look for).
 */
export function apiKeyInvalidError(): WireError {
  return status(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
    { "@type": `${TYPE}ErrorInfo`, reason: "API_KEY_INVALID", domain: "googleapis.com", metadata: { service: "generativelanguage.googleapis.com" } },
  ]);
}

/** A ConnectError from the core (or this facade) as a google.rpc.Status. */
export function fromConnectError(err: ConnectError): WireError {
  const d = errorDetail(err);
  // A key the core refused (this facade sends none only when the client sent none, which it answers itself).
  if (err.code === Code.Unauthenticated && d?.reason === "invalid_api_key") return apiKeyInvalidError();
  // A file over the size limit is the body-limit error's status, whichever layer found it.
  const [http, name] = d?.reason === "request_too_large" ? [413, "PAYLOAD_TOO_LARGE"] : (TABLE[err.code] ?? [500, "INTERNAL"]);
  const details: Record<string, unknown>[] = [];
  let message = err.code === Code.Internal || err.code === Code.Unknown ? err.rawMessage || "Internal error encountered." : err.rawMessage;
  if (d?.field && (err.code === Code.InvalidArgument || err.code === Code.FailedPrecondition || err.code === Code.OutOfRange || err.code === Code.NotFound)) {
    const field = wireField(d.field);
    const description = message.startsWith(`${d.field}: `) ? message.slice(d.field.length + 2) : message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;
    message = `${field}: ${description}`;
    details.push({ "@type": `${TYPE}BadRequest`, fieldViolations: [{ field, description }] });
  }
  if (d?.reason) {
    details.push({ "@type": `${TYPE}ErrorInfo`, reason: REASONS[d.reason] ?? d.reason.toUpperCase(), domain: ERROR_DOMAIN, metadata: { ...d.metadata } });
  }
  const headers: Record<string, string> = {};
  const retry = retryAfterSeconds(err);
  if (retry !== undefined) {
    details.push({ "@type": `${TYPE}RetryInfo`, retryDelay: `${retry}s` });
    headers["retry-after"] = String(retry);
  }
  return status(http, name, message, details, headers);
}

/** A zod failure as INVALID_ARGUMENT with one field violation per issue, named after the request's message type. */
export function fromZodError(error: z.ZodError, prefix = "", message = "GenerateContentRequest"): WireError {
  const violations = error.issues.slice(0, 20).map((i) => {
    const path = i.path.reduce<string>((acc, p) => (typeof p === "number" ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), prefix);
    return { field: path, description: describe(i) };
  });
  const text = violations.map((v) => `* ${v.field ? `${message}.${v.field}` : message}: ${v.description}`).join("\n") + "\n";
  return badRequest(text, violations);
}

/** zod's expected type in the words the input's own type is named in above (a JSON array is a "list", as in protobuf). */
function expectedType(expected: string): string {
  const word = expected === "int" ? "integer" : expected === "record" ? "object" : expected === "array" ? "list" : expected;
  return `${/^[aeiou]/.test(word) ? "an" : "a"} ${word}`;
}

function describe(i: z.core.$ZodIssue): string {
  const input = (i as { input?: unknown }).input;
  switch (i.code) {
    case "invalid_type":
      if (input === undefined) return `${String(i.path.at(-1) ?? "value")} is not specified`;
      return `Invalid value (${typeof input === "object" ? (Array.isArray(input) ? "list" : input === null ? "null" : "object") : typeof input}), expected ${expectedType(i.expected)}`;
    case "invalid_value":
      return `Invalid value ${JSON.stringify(input)}, expected one of ${i.values.map((v) => String(v)).join(", ")}`;
    case "too_big":
      return i.origin === "array" ? `must contain at most ${String(i.maximum)} elements` : `must be at most ${String(i.maximum)}`;
    case "too_small":
      return i.origin === "array" ? `must contain at least ${String(i.minimum)} elements` : i.origin === "string" ? "must not be empty" : `must be at least ${String(i.minimum)}`;
    default:
      return i.message;
  }
}

/** Errors fastify raises before the handler runs (body limit, bad JSON, content type). */
export function fromFastifyError(err: { code?: string; statusCode?: number; message: string; name?: string }, bodyLimit: number): WireError | undefined {
  if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE" || err.statusCode === 413) {
    return status(413, "PAYLOAD_TOO_LARGE", `Request payload size exceeds the limit: ${bodyLimit} bytes.`, [
      { "@type": `${TYPE}ErrorInfo`, reason: "PAYLOAD_TOO_LARGE", domain: ERROR_DOMAIN, metadata: { limitBytes: String(bodyLimit) } },
    ]);
  }
  if (err.code === "FST_ERR_CTP_INVALID_JSON_BODY" || err.code === "FST_ERR_CTP_EMPTY_JSON_BODY" || err.name === "SyntaxError") {
    return badRequest(`Invalid JSON payload received. ${err.message}`, [{ field: "", description: `Invalid JSON payload: ${err.message}` }], "INVALID_JSON");
  }
  if (err.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" || err.statusCode === 415) {
    return badRequest(`Invalid content type; send application/json. ${err.message}`, [{ field: "", description: "content-type must be application/json" }], "INVALID_CONTENT_TYPE");
  }
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return badRequest(err.message, [{ field: "", description: err.message }]);
  }
  return undefined;
}

export function notFoundError(message: string): WireError {
  return status(404, "NOT_FOUND", message);
}

export function unauthenticatedError(): WireError {
  return status(
    401,
    "UNAUTHENTICATED",
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    [{ "@type": `${TYPE}ErrorInfo`, reason: "CREDENTIALS_MISSING", domain: ERROR_DOMAIN, metadata: {} }],
  );
}

export function internalError(): WireError {
  return status(500, "INTERNAL", "Internal error encountered.");
}

/** Anything thrown in a handler, as a wire error. */
export function toWireError(err: unknown, bodyLimit: number): WireError {
  if (err instanceof ConnectError) return fromConnectError(err);
  if (err && typeof err === "object" && "issues" in err && Array.isArray((err as z.ZodError).issues)) return fromZodError(err as z.ZodError);
  if (err instanceof Error) {
    const f = fromFastifyError(err as Error & { code?: string; statusCode?: number }, bodyLimit);
    if (f) return f;
  }
  return internalError();
}
