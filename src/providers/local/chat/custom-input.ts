// Inputs for custom tools (free-text input) in the local engine. A fenced
// block (```...```) in the user's words fits a tool when it matches the tool's
// regex grammar wholly, or starts and ends with the literals a Lark grammar's
// start rule must begin and end with (Codex's apply_patch: "*** Begin Patch"
// ... "*** End Patch"); such a block calls the tool by itself and is its input,
// verbatim. Otherwise the input is the user's first fenced block, a string
// sampled from a regex grammar, or a short text. Deterministic.
import type { CustomTool } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { clip, type FencedBlock, type PromptHints } from "./prompt.js";
import { matchesPattern, sampleRegex } from "./regex-sample.js";

type Grammar = { syntax: string; definition: string };

function grammarOf(t: CustomTool): Grammar | undefined {
  const f = t.format;
  if (f?.type !== "grammar" || typeof f.definition !== "string") return undefined;
  return { syntax: typeof f.syntax === "string" ? f.syntax : "", definition: f.definition };
}

// ---------------------------------------------------------------- Lark

const RULE = /^\s*[?!]?([A-Za-z_]\w*)(?:\.-?\d+)?\s*:(.*)$/;
const TOKEN = /"(?:[^"\\]|\\.)*"i?|\/(?:[^/\\\n]|\\.)+\/[imslux]*|->|[A-Za-z_]\w*|\d+|\.\.|[()[\]|?*+~]|\S/g;
/** Terminals that only add line breaks or spaces: a block is compared with its ends trimmed. */
const SPACE = new Set(["LF", "CR", "CRLF", "NEWLINE", "_NL", "_NEWLINE", "WS", "WS_INLINE", "_WS"]);
const MAX_DEPTH = 32;

/** The rules of a Lark grammar, by name: their bodies, alternatives joined. */
function larkRules(definition: string): Map<string, string> {
  const rules = new Map<string, string>();
  let last: string | undefined;
  for (const line of definition.split(/\r?\n/)) {
    const t = line.trim();
    if (!t || t.startsWith("//") || t.startsWith("%")) continue;
    if (t.startsWith("|") && last !== undefined) rules.set(last, `${rules.get(last)} ${t}`);
    else {
      const m = RULE.exec(line);
      last = m?.[1];
      if (m) rules.set(m[1]!, m[2]!);
    }
  }
  return rules;
}

interface Item {
  token: string;
  optional: boolean;
  /** A group or alternation: no single literal. */
  opaque: boolean;
}

/** A rule body as items in order; undefined when it has alternatives at its top level. */
function itemsOf(body: string): Item[] | undefined {
  const tokens = body.match(TOKEN) ?? [];
  const items: Item[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (tok === "->") break;
    if (tok === "|") return undefined;
    if (tok === "?" || tok === "*") {
      if (items.length) items.at(-1)!.optional = true;
      continue;
    }
    if (tok === "+" || tok === "~" || /^\d+$/.test(tok) || tok === "..") continue;
    if (tok === "(" || tok === "[") {
      // A group: skip to its match; [ ... ] is optional.
      const close = tok === "(" ? ")" : "]";
      let depth = 1;
      while (depth > 0 && ++i < tokens.length) depth += tokens[i] === tok ? 1 : tokens[i] === close ? -1 : 0;
      items.push({ token: tok, optional: tok === "[", opaque: true });
      continue;
    }
    items.push({ token: tok, optional: false, opaque: false });
  }
  return items;
}

/** The literal every match of `name` must begin (or, `fromEnd`, end) with; undefined when there is none. */
function edgeLiteral(rules: Map<string, string>, name: string, fromEnd: boolean, depth = 0): string | undefined {
  const body = rules.get(name);
  if (body === undefined || depth > MAX_DEPTH) return undefined;
  const items = itemsOf(body);
  if (!items) return undefined;
  for (const it of fromEnd ? items.reverse() : items) {
    if (SPACE.has(it.token)) continue;
    if (it.optional || it.opaque) return undefined;
    if (it.token.startsWith('"')) {
      try {
        return JSON.parse(it.token.replace(/i$/, "")) as string;
      } catch {
        return undefined;
      }
    }
    return /^[A-Za-z_]/.test(it.token) ? edgeLiteral(rules, it.token, fromEnd, depth + 1) : undefined;
  }
  return undefined;
}

/** The literals a Lark grammar's matches begin and end with (its `start` rule, else its first). */
export function larkEdges(definition: string): { lead?: string; trail?: string } {
  const rules = larkRules(definition);
  const start = rules.has("start") ? "start" : rules.keys().next().value;
  if (start === undefined) return {};
  const lead = edgeLiteral(rules, start, false)?.trim();
  const trail = edgeLiteral(rules, start, true)?.trim();
  return { ...(lead ? { lead } : {}), ...(trail ? { trail } : {}) };
}

// ---------------------------------------------------------------- fitting

/** Whether a fenced block's content fits the tool's grammar (never for free text: any text would). */
export function fitsTool(t: CustomTool, content: string): boolean {
  const g = grammarOf(t);
  if (!g) return false;
  if (g.syntax === "regex") return matchesPattern(content, `^(?:${g.definition})$`);
  if (g.syntax !== "lark") return false;
  const { lead, trail } = larkEdges(g.definition);
  if (!lead && !trail) return false;
  const body = content.trim();
  return (!lead || body.startsWith(lead)) && (!trail || body.endsWith(trail));
}

/** Where the first fenced block that fits the tool starts, or -1. */
export function fittingBlockAt(t: CustomTool, blocks: readonly FencedBlock[]): number {
  return blocks.find((b) => fitsTool(t, b.content))?.at ?? -1;
}

/** The input a call of the custom tool carries. */
export function customInput(t: CustomTool, hints: PromptHints): string {
  const fitting = hints.blocks.find((b) => fitsTool(t, b.content));
  if (fitting) return fitting.content;
  const g = grammarOf(t);
  if (g?.syntax === "regex") {
    const sampled = sampleRegex(g.definition);
    if (sampled !== undefined) return sampled;
  }
  if (hints.blocks[0]) return hints.blocks[0].content;
  if (g?.syntax === "lark") {
    // The best a text without a block can do: the grammar's fixed ends.
    const { lead, trail } = larkEdges(g.definition);
    if (lead || trail) return [lead, trail].filter(Boolean).join("\n");
  }
  return clip(hints.text, 200) || "example";
}
