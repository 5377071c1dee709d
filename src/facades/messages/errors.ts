// The one error table of the Messages edge: ConnectError (or a fastify body
// error) -> HTTP status + Anthropic error type, and the error body
// {"type":"error","error":{"type","message"},"request_id"}. Internal text
// never reaches the client.
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail, retryAfterSeconds } from "../../core/errors.js";
import type { ErrorBody, ErrorType } from "./wire.js";

export interface WireError {
  status: number;
  type: ErrorType;
  message: string;
  /** Seconds for a retry-after header. */
  retryAfter?: number;
  /** The API's specific error code (error.details.error_code). */
  errorCode?: string;
}

const TABLE: Record<Code, { status: number; type: ErrorType }> = {
  [Code.Canceled]: { status: 499, type: "invalid_request_error" },
  [Code.Unknown]: { status: 500, type: "api_error" },
  [Code.InvalidArgument]: { status: 400, type: "invalid_request_error" },
  [Code.DeadlineExceeded]: { status: 504, type: "timeout_error" },
  [Code.NotFound]: { status: 404, type: "not_found_error" },
  [Code.AlreadyExists]: { status: 409, type: "invalid_request_error" },
  [Code.PermissionDenied]: { status: 403, type: "permission_error" },
  [Code.ResourceExhausted]: { status: 429, type: "rate_limit_error" },
  [Code.FailedPrecondition]: { status: 400, type: "invalid_request_error" },
  [Code.Aborted]: { status: 409, type: "invalid_request_error" },
  [Code.OutOfRange]: { status: 400, type: "invalid_request_error" },
  [Code.Unimplemented]: { status: 400, type: "invalid_request_error" },
  [Code.Internal]: { status: 500, type: "api_error" },
  [Code.Unavailable]: { status: 529, type: "overloaded_error" },
  [Code.DataLoss]: { status: 500, type: "api_error" },
  [Code.Unauthenticated]: { status: 401, type: "authentication_error" },
};

/** Reasons that pick a more specific Anthropic type than the code alone. */
const BY_REASON: Record<string, { status: number; type: ErrorType }> = {
  request_too_large: { status: 413, type: "request_too_large" },
  payload_too_large: { status: 413, type: "request_too_large" },
};

const SERVER_SIDE = new Set<Code>([Code.Internal, Code.Unknown, Code.DataLoss]);

/** Reasons the API names in error.details.error_code (the 1.x SDK raises a typed error for each). */
const ERROR_CODES = new Set(["file_expired", "file_not_downloadable", "storage_quota_exceeded"]);

/** ConnectError -> wire error. `clientField` renames a neutral field path into the client's own. */
export function fromConnectError(err: ConnectError, clientField?: (neutral: string) => string): WireError {
  const detail = errorDetail(err);
  const row = BY_REASON[detail?.reason ?? ""] ?? TABLE[err.code] ?? TABLE[Code.Internal];
  let message = SERVER_SIDE.has(err.code) ? "internal error" : err.rawMessage || row.type;
  const field = detail?.field ? (clientField ? clientField(detail.field) : detail.field) : "";
  if (field && !SERVER_SIDE.has(err.code) && !message.startsWith(field)) message = `${field}: ${message}`;
  const retryAfter = err.code === Code.ResourceExhausted || err.code === Code.Unavailable ? retryAfterSeconds(err) : undefined;
  const errorCode = detail?.reason && ERROR_CODES.has(detail.reason) ? detail.reason : undefined;
  return { ...row, message, ...(retryAfter !== undefined ? { retryAfter } : {}), ...(errorCode ? { errorCode } : {}) };
}

interface HttpishError {
  statusCode?: number;
  code?: string;
  message?: string;
}

/** Anything thrown at the edge -> wire error: ConnectErrors by the table, fastify's own 4xx by status, the rest "internal error". */
export function toWireError(err: unknown, clientField?: (neutral: string) => string): WireError {
  if (err instanceof ConnectError) return fromConnectError(err, clientField);
  const e = (err ?? {}) as HttpishError;
  const status = typeof e.statusCode === "number" ? e.statusCode : 500;
  if (status === 413 || e.code === "FST_ERR_CTP_BODY_TOO_LARGE") return { status: 413, type: "request_too_large", message: "Request exceeds the maximum allowed number of bytes." };
  if (e.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" || status === 415) return { status: 400, type: "invalid_request_error", message: "content-type must be application/json" };
  if (e.code === "FST_ERR_CTP_EMPTY_JSON_BODY") return { status: 400, type: "invalid_request_error", message: "request body is empty; expected a JSON object" };
  if (status >= 400 && status < 500) {
    const invalidJson = e.code === "FST_ERR_CTP_INVALID_JSON_BODY" || err instanceof SyntaxError;
    const message = invalidJson ? `There was an error parsing the body: ${e.message ?? "invalid JSON"}` : (e.message ?? "invalid request");
    const type: ErrorType =
      status === 401 ? "authentication_error" : status === 403 ? "permission_error" : status === 404 ? "not_found_error" : status === 429 ? "rate_limit_error" : "invalid_request_error";
    return { status: status === 408 || status === 429 || status === 401 || status === 403 || status === 404 ? status : 400, type, message };
  }
  return { status: 500, type: "api_error", message: "internal error" };
}

export function errorBody(e: Pick<WireError, "type" | "message" | "errorCode">, requestId: string): ErrorBody {
  return { type: "error", error: { type: e.type, message: e.message, ...(e.errorCode ? { details: { error_code: e.errorCode } } : {}) }, request_id: requestId };
}

export function invalidRequest(message: string): WireError {
  return { status: 400, type: "invalid_request_error", message };
}
