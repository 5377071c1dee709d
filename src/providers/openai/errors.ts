// OpenAI-style error bodies ({"error":{"message","type","code","param"}}) and
// in-stream error chunks -> ConnectErrors. The message text stays in the log.
import type { ConnectError } from "@connectrpc/connect";
import { upstreamHttpError } from "../shared/http-errors.js";
import type { VendorErrorInfo } from "../shared/http.js";
import { VENDOR } from "./request.js";

type ErrorObject = { type?: unknown; code?: unknown; message?: unknown };

const vendorType = (e: ErrorObject | undefined) => (typeof e?.code === "string" && e.code ? e.code : typeof e?.type === "string" ? e.type : undefined);

export function parseError(status: number, body: unknown): VendorErrorInfo {
  const raw = (body as { error?: unknown } | undefined)?.error;
  const e = raw && typeof raw === "object" ? (raw as ErrorObject) : undefined;
  const type = vendorType(e);
  // An exhausted quota will not recover by retrying: treat it like a refused key (fall over).
  if (status === 429 && type === "insufficient_quota") return { vendorType: type, error: upstreamHttpError({ status: 403, vendor: VENDOR, vendorType: type }) };
  return type ? { vendorType: type } : {};
}

const STREAM_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  rate_limit_exceeded: 429,
  requests: 429,
  tokens: 429,
  server_error: 500,
  overloaded: 503,
  service_unavailable: 503,
  timeout: 504,
};

/** An error object inside a stream chunk. */
export function streamError(e: ErrorObject | undefined): ConnectError {
  const type = vendorType(e) ?? "server_error";
  const code = typeof e?.code === "number" && e.code >= 400 && e.code < 600 ? e.code : undefined;
  return upstreamHttpError({ status: code ?? STREAM_STATUS[type] ?? 500, vendor: VENDOR, vendorType: type, body: JSON.stringify(e ?? null) });
}
