// The neutral web search's user location as Anthropic's web_search tool and
// OpenAI's Responses web_search tool both take it: {"type":"approximate", ...}
// with only the fields given; undefined when none is.
import type { WebSearchTool } from "../../../gen/omnigate/chat/v1/chat_pb.js";

export function approximateLocation(l: WebSearchTool["userLocation"]): Record<string, string> | undefined {
  if (!l || !(l.city || l.region || l.country || l.timezone)) return undefined;
  return {
    type: "approximate",
    ...(l.city ? { city: l.city } : {}),
    ...(l.region ? { region: l.region } : {}),
    ...(l.country ? { country: l.country } : {}),
    ...(l.timezone ? { timezone: l.timezone } : {}),
  };
}
