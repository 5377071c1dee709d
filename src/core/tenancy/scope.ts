// Which formats and models a key may use. Admin keys may use everything.
import type { Principal } from "../call/call.js";
import { Code, coreError } from "../errors.js";

/** Marks errors raised by the tenancy gates (scope, budget, rate limit), so they can be recorded once. */
export const GATE = { gate: "tenancy" };
const denied = (message: string, reason: string) => coreError(Code.PermissionDenied, message, { reason, metadata: GATE });
import { globMatch } from "../routing/glob.js";

/** Wire formats a key can be scoped to. "core" is a direct RPC caller, "trpc" the typed frontends. */
export const FORMATS = ["messages", "generate-content", "openai-chat", "openai-responses", "images", "image-bot", "video", "core", "trpc", "embeddings"] as const;

export function checkFormat(p: Principal, format: string): void {
  if (p.admin || p.formats.length === 0 || p.formats.includes(format)) return;
  throw denied(`this API key may not use the ${format} interface`, "format_not_allowed");
}

export function checkModel(p: Principal | undefined, model: string): void {
  if (!p || p.admin || p.models.length === 0 || p.models.some((g) => globMatch(g, model))) return;
  throw denied(`this API key may not use model ${model}`, "model_not_allowed");
}
