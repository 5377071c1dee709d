// The error tables of the two video edges. /v1/video/generations answers
// spec 7.6's flat body {code, message, param, type} (code may be null, the
// others are strings); /v1/videos answers OpenAI's {"error":{message, type,
// param, code}} so the openai SDK raises its usual error classes.
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail, retryAfterSeconds } from "../../core/errors.js";

export type Wire = "generations" | "openai";

export interface ErrorFields {
  status: number;
  code: string | null;
  message: string;
  param: string | null;
  type: string;
  headers: Record<string, string>;
}

/** An error the facade raises itself (bad shape, bad upload, missing key). */
export class FacadeError extends Error {
  constructor(readonly fields: ErrorFields) {
    super(fields.message);
  }
}

export function facadeError(status: number, message: string, param: string | null = null, code: string | null = null, type = "invalid_request_error"): FacadeError {
  return new FacadeError({ status, message, param, code, type, headers: {} });
}

const STATUS: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 400,
  [Code.OutOfRange]: 400,
  [Code.FailedPrecondition]: 400,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.Aborted]: 409,
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 429,
  [Code.Canceled]: 499,
  [Code.Unimplemented]: 404,
  [Code.Unavailable]: 503,
  [Code.DeadlineExceeded]: 504,
};

const TYPE: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  409: "invalid_request_error",
  429: "rate_limit_error",
};

/** Reasons too generic to show as a code. */
const GENERIC = new Set(["", "invalid_field", "not_found", "permission_denied"]);

export function fromConnectError(err: ConnectError, params: Record<string, string>): ErrorFields {
  const d = errorDetail(err);
  const status = STATUS[err.code] ?? 500;
  const reason = d?.reason ?? "";
  const field = d?.field || null;
  const param = field ? (params[field] ?? field) : null;
  if (status === 500) return { status, code: null, message: "The server had an error while processing your request.", param: null, type: "server_error", headers: {} };
  if (err.code === Code.Unauthenticated) {
    const message =
      err.rawMessage === "missing API key"
        ? "You didn't provide an API key. Provide it in the Authorization header (Bearer auth), e.g. 'Authorization: Bearer YOUR_KEY'."
        : "Incorrect API key provided.";
    return { status, code: "invalid_api_key", message, param: null, type: "authentication_error", headers: {} };
  }
  if (err.code === Code.ResourceExhausted) {
    const s = retryAfterSeconds(err);
    const headers: Record<string, string> = s !== undefined ? { "retry-after": String(s), "retry-after-ms": String(s * 1000) } : {};
    return { status, code: GENERIC.has(reason) ? "rate_limit_exceeded" : reason, message: err.rawMessage, param: null, type: "rate_limit_error", headers };
  }
  const code = GENERIC.has(reason) ? (status === 404 ? "not_found" : status === 403 ? "permission_denied" : "invalid_value") : reason;
  return { status, code, message: err.rawMessage, param, type: TYPE[status] ?? "server_error", headers: {} };
}

/** The response body of an error on a wire. */
export function errorBody(wire: Wire, e: ErrorFields): unknown {
  if (wire === "openai") return { error: { message: e.message, type: e.type, param: e.param, code: e.code } };
  return { code: e.code, message: e.message, param: e.param ?? "", type: e.type };
}

/** Anything thrown in a route -> the wire's error fields. */
export function toErrorFields(err: unknown, params: Record<string, string>): ErrorFields {
  if (err instanceof FacadeError) return err.fields;
  if (err instanceof ConnectError) return fromConnectError(err, params);
  const e = err as { code?: string; statusCode?: number; message?: string };
  const bad = (status: number, message: string, code: string) => ({ status, code, message, param: null, type: TYPE[status] ?? "invalid_request_error", headers: {} });
  switch (e?.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return bad(400, "We could not parse the JSON body of your request. The body must be a valid JSON object.", "invalid_json");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return bad(413, "The request body is too large.", "request_too_large");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return bad(415, "Unsupported Content-Type; send application/json (or multipart/form-data to /v1/videos).", "invalid_content_type");
  }
  if (e instanceof SyntaxError || (e?.statusCode === 400 && /JSON/i.test(e.message ?? "")))
    return bad(400, "We could not parse the JSON body of your request. The body must be a valid JSON object.", "invalid_json");
  if (typeof e?.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) return bad(e.statusCode, "The request could not be processed.", "invalid_request");
  return { status: 500, code: null, message: "The server had an error while processing your request.", param: null, type: "server_error", headers: {} };
}
