// Responses API errors -> ConnectErrors: HTTP error bodies
// ({"error":{"message","type","code","param"}}), a failed response's `error`
// ({code, message}), and the flat `error` stream event. The text stays in the log.
import type { ConnectError } from "@connectrpc/connect";
import { upstreamHttpError } from "../shared/http-errors.js";
import type { VendorErrorInfo } from "../shared/http.js";
import type * as wire from "./wire.js";

const VENDOR = "openai";

const vendorType = (e: wire.ErrorObject | undefined) => (typeof e?.code === "string" && e.code ? e.code : typeof e?.type === "string" && e.type ? e.type : undefined);

export function parseError(status: number, body: unknown): VendorErrorInfo {
  const raw = (body as { error?: unknown } | undefined)?.error;
  const e = raw && typeof raw === "object" ? (raw as wire.ErrorObject) : undefined;
  const type = vendorType(e);
  // An exhausted quota will not recover by retrying: treat it like a refused key (fall over).
  if (status === 429 && type === "insufficient_quota") return { vendorType: type, error: upstreamHttpError({ status: 403, vendor: VENDOR, vendorType: type }) };
  return type ? { vendorType: type } : {};
}

/** The status an error code inside an answer stands for (a failed response carries no HTTP status of its own). */
const CODE_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  invalid_prompt: 400,
  invalid_encrypted_content: 400,
  context_length_exceeded: 400,
  vector_store_timeout: 504,
  rate_limit_exceeded: 429,
  insufficient_quota: 403,
  server_error: 500,
  overloaded: 503,
  service_unavailable: 503,
  timeout: 504,
};

/** A failed response's error or an `error` stream event. */
export function streamError(e: wire.ErrorObject | undefined): ConnectError {
  const type = vendorType(e) ?? "server_error";
  const code = typeof e?.code === "number" && e.code >= 400 && e.code < 600 ? e.code : undefined;
  // Image codes (image_too_large, invalid_image_format, ...) are the request's fault.
  const status = code ?? CODE_STATUS[type] ?? (/^(invalid_|image_|unsupported_)/.test(type) ? 400 : 500);
  return upstreamHttpError({ status, vendor: VENDOR, vendorType: type, body: JSON.stringify(e ?? null) });
}
