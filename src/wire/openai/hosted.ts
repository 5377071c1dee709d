// OpenAI's hosted tools and the Responses items they leave, as the neutral
// model carries them: a VendorTool of vendor "openai" whose type is one of
// HOSTED_TOOLS, and a part with no kind whose vendor_extras.openai is one whole
// Responses item. Only a Responses-API channel runs them; a Chat Completions
// channel and the other vendors refuse the tools and leave the items out.
import type { JsonObject } from "@bufbuild/protobuf";

/** Tools OpenAI runs on its side, on the Responses API only. */
export const HOSTED_TOOLS: ReadonlySet<string> = new Set([
  "file_search",
  "code_interpreter",
  "image_generation",
  "computer",
  "computer_use",
  "computer_use_preview",
  "mcp",
  "local_shell",
  "shell",
  "apply_patch",
]);

/** Whether OpenAI extras with a `type` are a whole Responses item (a hosted tool's call or output, a compaction) rather than a Chat Completions content part or tool call. */
export function isResponsesItem(x: JsonObject): boolean {
  const t = x.type;
  return typeof t === "string" && (/_call(_output)?$/.test(t) || t.startsWith("mcp_") || t === "compaction" || t === "tool_search_output");
}
