// A fastify route constraint that tells the chat wire formats apart on shared
// paths such as GET /v1/models: Gemini callers send x-goog-api-key or ?key=,
// Anthropic callers send anthropic-version; everyone else gets the OpenAI shape.
// A facade registers its variant with `constraints: { wire: "anthropic" }`; the
// OpenAI variant is registered without the constraint and is the fallback.
import type { IncomingMessage } from "node:http";

export type Wire = "anthropic" | "gemini" | "openai";

export function wireOf(req: IncomingMessage): Wire {
  if (req.headers["x-goog-api-key"] !== undefined || /[?&]key=/.test(req.url ?? "")) return "gemini";
  if (req.headers["anthropic-version"] !== undefined) return "anthropic";
  return "openai";
}

export const wireConstraint = {
  name: "wire",
  storage() {
    const handlers = new Map<string, unknown>();
    return {
      get: (value: string) => (handlers.get(value) ?? null) as never,
      set: (value: string, store: unknown) => {
        handlers.set(value, store);
      },
    };
  },
  deriveConstraint: (req: IncomingMessage) => wireOf(req),
  mustMatchWhenDerived: false,
  validate(value: unknown) {
    if (value !== "anthropic" && value !== "gemini" && value !== "openai") throw new Error(`wire constraint must be anthropic, gemini or openai, got ${String(value)}`);
  },
};
