// Custom tools (free-text input, optionally held to a grammar) on upstreams
// that have only function tools (Anthropic, Gemini): emulated as a function
// tool of the same name with one required string parameter, "input", whose
// description carries the format; a call of that name comes back as a call of
// the custom tool, its input the "input" string (docs/translation.md). Pure.
import type { JsonObject } from "@bufbuild/protobuf";
import type { CustomTool, Tool } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { CUSTOM_INPUT } from "../../core/chat/tool-calls.js";

/** A grammar format's syntax and definition; undefined for free text (or a format type newer than this gateway). */
function grammarOf(t: CustomTool): { syntax: string; definition: string } | undefined {
  const f = t.format;
  if (f?.type !== "grammar" || typeof f.definition !== "string") return undefined;
  return { syntax: typeof f.syntax === "string" ? f.syntax : "", definition: f.definition };
}

const SYNTAX_NAMES: Record<string, string> = { lark: "Lark grammar", regex: "regular expression" };

/** What the input must be, for the "input" parameter's description. */
function inputDescription(t: CustomTool): string {
  const base = "The tool's whole input as free text, sent as it is (not JSON-encoded).";
  const g = grammarOf(t);
  if (!g) return base;
  const what = SYNTAX_NAMES[g.syntax] ?? `${g.syntax || "formal"} grammar`;
  return g.syntax === "regex" ? `${base} It must match this ${what}: ${g.definition}` : `${base} It must follow this ${what}:\n${g.definition}`;
}

/** The emulated function tool's description: the custom tool's own, and what its input must be. */
export function emulatedDescription(t: CustomTool): string {
  const g = grammarOf(t);
  const rule = g
    ? `Put the whole input in the "${CUSTOM_INPUT}" string; it must follow the ${SYNTAX_NAMES[g.syntax] ?? "grammar"} given in that parameter's description.`
    : `Put the whole input, as free text, in the "${CUSTOM_INPUT}" string.`;
  return t.description ? `${t.description}\n\n${rule}` : rule;
}

/** The emulated function tool's parameters: one required string, "input". */
export function emulatedParameters(t: CustomTool): JsonObject {
  return { type: "object", properties: { [CUSTOM_INPUT]: { type: "string", description: inputDescription(t) } }, required: [CUSTOM_INPUT] };
}

/** The names of the request's custom tools: calls of these names are custom calls. */
export function customToolNames(tools: Tool[]): ReadonlySet<string> {
  const out = new Set<string>();
  for (const t of tools) if (t.kind.case === "custom") out.add(t.kind.value.name);
  return out;
}

/** A custom call's input from the emulated tool's arguments: the "input" string, else the arguments as JSON (none: ""). */
export function customInputOf(args: JsonObject | undefined): string {
  const v = args?.[CUSTOM_INPUT];
  if (typeof v === "string") return v;
  return args && Object.keys(args).length ? JSON.stringify(args) : "";
}
