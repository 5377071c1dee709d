// Chat Completions tools and tool choices -> neutral ones: function tools
// (their `strict` for OpenAI), custom tools (free-text input, a grammar:
// neutral custom tools every vendor takes), tools of newer types (vendor tools
// OpenAI alone takes), the legacy functions API, the tool_choice forms the
// neutral choice cannot say (kept as sent for OpenAI), and web_search_options
// as the neutral web search. Pure.
import type { JsonObject } from "@bufbuild/protobuf";
import { unknownFields } from "../../core/json-fields.js";
import { create } from "../../core/proto/create.js";
import { ToolChoiceMode, ToolSchema, type Tool } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { extrasOf, VENDOR } from "./contents.js";
import type * as wire from "./wire.js";

const FUNCTION_TOOL_FIELDS = new Set(["type", "function"]);
const FUNCTION_DECL_FIELDS = new Set(["name", "description", "parameters"]);
const CUSTOM_TOOL_FIELDS = new Set(["type", "custom"]);
const CUSTOM_DECL_FIELDS = new Set(["name", "description", "format"]);
const GRAMMAR_FORMAT_FIELDS = new Set(["type", "grammar"]);

/**
 * A custom tool's format as the neutral model has it: a grammar flat
 * ({type, syntax, definition}, where this wire nests it under `grammar`), any
 * other format as sent. Fields beside `grammar` ride in the extras, for OpenAI.
 */
function customFormat(f: JsonObject): { format: JsonObject; beside?: JsonObject } {
  const g = f.grammar;
  if (f.type !== "grammar" || !g || typeof g !== "object" || Array.isArray(g)) return { format: f };
  const beside = unknownFields(f, GRAMMAR_FORMAT_FIELDS);
  return { format: { type: "grammar", ...(g as JsonObject) }, ...(beside ? { beside } : {}) };
}

function customTool(t: wire.CustomTool): Tool {
  const c = t.custom;
  const f = c.format ? customFormat(c.format as JsonObject) : undefined;
  let extras = extrasOf(t, CUSTOM_TOOL_FIELDS, "custom", CUSTOM_DECL_FIELDS);
  if (f?.beside) {
    const x = { ...(extras.vendorExtras?.[VENDOR] ?? {}) };
    x.custom = { ...((x.custom as JsonObject | undefined) ?? {}), format: f.beside };
    extras = { vendorExtras: { [VENDOR]: x } };
  }
  return create(ToolSchema, { kind: { case: "custom", value: { name: c.name, description: c.description ?? "", ...(f ? { format: f.format } : {}) } }, ...extras });
}

export function toCoreTool(t: wire.Tool): Tool {
  if (t.type === "function") {
    const f = (t as wire.FunctionTool).function;
    return create(ToolSchema, {
      kind: { case: "function", value: { name: f.name, description: f.description ?? "", ...(f.parameters ? { parameters: f.parameters as JsonObject } : {}) } },
      // strict and newer fields: for OpenAI.
      ...extrasOf(t, FUNCTION_TOOL_FIELDS, "function", FUNCTION_DECL_FIELDS),
    });
  }
  if (t.type === "custom") return customTool(t as wire.CustomTool);
  // A tool of a newer type: whole, for OpenAI only; other vendors refuse it.
  const { type, ...config } = t as { type: string } & Record<string, unknown>;
  const inner = config[type] as { name?: unknown } | undefined;
  const name = typeof inner?.name === "string" ? inner.name : typeof config.name === "string" ? config.name : "";
  return create(ToolSchema, { kind: { case: "vendor", value: { type, name, config: config as JsonObject, vendor: VENDOR } } });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/**
 * web_search_options (what OpenAI's search models take) -> the neutral web
 * search, so other vendors search too: search_context_size and the
 * approximate user_location, read as far as they are well formed. The field
 * itself still goes to OpenAI as sent (an OpenAI channel leaves the neutral
 * tool out).
 */
export function webSearchTool(o: unknown): Tool | undefined {
  if (!isObject(o)) return undefined;
  const loc = isObject(o.user_location) && isObject(o.user_location.approximate) ? o.user_location.approximate : undefined;
  const userLocation = loc ? { city: str(loc.city), region: str(loc.region), country: str(loc.country), timezone: str(loc.timezone) } : undefined;
  return create(ToolSchema, { kind: { case: "webSearch", value: { contextSize: str(o.search_context_size), ...(userLocation ? { userLocation } : {}) } } });
}

export function legacyTool(f: wire.LegacyFunction): Tool {
  return create(ToolSchema, {
    kind: { case: "function", value: { name: f.name, description: f.description ?? "", ...(f.parameters ? { parameters: f.parameters as JsonObject } : {}) } },
    ...extrasOf({ function: f }, new Set(["function"]), "function", FUNCTION_DECL_FIELDS),
  });
}

const MODES: Record<string, ToolChoiceMode> = { none: ToolChoiceMode.NONE, auto: ToolChoiceMode.AUTO, required: ToolChoiceMode.ANY };

export interface ChoiceOut {
  choice?: { mode: ToolChoiceMode; allowedNames: string[] };
  /** The client's tool_choice as sent, when the neutral choice cannot say it all. */
  asSent?: JsonObject[string];
}

const CHOICE_FUNCTION_FIELDS = new Set(["type", "function"]);
const NAMED_FIELDS = new Set(["name"]);

export function toCoreToolChoice(tc: wire.ToolChoice | null | undefined): ChoiceOut {
  if (tc === undefined || tc === null) return {};
  if (typeof tc === "string") return MODES[tc] !== undefined ? { choice: { mode: MODES[tc]!, allowedNames: [] } } : { asSent: tc };
  const o = tc as { type: string } & Record<string, unknown>;
  switch (o.type) {
    case "function": {
      const f = o.function as { name: string };
      const extra = unknownFields(o, CHOICE_FUNCTION_FIELDS) ?? unknownFields(f, NAMED_FIELDS);
      return { choice: { mode: ToolChoiceMode.ANY, allowedNames: [f.name] }, ...(extra ? { asSent: o as JsonObject } : {}) };
    }
    case "custom":
      return { choice: { mode: ToolChoiceMode.ANY, allowedNames: [(o.custom as { name: string }).name] }, asSent: o as JsonObject };
    case "allowed_tools": {
      const at = o.allowed_tools as { mode: string; tools: Record<string, unknown>[] };
      const names = at.tools.flatMap((t) => {
        const inner = (typeof t.type === "string" ? t[t.type] : undefined) as { name?: unknown } | undefined;
        const n = inner?.name ?? t.name;
        return typeof n === "string" ? [n] : [];
      });
      // "auto among these" has no neutral form (Gemini takes allowed names only with ANY): auto over every tool elsewhere.
      const choice = at.mode === "required" ? { mode: ToolChoiceMode.ANY, allowedNames: names } : at.mode === "auto" ? { mode: ToolChoiceMode.AUTO, allowedNames: [] } : undefined;
      return { ...(choice ? { choice } : {}), asSent: o as JsonObject };
    }
    default:
      return { asSent: o as JsonObject };
  }
}

export function legacyChoice(fc: wire.LegacyFunctionCall | null | undefined): ChoiceOut {
  if (fc === undefined || fc === null) return {};
  if (typeof fc === "string") return MODES[fc] !== undefined && fc !== "required" ? { choice: { mode: MODES[fc]!, allowedNames: [] } } : {};
  return { choice: { mode: ToolChoiceMode.ANY, allowedNames: [fc.name] } };
}
