// Upstream (OpenAI-compatible) failures -> ConnectError. Upstream text and
// keys never reach clients: a 400 names a param or code only when it is one of
// the gateway's own (the image request's fields, the image edge's codes); the
// body rides along as the cause, for the log.
import { Code, ConnectError } from "@connectrpc/connect";
import { coreError } from "../../core/errors.js";
import { UpstreamFailure } from "../shared/http-errors.js";
import { errorBody } from "./wire.js";

const MODERATION = new Set(["moderation_blocked", "content_policy_violation"]);
/** Fields of the client's image request, as the upstream may name them ("image[]" is the client's "image"). */
const PARAMS = new Map<string, string>([
  ...["model", "prompt", "n", "size", "quality", "style", "output_format", "background", "output_compression", "moderation", "input_fidelity", "user", "image", "mask"].map((p): [string, string] => [
    p,
    p,
  ]),
  ["image[]", "image"],
]);
/** Codes the image edge raises itself, so passing one on says nothing the gateway would not. */
const CODES = new Set([
  "invalid_value",
  "missing_required_parameter",
  "unsupported_parameter",
  "string_above_max_length",
  "integer_above_max_value",
  "integer_below_min_value",
  "invalid_image_format",
  "invalid_image_size",
  "image_not_square",
  "image_not_transparent",
  "invalid_mask_format",
  "invalid_mask_size",
  "too_many_images",
]);

export type Headers = Record<string, string | string[] | undefined>;

function header(h: Headers, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/** retry-after-ms, else retry-after (seconds or an HTTP date), in milliseconds. */
export function retryAfterMs(h: Headers, nowMs: number): number | undefined {
  const ms = Number(header(h, "retry-after-ms"));
  if (header(h, "retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const ra = header(h, "retry-after");
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra.trim())) return Number(ra) * 1000;
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

export function fromVendorError(status: number, headers: Headers, body: unknown, channel: string, nowMs: number): ConnectError {
  const parsed = errorBody.safeParse(body);
  const e = parsed.success ? parsed.data.error : undefined;
  const upstreamCode = e?.code === undefined || e.code === null ? "" : String(e.code);
  const code = CODES.has(upstreamCode) ? upstreamCode : "";
  const param = (e?.param && PARAMS.get(e.param)) || "";
  const metadata: Record<string, string> = { channel, upstream_status: String(status) };

  if (status === 401 || status === 403) {
    return coreError(Code.Internal, "The upstream provider refused the gateway's credentials for this model.", { reason: "upstream_auth", metadata });
  }
  if (status === 429) {
    const quota = upstreamCode === "insufficient_quota";
    const retry = retryAfterMs(headers, nowMs);
    return coreError(Code.ResourceExhausted, quota ? "The upstream provider's quota is exhausted." : "The upstream provider is rate limiting requests; retry later.", {
      reason: quota ? "upstream_quota" : "rate_limited",
      metadata: { ...metadata, code: quota ? "insufficient_quota" : "rate_limit_exceeded" },
      ...(retry !== undefined ? { retryAfterMs: retry } : {}),
    });
  }
  if (status >= 500 || status === 408) {
    return coreError(Code.Unavailable, "The upstream provider failed to process the request.", { reason: "upstream_error", metadata });
  }
  if (status === 404) {
    return coreError(Code.NotFound, "The upstream provider does not serve this model.", { reason: "model_not_found", field: "model", metadata: { ...metadata, code: "model_not_found" } });
  }
  if (status >= 400) {
    if (MODERATION.has(upstreamCode)) {
      return coreError(Code.InvalidArgument, "Your request was rejected as a result of the upstream safety system.", {
        reason: "moderation_blocked",
        metadata: { ...metadata, code: "moderation_blocked" },
      });
    }
    const what = [param && `param '${param}'`, code && `code '${code}'`].filter(Boolean).join(", ");
    return coreError(Code.InvalidArgument, `The upstream provider rejected the request${what ? ` (${what})` : ""}.`, {
      reason: code || "upstream_invalid_request",
      field: param,
      metadata: { ...metadata, ...(code ? { code } : {}) },
      cause: new UpstreamFailure(`openai upstream answered ${status}`, status, upstreamCode, JSON.stringify(body ?? null).slice(0, 4096)),
    });
  }
  return coreError(Code.Unknown, `The upstream provider answered with an unexpected status ${status}.`, { reason: "upstream_error", metadata });
}

/**
 * An error event in the middle of a streamed answer (`{"type":"error","error":{...}}`,
 * or the error's fields at the top): a refusal by the safety system, else the
 * upstream's failure.
 */
export function fromStreamError(body: unknown, channel: string): ConnectError {
  const b = body as { error?: unknown } | undefined;
  const parsed = errorBody.safeParse(b && typeof b === "object" && b.error && typeof b.error === "object" ? b : { error: b ?? {} });
  const code = parsed.success && parsed.data.error.code !== undefined && parsed.data.error.code !== null ? String(parsed.data.error.code) : "";
  const metadata = { channel, upstream_status: "200" };
  if (MODERATION.has(code)) {
    return coreError(Code.InvalidArgument, "Your request was rejected as a result of the upstream safety system.", {
      reason: "moderation_blocked",
      metadata: { ...metadata, code: "moderation_blocked" },
    });
  }
  return coreError(Code.Unavailable, "The upstream provider failed to process the request.", {
    reason: "upstream_error",
    metadata,
    cause: new UpstreamFailure("openai upstream sent an error event", 200, code, JSON.stringify(body ?? null).slice(0, 4096)),
  });
}

/** Transport failures (no HTTP answer) -> ConnectError. */
export function fromTransportError(err: unknown, channel: string): ConnectError {
  if (err instanceof ConnectError) return err;
  const e = err as { code?: string; name?: string };
  if (e?.name === "AbortError" || e?.code === "UND_ERR_ABORTED") return coreError(Code.Canceled, "The request was canceled.", { reason: "canceled", metadata: { channel } });
  if (e?.code === "UND_ERR_HEADERS_TIMEOUT" || e?.code === "UND_ERR_BODY_TIMEOUT" || e?.code === "UND_ERR_CONNECT_TIMEOUT") {
    return coreError(Code.DeadlineExceeded, "The upstream provider did not answer in time.", { reason: "upstream_timeout", metadata: { channel }, cause: err });
  }
  return coreError(Code.Unavailable, "The upstream provider could not be reached.", { reason: "upstream_unreachable", metadata: { channel }, cause: err });
}
