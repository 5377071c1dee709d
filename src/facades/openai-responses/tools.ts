// Responses tools and tool choices -> neutral ones. Pure.
//
// function -> FunctionTool (its `strict` for an OpenAI channel, in Chat's
// shape); custom -> CustomTool; namespace -> its members, each named
// "<namespace>__<name>" (ToolName maps the name back for the answer). Hosted
// tools: web_search (any version) is the neutral WebSearchTool (Codex
// declares it every turn; upstreams without a search leave it out);
// tool_search is left out (Codex runs its own tool search; no upstream has a
// neutral form of it); the ones OpenAI runs (file_search, code_interpreter,
// mcp, ...) go as sent to an OpenAI Responses channel and are refused by any
// other upstream; a type newer than the gateway is left out.
import type { JsonObject } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import { ToolChoiceMode, ToolSchema, type Tool } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { HOSTED_TOOLS } from "../../wire/openai/hosted.js";
import { WEB_SEARCH_NAME } from "../../core/chat/web-search.js";
import { VENDOR } from "./contents.js";
import type { ToolName } from "./meta.js";
import type * as wire from "./wire.js";

/** OpenAI's web search tool types (and those of its tool_choice), every version: the neutral WebSearchTool. */
export const WEB_SEARCH: ReadonlySet<string> = new Set(["web_search", "web_search_preview", "web_search_2025_08_26", "web_search_preview_2025_03_11"]);

/** The neutral name of a namespace member. */
export const memberName = (namespace: string, name: string): string => `${namespace}__${name}`;

export interface ToolsOut {
  tools: Tool[];
  /** The client's path of each neutral tool ("tools[2]", "tools[3].tools[0]", "input[0].tools[1]"). */
  origins: string[];
  /** Neutral name -> the client's tool. */
  names: Map<string, ToolName>;
}

export const emptyTools = (): ToolsOut => ({ tools: [], origins: [], names: new Map() });

function functionTool(t: wire.FunctionTool, name: string): Tool {
  return create(ToolSchema, {
    kind: { case: "function", value: { name, description: t.description ?? "", ...(t.parameters ? { parameters: t.parameters as JsonObject } : {}) } },
    // Chat Completions' place for it; the provider lays it over the tool it builds.
    ...(typeof t.strict === "boolean" ? { vendorExtras: { [VENDOR]: { function: { strict: t.strict } } } } : {}),
  });
}

function customTool(t: wire.CustomTool, name: string): Tool {
  return create(ToolSchema, { kind: { case: "custom", value: { name, description: t.description ?? "", ...(t.format ? { format: t.format as JsonObject } : {}) } } });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/**
 * A web search tool -> the neutral one: filters.allowed_domains,
 * user_location, search_context_size (read as far as they are what OpenAI
 * documents; anything else of it, such as Codex's external_web_access, has no
 * upstream to go to). Declared twice (web_search and web_search_preview): once.
 */
function addWebSearch(out: ToolsOut, t: Record<string, unknown>, at: string): void {
  if (out.tools.some((x) => x.kind.case === "webSearch")) return;
  const loc = isObject(t.user_location) ? t.user_location : undefined;
  const userLocation = loc ? { city: str(loc.city), region: str(loc.region), country: str(loc.country), timezone: str(loc.timezone) } : undefined;
  const allowedDomains = isObject(t.filters) ? strings(t.filters.allowed_domains) : [];
  out.tools.push(create(ToolSchema, { kind: { case: "webSearch", value: { allowedDomains, contextSize: str(t.search_context_size), ...(userLocation ? { userLocation } : {}) } } }));
  out.origins.push(at);
}

/** A tool OpenAI runs (file_search, code_interpreter, ...): as sent, for an OpenAI Responses channel; other upstreams refuse it. */
function addHosted(out: ToolsOut, t: Record<string, unknown>, at: string): void {
  const { type, ...config } = t;
  out.tools.push(create(ToolSchema, { kind: { case: "vendor", value: { type: String(type), vendor: VENDOR, config: config as JsonObject } } }));
  out.origins.push(at);
}

/** Whether the client declared a web search. */
export const hasWebSearchTool = (out: ToolsOut): boolean => out.tools.some((t) => t.kind.case === "webSearch");

function addMember(out: ToolsOut, t: wire.MemberTool, at: string, namespace?: string): void {
  if (t.type !== "function" && t.type !== "custom") return; // a newer kind inside a namespace: left out
  const m = t as wire.FunctionTool | wire.CustomTool;
  const name = namespace ? memberName(namespace, m.name) : m.name;
  // Declared twice (in tools and again in additional_tools): once, as upstreams want names unique.
  if (out.names.has(name)) return;
  out.tools.push(m.type === "function" ? functionTool(m, name) : customTool(m, name));
  out.origins.push(at);
  out.names.set(name, { type: m.type, name: m.name, ...(namespace ? { namespace } : {}) });
}

/** Adds the client's tools (`at` is the path of their array) to `out`. */
export function addTools(out: ToolsOut, tools: wire.Tool[], at: string): void {
  tools.forEach((t, i) => {
    const path = `${at}[${i}]`;
    if (t.type === "namespace") {
      const ns = t as wire.NamespaceTool;
      ns.tools.forEach((m, j) => addMember(out, m, `${path}.tools[${j}]`, ns.name));
      return;
    }
    if (t.type === "function" || t.type === "custom") return addMember(out, t as wire.MemberTool, path);
    if (WEB_SEARCH.has(t.type)) return addWebSearch(out, t as Record<string, unknown>, path);
    if (HOSTED_TOOLS.has(t.type)) return addHosted(out, t as Record<string, unknown>, path);
    // tool_search and newer kinds: left out (see above).
  });
}

/**
 * The neutral name of the tool a call or a tool_choice names: its namespace's
 * member when it gives one, else a top-level tool of that name, else the one
 * namespace member of that name.
 */
export function neutralName(names: ReadonlyMap<string, ToolName>, name: string, namespace?: string | null): string {
  if (namespace) return memberName(namespace, name);
  if (names.has(name) && !names.get(name)!.namespace) return name;
  let found: string | undefined;
  for (const [neutral, t] of names) {
    if (t.name !== name || !t.namespace) continue;
    if (found) return name;
    found = neutral;
  }
  return found ?? name;
}

const MODES: Record<string, ToolChoiceMode> = { none: ToolChoiceMode.NONE, auto: ToolChoiceMode.AUTO, required: ToolChoiceMode.ANY };

export interface ChoiceOut {
  choice?: { mode: ToolChoiceMode; allowedNames: string[] };
  /** The choice in Chat Completions' shape, for an OpenAI channel, when the neutral choice cannot say it all. */
  asSent?: JsonObject;
}

/** A tool of allowed_tools: its neutral name, and its Chat shape (none for the web search, which Chat Completions has not); undefined for other hosted ones. */
function allowedTool(t: Record<string, unknown>, names: ReadonlyMap<string, ToolName>, webSearch: boolean): { name: string; chat?: JsonObject } | undefined {
  if (webSearch && typeof t.type === "string" && WEB_SEARCH.has(t.type)) return { name: WEB_SEARCH_NAME };
  if ((t.type !== "function" && t.type !== "custom") || typeof t.name !== "string") return undefined;
  const name = neutralName(names, t.name, typeof t.namespace === "string" ? t.namespace : undefined);
  return { name, chat: t.type === "function" ? { type: "function", function: { name } } : { type: "custom", custom: { name } } };
}

/**
 * tool_choice -> the neutral choice. The web search's, when one is declared,
 * requires it; another hosted tool's choice or a newer form says nothing (the
 * upstream's default, auto).
 */
export function toCoreToolChoice(tc: wire.ToolChoice | null | undefined, names: ReadonlyMap<string, ToolName>, webSearch = false): ChoiceOut {
  if (tc == null) return {};
  if (typeof tc === "string") return MODES[tc] !== undefined ? { choice: { mode: MODES[tc]!, allowedNames: [] } } : {};
  const o = tc as { type: string; name?: string; namespace?: string | null } & Record<string, unknown>;
  switch (o.type) {
    case "function":
      return { choice: { mode: ToolChoiceMode.ANY, allowedNames: [neutralName(names, o.name!, o.namespace)] } };
    case "custom": {
      const name = neutralName(names, o.name!, o.namespace);
      return { choice: { mode: ToolChoiceMode.ANY, allowedNames: [name] }, asSent: { type: "custom", custom: { name } } };
    }
    case "allowed_tools": {
      const mode = o.mode as string;
      const picked = (o.tools as Record<string, unknown>[]).flatMap((t) => allowedTool(t, names, webSearch) ?? []);
      const allowedNames = picked.map((p) => p.name);
      // "auto among these" has no neutral form (Gemini takes allowed names only with ANY): auto over every tool elsewhere.
      const choice = mode === "required" ? { mode: ToolChoiceMode.ANY, allowedNames } : mode === "auto" ? { mode: ToolChoiceMode.AUTO, allowedNames: [] } : undefined;
      return { ...(choice ? { choice } : {}), asSent: { type: "allowed_tools", allowed_tools: { mode, tools: picked.flatMap((p) => p.chat ?? []) } } };
    }
    default:
      return webSearch && WEB_SEARCH.has(o.type) ? { choice: { mode: ToolChoiceMode.ANY, allowedNames: [WEB_SEARCH_NAME] } } : {};
  }
}
