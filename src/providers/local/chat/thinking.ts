// Thinking: whether the local engine thinks, and the deterministic thought
// text it shows (which says what the engine is about to do).
import type { ChatInput } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { clip } from "./prompt.js";
import { capTokens } from "./limits.js";

/** What the answer will be, as the thought text describes it. */
export type Intent =
  { kind: "tool_calls"; names: string[] } | { kind: "tool_results"; names: string[] } | { kind: "code"; expression: string } | { kind: "json" } | { kind: "enum" } | { kind: "text" };

/** Thinking is on when enabled, when a budget is given, or when thoughts are asked for; `enabled: false` turns it off. */
export function thinkingOn(input: ChatInput): boolean {
  const t = input.config?.thinking;
  if (!t || t.enabled === false) return false;
  return t.enabled === true || (t.budgetTokens ?? 0) > 0 || t.includeThoughts;
}

function plan(intent: Intent): string {
  switch (intent.kind) {
    case "tool_calls":
      return `The request names ${intent.names.join(" and ")}, so I should call ${intent.names.length > 1 ? "those tools" : "that tool"} with arguments taken from the request and matching the tool's schema.`;
    case "tool_results":
      return `The results of ${intent.names.join(" and ")} are in, so I will answer with what ${intent.names.length > 1 ? "they" : "it"} returned.`;
    case "code":
      return `This asks for a calculation. I can run a short Python snippet that prints ${intent.expression} and report the result.`;
    case "json":
      return "The answer must be JSON that matches the requested schema, so I will fill in every field.";
    case "enum":
      return "The answer must be exactly one of the allowed values, so I will pick the one that fits best.";
    case "text":
      return "I will answer by repeating what was said, which is what this local engine does.";
  }
}

/**
 * The thought text: a fixed shape derived from the prompt and the intent,
 * capped at `maxTokens` (the thinking budget).
 */
export function thinkingText(said: string, intent: Intent, maxTokens: number): string {
  const topic = said ? `"${clip(said.replace(/\s+/g, " "), 160)}"` : "the conversation so far";
  const text = `Let me think about ${topic}. ${plan(intent)} Nothing here needs more than one step, so I can answer right away.`;
  return capTokens(text, Math.max(1, maxTokens));
}
