// The neutral web search tool as tool choices and upstreams see it: its name,
// and whether a tool choice leaves the model no other tool (docs/translation.md,
// "Web search"). Pure.
import { ToolChoiceMode, type ChatInput } from "../../../gen/omnigate/chat/v1/chat_pb.js";

/** What tool choices call a WebSearchTool (Anthropic's tool name). */
export const WEB_SEARCH_NAME = "web_search";

/** Whether the input declares a web search tool. */
export const hasWebSearch = (input: Pick<ChatInput, "tools">): boolean => input.tools.some((t) => t.kind.case === "webSearch");

/**
 * Whether the tool choice forces the web search: a call is required (ANY) and
 * the web search is the only tool it allows, by name or as the only tool
 * declared. An upstream without a search cannot honour that.
 */
export function forcesWebSearch(input: Pick<ChatInput, "tools" | "toolChoice">): boolean {
  const tc = input.toolChoice;
  if (tc?.mode !== ToolChoiceMode.ANY || !hasWebSearch(input)) return false;
  if (tc.allowedNames.length) return tc.allowedNames.every((n) => n === WEB_SEARCH_NAME);
  return input.tools.every((t) => t.kind.case === "webSearch");
}
