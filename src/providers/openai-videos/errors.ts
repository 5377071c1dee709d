// OpenAI error bodies and transport failures -> ConnectErrors (the vendor's
// text only in the log): the shared status table, plus moderation refusals.
import { Code, type ConnectError } from "@connectrpc/connect";
import { coreError } from "../../core/errors.js";
import { retryAfterMs, upstreamHttpError } from "../shared/http-errors.js";
import { errorBody } from "./wire.js";

export const VENDOR = "openai-videos";

export function fromVendorError(status: number, headers: Record<string, string | string[] | undefined>, json: unknown, now: number): ConnectError {
  const parsed = errorBody.safeParse(json);
  const e = parsed.success ? parsed.data.error : undefined;
  const code = e?.code ?? "";
  if (status === 400 && (code === "moderation_blocked" || code === "content_policy_violation" || e?.type === "image_generation_user_error")) {
    return coreError(Code.InvalidArgument, "Your request was blocked by the moderation system.", { reason: "moderation_blocked", metadata: { upstream: VENDOR } });
  }
  return upstreamHttpError({ status, vendor: VENDOR, vendorType: e?.type ?? code, retryAfterMs: retryAfterMs(headers, now), body: JSON.stringify(json ?? null).slice(0, 4096) });
}
