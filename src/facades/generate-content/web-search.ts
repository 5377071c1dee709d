// Web search on the generate-content wire: the googleSearch tool <-> the
// neutral WebSearchTool, and a candidate's neutral WebSearchCalls ->
// groundingMetadata (Gemini's own as it came, else drawn from the searches:
// their queries, their sources as web chunks). Pure.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import { ToolSchema, type Part, type Tool, type WebSearchTool } from "../../../gen/omnigate/chat/v1/chat_pb.js";

const VENDOR = "gemini";

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

/** googleSearch -> the neutral tool: excludeDomains as blocked domains; its other settings (timeRangeFilter, ...) for Gemini as sent. */
export function toCoreGoogleSearch(cfg: JsonObject): Tool {
  const { excludeDomains, ...rest } = cfg;
  const blocked = isStrings(excludeDomains) ? excludeDomains : undefined;
  const own: JsonObject = blocked || excludeDomains === undefined ? rest : cfg;
  return create(ToolSchema, { kind: { case: "webSearch", value: { blockedDomains: blocked ?? [] } }, ...(Object.keys(own).length ? { vendorExtras: { [VENDOR]: own } } : {}) });
}

/** The neutral tool as googleSearch (a cached content's tools). */
export function fromCoreGoogleSearch(w: WebSearchTool, own: JsonObject | undefined): JsonObject {
  return { googleSearch: { ...(w.blockedDomains.length ? { excludeDomains: w.blockedDomains } : {}), ...own } };
}

/** The groundingMetadata Gemini sent with a search, when the part is Gemini's. */
export function ownGrounding(p: Part): JsonObject | undefined {
  const gm = p.vendorExtras[VENDOR]?.groundingMetadata;
  return gm && typeof gm === "object" && !Array.isArray(gm) ? gm : undefined;
}

/** groundingMetadata for a candidate's searches: Gemini's own (the first), else their queries and sources; undefined when there is nothing to tell. */
export function groundingOf(parts: Part[]): JsonObject | undefined {
  const searches = parts.filter((p) => p.kind.case === "webSearchCall");
  if (!searches.length) return undefined;
  const own = searches.map(ownGrounding).find((g) => g !== undefined);
  if (own) return own;
  const queries: string[] = [];
  const chunks: JsonValue[] = [];
  for (const p of searches) {
    if (p.kind.case !== "webSearchCall") continue;
    queries.push(...p.kind.value.queries);
    for (const s of p.kind.value.sources) chunks.push({ web: { uri: s.url, title: s.title } });
  }
  if (!queries.length && !chunks.length) return undefined;
  return { ...(queries.length ? { webSearchQueries: queries } : {}), ...(chunks.length ? { groundingChunks: chunks } : {}) };
}
