// Web search on Gemini: the neutral WebSearchTool as the googleSearch tool
// (when it can run: searchPlan), and an answer's groundingMetadata as one neutral WebSearchCall (its
// webSearchQueries, its web groundingChunks as sources, the whole metadata in
// vendor_extras.gemini) plus a citation per grounding support and chunk.
// Pure.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import { PartSchema, ToolChoiceMode, WebSearchStatus, type ChatInput, type Part, type WebSearchTool } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { forcesWebSearch, hasWebSearch } from "../../core/chat/web-search.js";
import type * as wire from "./wire.js";

const VENDOR = "gemini";

/** Whether the web search goes to Gemini: with the other tools, alone, left out, or there is none. */
export type SearchPlan = "with" | "only" | "out" | "none";

/**
 * What becomes of the web search on Gemini. A GenAI client's own request goes
 * as sent. Otherwise a tool choice that forces the search sends it alone (the
 * functions the choice does not allow are left out, as tool choices narrow the
 * tools elsewhere); a choice of none, or functions declared beside it, leave
 * it out: Gemini's generateContent takes Google Search beside functions only
 * on newer models, with includeServerSideToolInvocations and the server's
 * tool calls kept in the history, which the gateway does not carry; Codex's
 * every turn declares both, and must keep working.
 */
export function searchPlan(input: Pick<ChatInput, "tools" | "toolChoice">, own: boolean): SearchPlan {
  if (!hasWebSearch(input)) return "none";
  if (own) return "with";
  if (forcesWebSearch(input)) return "only";
  if (input.toolChoice?.mode === ToolChoiceMode.NONE) return "out";
  return input.tools.some((t) => t.kind.case === "function" || t.kind.case === "custom") ? "out" : "with";
}

/** The googleSearch tool: blocked domains as excludeDomains; `own` is a GenAI client's own fields of it. */
export function googleSearchTool(w: WebSearchTool, own: JsonObject | undefined): wire.Tool {
  const cfg: JsonObject = w.blockedDomains.length ? { excludeDomains: w.blockedDomains } : {};
  return { googleSearch: own ? { ...cfg, ...own } : cfg };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

interface Source {
  url: string;
  title: string;
}

/** The web sources of the grounding chunks, by chunk index (undefined for chunks that are no web page). */
function chunkSources(gm: Record<string, unknown>): (Source | undefined)[] {
  const chunks = Array.isArray(gm.groundingChunks) ? gm.groundingChunks : [];
  return chunks.map((c) => (isObject(c) && isObject(c.web) && typeof c.web.uri === "string" ? { url: c.web.uri, title: str(c.web.title) } : undefined));
}

/** Whether grounding metadata tells of a web search (queries or web sources). */
export function isWebGrounding(gm: Record<string, unknown> | undefined): gm is Record<string, unknown> {
  if (!gm) return false;
  return (Array.isArray(gm.webSearchQueries) && gm.webSearchQueries.length > 0) || chunkSources(gm).some((s) => s !== undefined);
}

/** The search a candidate's grounding metadata tells of, as a neutral WebSearchCall. */
export function groundingPart(gm: Record<string, unknown>, id: string): Part {
  const queries = Array.isArray(gm.webSearchQueries) ? gm.webSearchQueries.filter((q): q is string => typeof q === "string") : [];
  const sources = chunkSources(gm).filter((s): s is Source => s !== undefined);
  return create(PartSchema, {
    kind: { case: "webSearchCall", value: { id, queries, sources, status: WebSearchStatus.COMPLETED } },
    vendorExtras: { [VENDOR]: { groundingMetadata: gm as JsonValue } },
  });
}

/**
 * One citation per grounding support and web chunk it names, in the neutral
 * shape of a web search result location (url, title, the supported text as
 * cited_text; no encrypted index: only Anthropic's own carry one).
 */
export function groundingCitations(gm: Record<string, unknown>): JsonObject[] {
  const sources = chunkSources(gm);
  const supports = Array.isArray(gm.groundingSupports) ? gm.groundingSupports : [];
  const out: JsonObject[] = [];
  for (const s of supports) {
    if (!isObject(s) || !Array.isArray(s.groundingChunkIndices)) continue;
    const text = isObject(s.segment) ? str(s.segment.text) : "";
    for (const i of s.groundingChunkIndices) {
      const src = typeof i === "number" ? sources[i] : undefined;
      if (src) out.push({ type: "web_search_result_location", url: src.url, title: src.title, cited_text: text });
    }
  }
  return out;
}
