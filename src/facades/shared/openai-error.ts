// The OpenAI error envelope {"error":{message, type, param, code}}, and the
// table from ConnectErrors and fastify's body errors to it that Chat
// Completions and Responses share. The SDKs pick their error class by status
// and retry 408, 409, 429 and 5xx after retry-after-ms / retry-after; Codex
// fails a turn at once on a 400 and retries a 5xx. Internal text never
// reaches the client.
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail, retryAfterSeconds } from "../../core/errors.js";
import { withBodyCheckFinding } from "./body-check.js";

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface OpenAIWireError {
  status: number;
  body: OpenAIErrorBody;
  /** retry-after and retry-after-ms for a 429, when the core says when to retry. */
  headers?: Record<string, string>;
}

export function openAIError(status: number, message: string, type: string, code: string | null = null, param: string | null = null): OpenAIWireError {
  return { status, body: { error: { message, type, param, code } } };
}

/** What OpenAI answers a request without a key. */
export const MISSING_KEY = "You didn't provide an API key. Send it as 'Authorization: Bearer <key>'.";

/** What OpenAI answers a key it does not know (without echoing the key). */
export const INCORRECT_KEY = "Incorrect API key provided. You can find your API key in the gateway's admin console.";

const STATUS: Partial<Record<Code, number>> = {
  [Code.Canceled]: 499,
  [Code.InvalidArgument]: 400,
  [Code.FailedPrecondition]: 400,
  [Code.OutOfRange]: 400,
  [Code.Unimplemented]: 400,
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.Aborted]: 409,
  [Code.ResourceExhausted]: 429,
  [Code.Unavailable]: 503,
  [Code.DeadlineExceeded]: 504,
};

/** Reasons that are no better than the status as an OpenAI `code`. */
const GENERIC_REASONS = new Set(["", "invalid_field", "not_found", "permission_denied", "invalid_argument"]);
/** Our reasons under the names OpenAI uses for the same thing. */
const CODES: Record<string, string> = { unsupported_by_upstream: "unsupported_parameter", rate_limited: "rate_limit_exceeded", request_too_large: "request_too_large" };

export const SERVER_ERROR = "The server had an error while processing your request. Sorry about that!";

export interface ErrorContext {
  /** The model the client asked for (named in a 404). */
  model?: string;
  /** Renames a neutral field path into the client's (translate.ts). */
  clientField?: (neutral: string) => string;
}

const retryHeaders = (secs: number) => ({ "retry-after": String(secs), "retry-after-ms": String(secs * 1000) });

export function fromConnectError(err: ConnectError, ctx: ErrorContext = {}): OpenAIWireError {
  const status = STATUS[err.code];
  if (status === undefined) return openAIError(500, SERVER_ERROR, "server_error");
  const d = errorDetail(err);
  const reason = d?.reason ?? "";
  const code = CODES[reason] ?? (GENERIC_REASONS.has(reason) ? null : reason);
  const field = d?.field ? (ctx.clientField ? ctx.clientField(d.field) : d.field) : "";
  const param = field || null;
  switch (err.code) {
    case Code.Unauthenticated:
      return openAIError(401, err.rawMessage === "missing API key" ? MISSING_KEY : INCORRECT_KEY, "invalid_request_error", "invalid_api_key");
    case Code.NotFound:
      if (reason === "model_not_found" && ctx.model) {
        return openAIError(404, `The model \`${ctx.model}\` does not exist or you do not have access to it.`, "invalid_request_error", "model_not_found");
      }
      return openAIError(404, err.rawMessage, "invalid_request_error", code, param);
    case Code.ResourceExhausted: {
      const secs = retryAfterSeconds(err);
      const quota = reason === "insufficient_quota";
      const e = openAIError(429, err.rawMessage, quota ? "insufficient_quota" : "requests", quota ? "insufficient_quota" : "rate_limit_exceeded");
      if (secs !== undefined) e.headers = retryHeaders(secs);
      return e;
    }
    case Code.Unavailable:
    case Code.DeadlineExceeded: {
      const e = openAIError(status, err.rawMessage || SERVER_ERROR, "server_error", code);
      const secs = retryAfterSeconds(err);
      if (secs !== undefined) e.headers = retryHeaders(secs);
      return e;
    }
    default:
      if (reason === "request_too_large" || reason === "payload_too_large") return openAIError(413, err.rawMessage, "invalid_request_error", "request_too_large", param);
      return openAIError(status, err.rawMessage, "invalid_request_error", code, param);
  }
}

/** What OpenAI answers a body that is not JSON. */
export const INVALID_JSON =
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)";

const TOO_LARGE = "The request body is too large.";

/** Anything thrown at the edge -> wire error: ConnectErrors by the table, fastify's body errors by their kind, the rest a 500 without its text. */
export function toWireError(err: unknown, ctx: ErrorContext = {}): OpenAIWireError {
  if (err instanceof ConnectError) return fromConnectError(err, ctx);
  const e = (err ?? {}) as { statusCode?: number; code?: string };
  switch (e.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return openAIError(413, TOO_LARGE, "invalid_request_error", "request_too_large");
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return openAIError(400, withBodyCheckFinding(INVALID_JSON, err), "invalid_request_error");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return openAIError(400, INVALID_JSON, "invalid_request_error");
  }
  if (err instanceof SyntaxError) return openAIError(400, INVALID_JSON, "invalid_request_error");
  const status = typeof e.statusCode === "number" ? e.statusCode : 500;
  if (status === 413) return openAIError(413, TOO_LARGE, "invalid_request_error", "request_too_large");
  if (status >= 400 && status < 500) return openAIError(400, INVALID_JSON, "invalid_request_error");
  return openAIError(500, SERVER_ERROR, "server_error");
}

export function invalidRequest(message: string, param: string | null = null, code: string | null = null): OpenAIWireError {
  return openAIError(400, message, "invalid_request_error", code, param);
}
