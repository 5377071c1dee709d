// Anthropic error bodies ({"type":"error","error":{"type","message"}}) and
// stream `error` events -> ConnectErrors. The message text stays in the log.
import type { ConnectError } from "@connectrpc/connect";
import { upstreamHttpError } from "../shared/http-errors.js";
import type { VendorErrorInfo } from "../shared/http.js";
import { VENDOR } from "./request.js";
import type * as wire from "./wire.js";

/** The status Anthropic uses for each error type. */
const STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 403,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

export function parseError(status: number, body: unknown): VendorErrorInfo {
  const type = (body as wire.ErrorBody | undefined)?.error?.type;
  if (typeof type !== "string") return {};
  // An overloaded_error is overloaded whatever status carried it.
  if (type === "overloaded_error" && status !== 529) return { vendorType: type, error: upstreamHttpError({ status: 529, vendor: VENDOR, vendorType: type }) };
  return { vendorType: type };
}

/** A mid-stream `event: error`. */
export function streamError(body: unknown, retryAfterMs?: number): ConnectError {
  const type = (body as wire.ErrorBody | undefined)?.error?.type ?? "api_error";
  return upstreamHttpError({ status: STATUS[type] ?? 500, vendor: VENDOR, vendorType: type, body: JSON.stringify(body ?? null), retryAfterMs });
}
