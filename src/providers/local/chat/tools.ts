// Tools in the local engine: which tools to call (tool_choice, tools the user
// asks for by name, custom tools a fenced block in the user's words fits), the
// calls themselves (arguments sampled from the JSON Schema, only the command
// for Codex's shell tools, vendor tools with sensible inputs, custom tools'
// free-text input from custom-input.ts), and the text answer to tool results.
import { type JsonObject } from "@bufbuild/protobuf";
import { create } from "../../../core/proto/create.js";
import { randomBytes } from "node:crypto";
import { PartSchema, Role, ToolChoiceMode, type ChatInput, type Part, type Tool, type ToolResult } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { customInput, fittingBlockAt } from "./custom-input.js";
import { clip, fencedBlocks, type FencedBlock, type PromptHints } from "./prompt.js";
import { commandOf } from "./sample-strings.js";
import { sampleArguments } from "./schema-sample.js";
import { hasWebSearch, WEB_SEARCH_NAME } from "../../../core/chat/web-search.js";

export type Callable = Extract<Tool["kind"], { case: "function" | "vendor" | "custom" }>;

export const toolName = (t: Callable) => t.value.name || (t.case === "vendor" ? t.value.type : "");

function callables(input: ChatInput): Callable[] {
  return input.tools.flatMap((t) => (t.kind.case === "function" || t.kind.case === "vendor" || t.kind.case === "custom" ? [t.kind] : []));
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const WORD_EDGE = "[^\\p{L}\\p{N}_]";

/** Whether position `i` of `text` starts a sentence or a line. */
function sentenceStart(text: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && /\s/.test(text[j]!)) j--;
  return j < 0 || ".!?:".includes(text[j]!) || text.slice(j, i).includes("\n");
}

/**
 * Where the user asks for the tool `name` in `text`, or -1. A name like an
 * identifier ("get_weather", "ToolSearch") counts wherever it stands as a
 * whole word, in any case. An everyday word ("Read", "lookup") counts as a
 * tool in any case ("use/call/with/via/run/invoke (the) <name>", "<name>
 * tool"), otherwise only as declared and, when capitalised, not where a
 * sentence starts: "read the notes" and "Write a haiku" call nothing.
 */
function mentionAt(text: string, name: string): number {
  if (!name) return -1;
  const n = escapeRe(name);
  const find = (re: string, flags: string) => new RegExp(`(^|${WORD_EDGE})${re}(?=$|${WORD_EDGE})`, flags);
  if (!/^[A-Za-z]+$/.test(name) || /[a-z][A-Z]/.test(name)) {
    const m = find(n, "iu").exec(text);
    return m ? m.index + m[1]!.length : -1;
  }
  const asTool = find(`(?:(?:use|call|using|with|via|run|invoke)\\s+(?:the\\s+)?${n}|${n}\\s+tools?)`, "iu").exec(text);
  let at = asTool ? asTool.index + asTool[1]!.length : -1;
  const capital = /^[A-Z]/.test(name);
  for (const m of text.matchAll(find(n, "gu"))) {
    const i = m.index + m[1]!.length;
    if (at >= 0 && i >= at) break;
    if (!capital || !sentenceStart(text, i)) {
      at = i;
      break;
    }
  }
  return at;
}

/** Where the user asks for the tool: names it, or (a custom tool) writes a fenced block that fits it; -1 when nowhere. */
function askedAt(t: Callable, said: string, blocks: () => FencedBlock[]): number {
  const at = mentionAt(said, toolName(t));
  if (t.case !== "custom") return at;
  const fit = fittingBlockAt(t.value, blocks());
  return at < 0 ? fit : fit < 0 ? at : Math.min(at, fit);
}

/** The tools to call for this input (empty: answer without tools). */
export function chooseTools(input: ChatInput, said: string): Callable[] {
  const choice = input.toolChoice;
  const mode = choice?.mode ?? ToolChoiceMode.UNSPECIFIED;
  if (mode === ToolChoiceMode.NONE) return [];
  const tools = callables(input);
  if (!tools.length) return [];
  let found: FencedBlock[] | undefined;
  const blocks = () => (found ??= fencedBlocks(said));
  const named = tools
    .map((t) => ({ t, at: askedAt(t, said, blocks) }))
    .filter((x) => x.at >= 0)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.t);
  let picked: Callable[] = named;
  if (mode === ToolChoiceMode.ANY) {
    // The web search is no tool of the engine's.
    const search = hasWebSearch(input);
    const allowed = choice?.allowedNames.filter((n) => n && !(search && n === WEB_SEARCH_NAME)) ?? [];
    if (allowed.length) {
      const inAllowed = named.filter((t) => allowed.includes(toolName(t)));
      const first = tools.find((t) => toolName(t) === allowed[0]);
      picked = inAllowed.length ? inAllowed : first ? [first] : [tools[0]!];
    } else picked = named.length ? named : [tools[0]!];
  }
  return choice?.disableParallel ? picked.slice(0, 1) : picked;
}

/** Inputs for Anthropic-style vendor tools (computer, bash, text editor). */
function vendorInput(type: string, name: string, hints: PromptHints): JsonObject {
  const kind = `${type} ${name}`.toLowerCase();
  if (kind.includes("bash") || kind.includes("shell")) return { command: commandOf(hints) };
  if (kind.includes("computer")) return { action: "screenshot" };
  if (kind.includes("edit")) return { command: "view", path: hints.paths.find((p) => p.startsWith("/")) ?? (hints.paths[0] ? `/${hints.paths[0]}` : "/tmp/README.md") };
  return {};
}

export function toolCallId(): string {
  return "toolu_" + randomBytes(12).toString("hex");
}

/** Anthropic's toolsets: the family a computer_toolset_* or browser_toolset_* offers. */
const TOOLSET = /^(computer|browser)_toolset_\d{8}$/;

/** Codex's shell tools: exec_command {cmd}, shell {command: argv}, shell_command {command}. */
const SHELL_TOOLS = new Set(["exec_command", "shell", "shell_command"]);
const COMMAND_KEYS = ["cmd", "command"];
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A shell tool's arguments: the command the user names (an argv list runs it
 * through `bash -lc`, as Codex's models do) and the other required arguments
 * sampled; none of the optional ones (workdir, tty, a `shell` to run it in).
 * Undefined for tools that are not one.
 */
function shellArguments(name: string, parameters: JsonObject | undefined, hints: PromptHints): JsonObject | undefined {
  if (!SHELL_TOOLS.has(name) || !parameters) return undefined;
  const props = isObject(parameters.properties) ? parameters.properties : {};
  const key = COMMAND_KEYS.find((k) => isObject(props[k]));
  if (!key) return undefined;
  const required = Array.isArray(parameters.required) ? parameters.required.filter((r): r is string => typeof r === "string" && r in props) : [];
  const only = { ...parameters, properties: Object.fromEntries(required.map((k) => [k, props[k]!])), required };
  const args = sampleArguments(only, hints);
  const cmd = commandOf(hints);
  args[key] = (props[key] as JsonObject).type === "array" ? ["bash", "-lc", cmd] : cmd;
  return args;
}

/** A ToolCall part for `tool`, with arguments that validate against its schema (a custom tool: its free-text input). */
export function toolCallPart(tool: Callable, hints: PromptHints): Part {
  if (tool.case === "custom") return create(PartSchema, { kind: { case: "toolCall", value: { id: toolCallId(), name: tool.value.name, input: customInput(tool.value, hints) } } });
  // A toolset is called through one of its members, as Anthropic does: the
  // screenshot member (both families have it, with nothing it needs), marked
  // with the toolset's family.
  const family = tool.case === "vendor" ? TOOLSET.exec(tool.value.type)?.[1] : undefined;
  if (family) return create(PartSchema, { kind: { case: "toolCall", value: { id: toolCallId(), name: "screenshot", arguments: {} } }, vendorExtras: { anthropic: { toolset_name: family } } });
  const args =
    tool.case === "function" ? (shellArguments(tool.value.name, tool.value.parameters, hints) ?? sampleArguments(tool.value.parameters, hints)) : vendorInput(tool.value.type, tool.value.name, hints);
  return create(PartSchema, { kind: { case: "toolCall", value: { id: toolCallId(), name: toolName(tool), arguments: args } } });
}

/**
 * The tool results that answer the request (the user turn at `request`):
 * those of the last user turn after it that holds results. The engine
 * answers them in text and calls no tool again for the same request.
 */
export function resultsSince(input: ChatInput, request: number): ToolResult[] {
  for (let i = input.turns.length - 1; i > request; i--) {
    const t = input.turns[i]!;
    if (t.role !== Role.USER) continue;
    const results = t.parts.flatMap((p) => (p.kind.case === "toolResult" ? [p.kind.value] : []));
    if (results.length) return results;
  }
  return [];
}

/** The name of a result's tool: its own, or that of the call it answers. */
export function resultToolName(input: ChatInput, r: ToolResult): string {
  if (r.name) return r.name;
  for (const t of input.turns) {
    if (t.role !== Role.ASSISTANT) continue;
    for (const p of t.parts) if (p.kind.case === "toolCall" && p.kind.value.id === r.callId) return p.kind.value.name;
  }
  return r.callId || "tool";
}

function resultText(r: ToolResult): string {
  const texts = r.content.flatMap((p) => (p.kind.case === "text" ? [p.kind.value.text] : p.kind.case === "media" ? [`[${p.kind.value.mimeType || "media"}]`] : []));
  const body = texts.join(" ").trim() || (r.structured ? JSON.stringify(r.structured) : "") || "nothing";
  return clip(body, 400);
}

/** The text answer to tool results: "The tool <name> returned: <result>". */
export function answerToolResults(input: ChatInput, results: ToolResult[]): string {
  return results.map((r) => `The tool ${resultToolName(input, r)} returned: ${resultText(r)}${r.isError ? " (reported as an error)" : ""}`).join("\n");
}
