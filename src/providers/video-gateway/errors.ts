// Error bodies of a remote video gateway and transport failures ->
// ConnectErrors (the vendor's text only in the log).
import type { ConnectError } from "@connectrpc/connect";
import { retryAfterMs, upstreamHttpError } from "../shared/http-errors.js";
import { errorBody } from "./wire.js";

export const VENDOR = "video-gateway";

export function fromVendorError(status: number, headers: Record<string, string | string[] | undefined>, json: unknown, now: number): ConnectError {
  const parsed = errorBody.safeParse(json);
  const d = parsed.success ? (parsed.data as Record<string, unknown>) : undefined;
  const e = (d && typeof d.error === "object" && d.error ? d.error : d) as { type?: unknown; code?: unknown } | undefined;
  const vendorType = typeof e?.type === "string" ? e.type : typeof e?.code === "string" ? e.code : "";
  return upstreamHttpError({ status, vendor: VENDOR, vendorType, retryAfterMs: retryAfterMs(headers, now), body: JSON.stringify(json ?? null).slice(0, 4096) });
}
