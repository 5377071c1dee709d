// The error table of the OpenAI-shaped model endpoints: ConnectError (or a
// fastify error) -> status and {error: {message, type, param, code}}.
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail } from "../../core/errors.js";
import { openAIError, type OpenAIWireError } from "../shared/openai-error.js";

export { openAIError, type OpenAIErrorBody, type OpenAIWireError } from "../shared/openai-error.js";

const TABLE: Partial<Record<Code, { status: number; type: string; code: string | null }>> = {
  [Code.InvalidArgument]: { status: 400, type: "invalid_request_error", code: null },
  [Code.FailedPrecondition]: { status: 400, type: "invalid_request_error", code: null },
  [Code.OutOfRange]: { status: 400, type: "invalid_request_error", code: null },
  [Code.Unauthenticated]: { status: 401, type: "invalid_request_error", code: "invalid_api_key" },
  [Code.PermissionDenied]: { status: 403, type: "invalid_request_error", code: "permission_denied" },
  [Code.NotFound]: { status: 404, type: "invalid_request_error", code: "model_not_found" },
  [Code.ResourceExhausted]: { status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" },
  [Code.DeadlineExceeded]: { status: 504, type: "server_error", code: "timeout" },
  [Code.Unavailable]: { status: 503, type: "server_error", code: "service_unavailable" },
};

export function toOpenAIError(err: unknown): OpenAIWireError {
  if (err instanceof ConnectError) {
    const row = TABLE[err.code];
    if (!row) return openAIError(500, "internal error", "server_error");
    const detail = errorDetail(err);
    const param = err.code === Code.NotFound ? "model" : detail?.field || null;
    return openAIError(row.status, err.rawMessage, row.type, row.code, param);
  }
  const status = (err as { statusCode?: unknown })?.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) return openAIError(status, (err as Error).message, "invalid_request_error");
  return openAIError(500, "internal error", "server_error");
}
