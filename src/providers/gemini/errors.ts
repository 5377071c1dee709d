// google.rpc.Status error bodies ({"error":{"code","message","status","details"}})
// and in-stream error chunks -> ConnectErrors. RetryInfo.retryDelay ("43s")
// becomes the retry-after. The message text stays in the log.
import type { ConnectError } from "@connectrpc/connect";
import { upstreamHttpError } from "../shared/http-errors.js";
import type { VendorErrorInfo } from "../shared/http.js";
import { VENDOR } from "./request.js";

type Status = { code?: unknown; status?: unknown; details?: unknown };

function retryDelayMs(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const o = d as { "@type"?: unknown; retryDelay?: unknown };
    if (typeof o?.["@type"] === "string" && o["@type"].endsWith("google.rpc.RetryInfo") && typeof o.retryDelay === "string") {
      const m = /^(\d+(?:\.\d+)?)s$/.exec(o.retryDelay);
      if (m) return Math.round(Number(m[1]) * 1000);
    }
  }
  return undefined;
}

function errorInfoReason(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  const info = details.find((d) => typeof (d as { "@type"?: unknown })?.["@type"] === "string" && (d as { "@type": string })["@type"].endsWith("google.rpc.ErrorInfo")) as
    { reason?: unknown } | undefined;
  return typeof info?.reason === "string" ? info.reason : undefined;
}

export function parseError(_status: number, body: unknown): VendorErrorInfo {
  const e = (body as { error?: Status } | undefined)?.error;
  if (!e || typeof e !== "object") return {};
  // Google answers a bad key with 400 INVALID_ARGUMENT; it is the gateway's credential, not the client's request.
  const reason = errorInfoReason(e.details);
  if (reason === "API_KEY_INVALID" || reason === "API_KEY_SERVICE_BLOCKED") return { vendorType: reason, error: upstreamHttpError({ status: 401, vendor: VENDOR, vendorType: reason }) };
  const retry = retryDelayMs(e.details);
  return { ...(typeof e.status === "string" ? { vendorType: e.status } : {}), ...(retry !== undefined ? { retryAfterMs: retry } : {}) };
}

const STATUS: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** An error object inside a stream chunk. */
export function streamError(e: Status | undefined): ConnectError {
  const code = typeof e?.code === "number" && e.code >= 400 && e.code < 600 ? e.code : undefined;
  const status = code ?? (typeof e?.status === "string" ? STATUS[e.status] : undefined) ?? 500;
  return upstreamHttpError({
    status,
    vendor: VENDOR,
    ...(typeof e?.status === "string" ? { vendorType: e.status } : {}),
    retryAfterMs: retryDelayMs(e?.details),
    body: JSON.stringify(e ?? null),
  });
}
