// Errors inside the gateway are ConnectErrors carrying an ErrorDetail with a
// machine-readable reason; each facade renders them in its own wire format.
import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "./proto/create.js";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import { ErrorDetailSchema, type ErrorDetail } from "../../gen/omnigate/common/v1/common_pb.js";

export { Code, ConnectError };

export interface ErrorOptions {
  reason?: string;
  field?: string;
  retryAfterMs?: number;
  metadata?: Record<string, string>;
  cause?: unknown;
}

export function coreError(code: Code, message: string, opts: ErrorOptions = {}): ConnectError {
  const detail = create(ErrorDetailSchema, {
    reason: opts.reason ?? "",
    field: opts.field ?? "",
    metadata: opts.metadata ?? {},
    ...(opts.retryAfterMs !== undefined ? { retryAfter: durationFromMs(opts.retryAfterMs) } : {}),
  });
  return new ConnectError(message, code, undefined, [{ desc: ErrorDetailSchema, value: detail }], opts.cause);
}

export const invalidArgument = (message: string, field?: string, reason = "invalid_field") => coreError(Code.InvalidArgument, message, { field, reason });
export const notFound = (message: string, reason = "not_found") => coreError(Code.NotFound, message, { reason });
export const unauthenticated = (message = "invalid or missing API key", reason = "invalid_api_key") => coreError(Code.Unauthenticated, message, { reason });
export const permissionDenied = (message: string, reason = "permission_denied") => coreError(Code.PermissionDenied, message, { reason });

/** A provider's answer the neutral model cannot hold (core/proto/shape.ts names the fault). */
export const malformedAnswer = (fault: string) => coreError(Code.Internal, "the upstream sent a malformed answer", { reason: "upstream_protocol_error", cause: new Error(fault) });

/** The ErrorDetail of an error, when it carries one. */
export function errorDetail(err: ConnectError): ErrorDetail | undefined {
  return err.findDetails(ErrorDetailSchema)[0];
}

/** Converts anything thrown into a ConnectError; unknown errors become Internal without leaking their text. */
export function asConnectError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  const e = ConnectError.from(err);
  if (e.code === Code.Canceled || e.code === Code.DeadlineExceeded) return e;
  return new ConnectError("internal error", Code.Internal, undefined, undefined, err);
}

/** Retry-after in whole seconds, when the error says. */
export function retryAfterSeconds(err: ConnectError): number | undefined {
  const d = errorDetail(err)?.retryAfter;
  if (!d) return undefined;
  return Math.max(1, Math.ceil(Number(d.seconds) + d.nanos / 1e9));
}

/** Names the channel an error came from in its detail (unless it names one already), for the call's usage record. */
export function tagChannel(err: ConnectError, channel: string): ConnectError {
  if (!channel) return err;
  const entry = err.details.find((d) => "desc" in d && d.desc === ErrorDetailSchema) as { value: Partial<ErrorDetail> } | undefined;
  if (!entry) err.details.push({ desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { metadata: { channel } }) });
  else if (!entry.value.metadata?.channel) entry.value.metadata = { ...entry.value.metadata, channel };
  return err;
}
