// The one error table of the OpenAI Images edge: ConnectError (and the
// facade's own wire errors) -> status, {"error":{message,type,param,code}} and
// headers.
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail, retryAfterSeconds } from "../../core/errors.js";
import type { ErrorObject } from "./wire.js";

export interface WireError {
  status: number;
  body: { error: ErrorObject };
  headers: Record<string, string>;
}

/** A wire error raised by the facade itself (bad shape, bad upload, missing key). */
export class FacadeError extends Error {
  constructor(readonly wire: WireError) {
    super(wire.body.error.message);
  }
}

export function wireError(status: number, message: string, param: string | null = null, code: string | null = null, type = "invalid_request_error", headers: Record<string, string> = {}): WireError {
  return { status, body: { error: { message, type, param, code } }, headers };
}

export const facadeError = (...args: Parameters<typeof wireError>) => new FacadeError(wireError(...args));

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

/** Codes that are not worth showing as an OpenAI `code`. */
const GENERIC_REASONS = new Set(["", "invalid_field", "not_found", "permission_denied"]);

export function fromConnectError(err: ConnectError): WireError {
  const d = errorDetail(err);
  const status = STATUS[err.code] ?? 500;
  const reason = d?.reason ?? "";
  const code = d?.metadata.code || (GENERIC_REASONS.has(reason) ? null : reason);
  const param = d?.field || null;
  if (status === 500) return wireError(500, "The server had an error while processing your request.", null, null, "server_error");
  if (err.code === Code.Unauthenticated) {
    return wireError(
      401,
      err.rawMessage === "missing API key" ? "You didn't provide an API key. Provide it in the Authorization header (Bearer auth)." : "Incorrect API key provided.",
      null,
      "invalid_api_key",
    );
  }
  if (reason === "moderation_blocked") return wireError(400, err.rawMessage, null, "moderation_blocked", "image_generation_user_error");
  if (err.code === Code.ResourceExhausted) {
    const secs = retryAfterSeconds(err);
    const headers: Record<string, string> = secs !== undefined ? { "retry-after": String(secs), "retry-after-ms": String(secs * 1000) } : {};
    const quota = code === "insufficient_quota";
    return wireError(429, err.rawMessage, null, quota ? "insufficient_quota" : "rate_limit_exceeded", quota ? "insufficient_quota" : "requests", headers);
  }
  if (status >= 500) return wireError(status, err.rawMessage, null, code, "server_error");
  return wireError(status, err.rawMessage, param, code);
}
