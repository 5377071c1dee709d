// Upstream failures as ConnectErrors with a machine-readable reason. The
// client sees the code and reason; upstream text and keys go only to the log
// (the original error rides along as `cause`).
import { Code, ConnectError } from "@connectrpc/connect";
import { coreError } from "../../core/errors.js";

/** Reasons the chat upstreams raise (ErrorDetail.reason). */
export const Reason = {
  rateLimited: "rate_limited",
  overloaded: "overloaded",
  timeout: "upstream_timeout",
  unreachable: "upstream_unavailable",
  auth: "upstream_auth",
  invalidRequest: "upstream_invalid_request",
  notFound: "upstream_model_not_found",
  tooLarge: "request_too_large",
  upstreamError: "upstream_error",
  truncated: "upstream_stream_truncated",
  protocol: "upstream_protocol_error",
  unsupported: "unsupported_by_upstream",
} as const;

/** Details of an upstream failure kept for the log only. */
export class UpstreamFailure extends Error {
  override name = "UpstreamFailure";
  constructor(
    message: string,
    readonly status: number,
    readonly vendorType: string,
    readonly body: string,
  ) {
    super(message);
  }
}

/** Milliseconds from a retry-after / retry-after-ms header (seconds or an HTTP date). */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | undefined {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const ms = one(headers["retry-after-ms"]);
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const ra = one(headers["retry-after"])?.trim();
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra)) return Math.round(Number(ra) * 1000);
  const t = Date.parse(ra);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}

export interface HttpErrorInfo {
  status: number;
  /** The vendor's own error type/status string, for the log and finer mapping. */
  vendorType?: string;
  retryAfterMs?: number | undefined;
  /** Raw body, for the log only. */
  body?: string;
  vendor: string;
}

/** Maps an upstream HTTP error status to a ConnectError. */
export function upstreamHttpError(info: HttpErrorInfo): ConnectError {
  const { status, vendor } = info;
  const cause = new UpstreamFailure(`${vendor} upstream answered ${status}`, status, info.vendorType ?? "", info.body ?? "");
  const opt = (reason: string, extra: { retryAfterMs?: number | undefined } = {}) => ({
    reason,
    cause,
    metadata: { upstream_status: String(status), upstream: vendor },
    ...(extra.retryAfterMs !== undefined ? { retryAfterMs: extra.retryAfterMs } : {}),
  });
  if (status === 429) return coreError(Code.ResourceExhausted, `the ${vendor} upstream is rate limiting requests`, opt(Reason.rateLimited, { retryAfterMs: info.retryAfterMs }));
  if (status === 529 || status === 503) return coreError(Code.Unavailable, `the ${vendor} upstream is overloaded`, opt(Reason.overloaded, { retryAfterMs: info.retryAfterMs }));
  if (status === 401 || status === 403) return coreError(Code.Internal, `the ${vendor} upstream rejected the gateway's credentials`, opt(Reason.auth));
  if (status === 404) return coreError(Code.NotFound, `the ${vendor} upstream does not serve this model`, opt(Reason.notFound));
  if (status === 413) return coreError(Code.InvalidArgument, `the request is too large for the ${vendor} upstream`, opt(Reason.tooLarge));
  if (status === 408 || status === 504) return coreError(Code.DeadlineExceeded, `the ${vendor} upstream timed out`, opt(Reason.timeout));
  if (status >= 400 && status < 500) return coreError(Code.InvalidArgument, `the ${vendor} upstream rejected the request as invalid`, opt(Reason.invalidRequest));
  if (status === 500) return coreError(Code.Internal, `the ${vendor} upstream failed`, opt(Reason.upstreamError));
  return coreError(Code.Unavailable, `the ${vendor} upstream failed`, opt(Reason.upstreamError));
}

/** Maps a transport-level failure (undici error, socket error, abort) to a ConnectError. */
export function transportError(err: unknown, vendor: string, phase: "connect" | "body"): ConnectError {
  if (err instanceof ConnectError) return err;
  const code = (err as { code?: string } | undefined)?.code ?? "";
  const name = (err as { name?: string } | undefined)?.name ?? "";
  const meta = { upstream: vendor };
  if (code === "UND_ERR_ABORTED" || name === "AbortError") return coreError(Code.Canceled, "the request was canceled", { reason: "canceled", cause: err, metadata: meta });
  if (code === "UND_ERR_HEADERS_TIMEOUT")
    return coreError(Code.DeadlineExceeded, `the ${vendor} upstream did not answer in time`, { reason: Reason.timeout, cause: err, metadata: { ...meta, phase: "first_byte" } });
  if (code === "UND_ERR_BODY_TIMEOUT")
    return coreError(Code.DeadlineExceeded, `the ${vendor} upstream stalled while answering`, { reason: Reason.timeout, cause: err, metadata: { ...meta, phase: "chunk_gap" } });
  if (code === "UND_ERR_CONNECT_TIMEOUT")
    return coreError(Code.Unavailable, `the ${vendor} upstream could not be reached in time`, { reason: Reason.unreachable, cause: err, metadata: { ...meta, phase: "connect" } });
  if (phase === "connect") return coreError(Code.Unavailable, `the ${vendor} upstream could not be reached`, { reason: Reason.unreachable, cause: err, metadata: { ...meta, phase: "connect" } });
  return coreError(Code.Unavailable, `the connection to the ${vendor} upstream broke`, { reason: Reason.truncated, cause: err, metadata: { ...meta, phase: "body" } });
}

/** A malformed answer from an upstream (bad JSON, impossible event order). */
export function protocolError(vendor: string, what: string, cause?: unknown): ConnectError {
  return coreError(Code.Internal, `the ${vendor} upstream sent a malformed answer`, { reason: Reason.protocol, cause: cause ?? new Error(what), metadata: { upstream: vendor } });
}

/**
 * What a translator of an upstream's answer threw: its own ConnectErrors as
 * they are; anything else (a field of the wrong type that a translator read
 * as the vendor documents it) is the upstream's malformed answer, not an
 * internal error.
 */
export function untranslatable(vendor: string, err: unknown): ConnectError {
  return err instanceof ConnectError ? err : protocolError(vendor, "the answer did not translate", err);
}

/** A feature the chosen upstream cannot take, refused with the neutral field path. */
export function unsupported(vendor: string, field: string, what: string): ConnectError {
  return coreError(Code.InvalidArgument, `${what} is not supported when the model is served by a ${vendor} upstream`, {
    reason: Reason.unsupported,
    field,
    metadata: { upstream: vendor },
  });
}
