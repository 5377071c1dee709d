// Web search on the Messages wire: a web_search_YYYYMMDD server tool <-> the
// neutral WebSearchTool, and a neutral WebSearchCall -> server_tool_use +
// web_search_tool_result blocks. Anthropic's own search comes back as the
// blocks it came in (encrypted content and all); another vendor's is drawn in
// the same two blocks with ids of the gateway's (GATEWAY_SEARCH_ID), which
// mark them when the client sends them back: they have no encrypted content
// Anthropic could take, so they become a search no upstream is sent. Pure.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import { PartSchema, ToolSchema, WebSearchStatus, type Part, type Tool, type WebSearchCall } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { WEB_SEARCH_NAME } from "../../core/chat/web-search.js";
import type * as wire from "./wire.js";

const VENDOR = "anthropic";

/** Anthropic's web search tool types, any version. */
export const isWebSearchType = (type: string | undefined): boolean => type !== undefined && /^web_search_\d{8}$/.test(type);

/** The start of the server_tool_use ids the gateway draws (Anthropic's own are srvtoolu_ and letters and digits). */
export const GATEWAY_SEARCH_ID = "srvtoolu_gw_";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const LOCATION_FIELDS = new Set(["type", "city", "region", "country", "timezone"]);

/**
 * A web_search server tool -> the neutral tool: max_uses, the domain lists
 * and user_location as far as they are well formed; the rest (its dated type,
 * allowed_callers, defer_loading, strict, newer fields, a setting in a shape
 * the neutral tool cannot hold) in vendor_extras, for Anthropic as sent.
 */
export function toCoreWebSearchTool(t: Record<string, unknown>, cacheControl: { cacheControl?: { type: string; ttl: string } }): Tool {
  const own: JsonObject = {};
  for (const [k, v] of Object.entries(t)) if (k !== "name" && k !== "cache_control" && v !== undefined) own[k] = v as JsonValue;
  const take = <T>(k: string, ok: (v: unknown) => v is T): T | undefined => {
    const v = t[k];
    if (!ok(v)) return undefined;
    delete own[k];
    return v;
  };
  const maxUses = take("max_uses", (v): v is number => Number.isInteger(v) && (v as number) > 0 && (v as number) <= 2 ** 31 - 1);
  const allowedDomains = take("allowed_domains", isStrings);
  const blockedDomains = take("blocked_domains", isStrings);
  const loc = take(
    "user_location",
    (v): v is Record<string, unknown> =>
      isObject(v) && (v.type == null || v.type === "approximate") && Object.keys(v).every((k) => LOCATION_FIELDS.has(k) && (v[k] == null || typeof v[k] === "string")),
  );
  const s = (v: unknown) => (typeof v === "string" ? v : "");
  const value = {
    maxUses: maxUses ?? 0,
    allowedDomains: allowedDomains ?? [],
    blockedDomains: blockedDomains ?? [],
    ...(loc ? { userLocation: { city: s(loc.city), region: s(loc.region), country: s(loc.country), timezone: s(loc.timezone) } } : {}),
  };
  return create(ToolSchema, { kind: { case: "webSearch", value }, ...cacheControl, vendorExtras: { [VENDOR]: own } });
}

/** Whether a block a client sent back is half of a search the gateway drew (another vendor's). */
export function isGatewaySearchBlock(b: { type: string; id?: unknown; tool_use_id?: unknown }): boolean {
  const id = b.type === "server_tool_use" ? b.id : b.type === "web_search_tool_result" ? b.tool_use_id : undefined;
  return typeof id === "string" && id.startsWith(GATEWAY_SEARCH_ID);
}

/** A half of a search the gateway drew, sent back: a neutral search with nothing of Anthropic's, which no upstream is sent. */
export function gatewaySearchPart(b: Record<string, unknown>): Part {
  const use = b.type === "server_tool_use";
  const query = use && isObject(b.input) && typeof b.input.query === "string" ? [b.input.query] : [];
  const sources =
    !use && Array.isArray(b.content) ? b.content.flatMap((r) => (isObject(r) && typeof r.url === "string" ? [{ url: r.url, title: typeof r.title === "string" ? r.title : "" }] : [])) : [];
  const id = String(use ? b.id : b.tool_use_id).slice(GATEWAY_SEARCH_ID.length);
  return create(PartSchema, { kind: { case: "webSearchCall", value: { id, queries: query, sources, status: use ? WebSearchStatus.IN_PROGRESS : WebSearchStatus.COMPLETED } } });
}

/**
 * A neutral search as Messages blocks: Anthropic's own as they came; another
 * vendor's as a server_tool_use (its first query as `query`, all of them as
 * `queries` when there are more) and a web_search_tool_result listing its
 * sources (an error with its code when it failed; none while in progress).
 */
export function webSearchBlocks(p: Part, w: WebSearchCall): wire.ResponseBlock[] {
  const own = p.vendorExtras[VENDOR]?.blocks;
  if (Array.isArray(own) && own.length) return own as unknown as wire.ResponseBlock[];
  const id = GATEWAY_SEARCH_ID + w.id.replace(/[^A-Za-z0-9_]/g, "");
  const input: JsonObject = { query: w.queries[0] ?? "" };
  if (w.queries.length > 1) input.queries = w.queries;
  const use = { type: "server_tool_use", id, name: WEB_SEARCH_NAME, input };
  if (w.status === WebSearchStatus.IN_PROGRESS) return [use as unknown as wire.ResponseBlock];
  const content =
    w.status === WebSearchStatus.FAILED
      ? { type: "web_search_tool_result_error", error_code: w.errorCode || "unavailable" }
      : w.sources.map((s) => ({ type: "web_search_result", url: s.url, title: s.title, encrypted_content: "", page_age: null }));
  return [use, { type: "web_search_tool_result", tool_use_id: id, content }] as unknown as wire.ResponseBlock[];
}
