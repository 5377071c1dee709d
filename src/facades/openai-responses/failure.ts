// A failure after the stream started, as the `error` of a `response.failed`
// Response: {code, message} with the codes clients act on (Codex: a wait for
// "Please try again in Ns" on rate_limit_exceeded, a fatal stop on
// context_length_exceeded and insufficient_quota, retries for the rest).
// Internal text never reaches the client.
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail, retryAfterSeconds } from "../../core/errors.js";

export interface ResponseFailure {
  code: string;
  message: string;
}

export const SERVER_ERROR = "The server had an error while processing your request. Sorry about that!";
export const CONTEXT_EXCEEDED = "Your input exceeds the context window of this model. Please adjust your input and try again.";

/** Reasons and upstream codes that mean the input does not fit the model's context window. */
const CONTEXT_REASONS = new Set(["context_length_exceeded", "context_window_exceeded", "model_context_window_exceeded"]);
/** Reasons that keep their name as the code (image checks, quota). */
const OWN_CODES = new Set(["invalid_image", "invalid_image_format", "insufficient_quota"]);

const sentence = (s: string) => s.replace(/[.\s]+$/, "");

export function failureOf(err: unknown): ResponseFailure {
  if (!(err instanceof ConnectError)) return { code: "server_error", message: SERVER_ERROR };
  const d = errorDetail(err);
  const reason = d?.reason ?? "";
  if (CONTEXT_REASONS.has(reason) || CONTEXT_REASONS.has(d?.metadata.code ?? "")) return { code: "context_length_exceeded", message: CONTEXT_EXCEEDED };
  if (reason === "budget_exhausted") return { code: "insufficient_quota", message: err.rawMessage };
  if (OWN_CODES.has(reason)) return { code: reason, message: err.rawMessage };
  switch (err.code) {
    case Code.ResourceExhausted:
      return { code: "rate_limit_exceeded", message: `${sentence(err.rawMessage || "Rate limit reached")}. Please try again in ${retryAfterSeconds(err) ?? 1}s.` };
    case Code.InvalidArgument:
    case Code.FailedPrecondition:
    case Code.OutOfRange:
      return { code: "invalid_prompt", message: err.rawMessage };
    case Code.Unavailable:
    case Code.DeadlineExceeded:
      return { code: "server_error", message: err.rawMessage || SERVER_ERROR };
    default:
      return { code: "server_error", message: SERVER_ERROR };
  }
}
