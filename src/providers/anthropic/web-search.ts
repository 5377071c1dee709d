// Web search on Anthropic: the neutral WebSearchTool as the web_search server
// tool, and its server_tool_use + web_search_tool_result blocks as one
// neutral WebSearchCall that carries both blocks whole, so they go back to
// Anthropic as they came (encrypted content included). Pure.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import { PartSchema, WebSearchStatus, type Part, type WebSearchTool } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { WEB_SEARCH_NAME } from "../../core/chat/web-search.js";
import { approximateLocation } from "../shared/user-location.js";
import type * as wire from "./wire.js";

const VENDOR = "anthropic";
/** The server tool's type when the client named no version of its own. */
export const WEB_SEARCH_TYPE = "web_search_20250305";

/** The web_search server tool; `own` is a Messages client's own fields of it (its dated type among them). */
export function webSearchTool(w: WebSearchTool, own: JsonObject | undefined): wire.RequestTool {
  const t: Record<string, unknown> = { type: WEB_SEARCH_TYPE, name: WEB_SEARCH_NAME };
  if (w.maxUses > 0) t.max_uses = w.maxUses;
  if (w.allowedDomains.length) t.allowed_domains = w.allowedDomains;
  if (w.blockedDomains.length) t.blocked_domains = w.blockedDomains;
  const location = approximateLocation(w.userLocation);
  if (location) t.user_location = location;
  return (own ? { ...t, ...own } : t) as wire.RequestTool;
}

/** The blocks a WebSearchCall from Anthropic carries; none for another vendor's search (left out). */
export function webSearchBlocks(p: Part): wire.RequestBlock[] {
  const blocks = p.vendorExtras[VENDOR]?.blocks;
  return Array.isArray(blocks) ? (blocks.filter((b) => typeof b === "object" && b !== null && !Array.isArray(b)) as wire.RequestBlock[]) : [];
}

/** Whether a block is the web search's server_tool_use. */
export const isWebSearchUse = (b: wire.ResponseBlock): boolean => b.type === "server_tool_use" && b.name === WEB_SEARCH_NAME;

/** Whether `b` is the result of the web search `use`. */
export const isResultOf = (b: wire.ResponseBlock | undefined, use: wire.ResponseBlock): boolean => b?.type === "web_search_tool_result" && b.tool_use_id === use.id;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** A web search's server_tool_use and its result (none yet: in progress) -> one neutral WebSearchCall. */
export function webSearchPart(use: wire.ResponseBlock, result: wire.ResponseBlock | undefined): Part {
  const query = isObject(use.input) ? use.input.query : undefined;
  const content = result?.content as JsonValue | undefined;
  const sources = Array.isArray(content) ? content.flatMap((r) => (isObject(r) && typeof r.url === "string" ? [{ url: r.url, title: typeof r.title === "string" ? r.title : "" }] : [])) : [];
  const errorCode = isObject(content) && typeof content.error_code === "string" ? content.error_code : "";
  const status = !result ? WebSearchStatus.IN_PROGRESS : isObject(content) ? WebSearchStatus.FAILED : WebSearchStatus.COMPLETED;
  return create(PartSchema, {
    kind: { case: "webSearchCall", value: { id: use.id ?? "", queries: typeof query === "string" ? [query] : [], sources, status, errorCode } },
    vendorExtras: { [VENDOR]: { blocks: (result ? [use, result] : [use]) as JsonValue[] } },
  });
}

/**
 * The citations Anthropic can take back: a web search result location only
 * with the encrypted index Anthropic gave it (another vendor's search has
 * none, and Anthropic refuses such a citation).
 */
export function ownCitations(citations: JsonObject[]): JsonObject[] {
  if (!citations.some((c) => c.type === "web_search_result_location" && typeof c.encrypted_index !== "string")) return citations;
  return citations.filter((c) => c.type !== "web_search_result_location" || typeof c.encrypted_index === "string");
}
