// The one error table of the Embeddings edge: ConnectError (or a fastify body
// error) -> HTTP status, headers and OpenAI's {"error":{message, type, param,
// code}}. A core field ("inputs[2]") is named as the client sent it
// ("input[2]"), in the message too. Internal text never reaches the client.
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail, retryAfterSeconds } from "../../core/errors.js";
import { INCORRECT_KEY, MISSING_KEY, openAIError, type OpenAIWireError } from "../shared/openai-error.js";
import { withBodyCheckFinding } from "../shared/body-check.js";

export type { OpenAIWireError } from "../shared/openai-error.js";

const STATUS: Partial<Record<Code, number>> = {
  [Code.Canceled]: 499,
  [Code.InvalidArgument]: 400,
  [Code.FailedPrecondition]: 400,
  [Code.OutOfRange]: 400,
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.NotFound]: 404,
  [Code.ResourceExhausted]: 429,
  [Code.Unimplemented]: 404,
  [Code.Unavailable]: 503,
  [Code.DeadlineExceeded]: 504,
};

/** Reasons that say no more than the status. */
const GENERIC_REASONS = new Set(["", "invalid_field", "not_found", "permission_denied"]);
/** Our reasons under OpenAI's names for the same thing. */
const CODES: Record<string, string> = { unsupported_by_upstream: "unsupported_parameter", rate_limited: "rate_limit_exceeded" };

export const SERVER_ERROR = "The server had an error while processing your request. Sorry about that!";

/** A wire error raised by the facade itself (a body of the wrong shape, no key). */
export class FacadeError extends Error {
  constructor(readonly wire: OpenAIWireError) {
    super(wire.body.error.message);
  }
}

export interface ErrorContext {
  /** The model the client asked for (named in a 404). */
  model?: string;
  /** Renames a core field into the client's (translate.ts clientField). */
  clientField?: (field: string) => string;
}

const retryHeaders = (err: ConnectError) => {
  const secs = retryAfterSeconds(err);
  return secs === undefined ? undefined : { "retry-after": String(secs), "retry-after-ms": String(secs * 1000) };
};

export function fromConnectError(err: ConnectError, ctx: ErrorContext = {}): OpenAIWireError {
  const status = STATUS[err.code];
  if (status === undefined) return openAIError(500, SERVER_ERROR, "server_error");
  const d = errorDetail(err);
  const reason = d?.reason ?? "";
  const code = d?.metadata.code || CODES[reason] || (GENERIC_REASONS.has(reason) ? null : reason);
  const field = d?.field ? (ctx.clientField?.(d.field) ?? d.field) : "";
  // "inputs[2]: must not be empty" -> "Invalid 'input[2]': must not be empty".
  const message = d?.field && err.rawMessage.startsWith(`${d.field}: `) ? `Invalid '${field}': ${err.rawMessage.slice(d.field.length + 2)}` : err.rawMessage;
  switch (err.code) {
    case Code.Unauthenticated:
      return openAIError(401, err.rawMessage === "missing API key" ? MISSING_KEY : INCORRECT_KEY, "invalid_request_error", "invalid_api_key");
    case Code.NotFound:
      if (reason === "model_not_found" && ctx.model !== undefined) {
        return openAIError(404, `The model \`${ctx.model}\` does not exist or you do not have access to it.`, "invalid_request_error", "model_not_found", "model");
      }
      return openAIError(404, message, "invalid_request_error", code, field || null);
    case Code.ResourceExhausted: {
      const quota = reason === "insufficient_quota";
      const e = openAIError(429, message, quota ? "insufficient_quota" : "requests", quota ? "insufficient_quota" : "rate_limit_exceeded");
      const h = retryHeaders(err);
      if (h) e.headers = h;
      return e;
    }
    case Code.Unavailable:
    case Code.DeadlineExceeded:
    case Code.Canceled: {
      const e = openAIError(status, message || SERVER_ERROR, "server_error", code);
      const h = retryHeaders(err);
      if (h) e.headers = h;
      return e;
    }
    default:
      return openAIError(status, message, "invalid_request_error", code, field || null);
  }
}

interface HttpishError {
  statusCode?: number;
  code?: string;
  message?: string;
  name?: string;
}

/** Anything thrown under /v1/embeddings, as OpenAI's error. */
export function toWireError(err: unknown, ctx: ErrorContext = {}): OpenAIWireError {
  if (err instanceof FacadeError) return err.wire;
  if (err instanceof ConnectError) return fromConnectError(err, ctx);
  const e = err as HttpishError;
  switch (e?.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return openAIError(400, withBodyCheckFinding("We could not parse the JSON body of your request. The body must be a valid JSON object.", err), "invalid_request_error", "invalid_json");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return openAIError(413, "The request body is too large.", "invalid_request_error", "request_too_large");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return openAIError(415, "Unsupported Content-Type; send application/json.", "invalid_request_error", "invalid_content_type");
  }
  if (e instanceof SyntaxError) return openAIError(400, "We could not parse the JSON body of your request. The body must be a valid JSON object.", "invalid_request_error", "invalid_json");
  if (typeof e?.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) return openAIError(e.statusCode, "The request could not be processed.", "invalid_request_error");
  return openAIError(500, SERVER_ERROR, "server_error");
}
