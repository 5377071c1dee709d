// What the local engine reads from a prompt: the user's own words in the turn
// it answers (not the context blocks agent clients add to user turns) and the
// hints (capitalised names, numbers, dates, quoted snippets...) it derives
// values from.
import { Role, type ChatInput, type Turn } from "../../../../gen/omnigate/chat/v1/chat_pb.js";

/**
 * Tags of the blocks agent clients add to user turns: Claude Code's
 * `<system-reminder>`, Gemini CLI's `<session_context>`, Codex's
 * `<environment_context>` and `<user_instructions>`, Cline's
 * `<environment_details>`, Copilot's `<context>` and `<reminderInstructions>`,
 * Claude Code's `<local-command-stdout>` and kin.
 */
const CONTEXT_TAG = /^(?:context|env|environment.*|.*[_-]context|.*reminder.*|(?:user|system)[_-]?instructions|local[_-]command[_-].*)$/i;

/**
 * `text` without the client-added context blocks it holds (`<tag ...>` to the
 * next `</tag>`). Linear: the closing tags are found in one pass first, and
 * each opening takes the next close of its name after it.
 */
export function stripClientContext(text: string): string {
  if (!text.includes("<")) return text.trim();
  const closes = new Map<string, number[]>();
  for (const m of text.matchAll(/<\/([A-Za-z][\w-]{0,63})>/g)) {
    if (!CONTEXT_TAG.test(m[1]!)) continue;
    const at = closes.get(m[1]!);
    if (at) at.push(m.index);
    else closes.set(m[1]!, [m.index]);
  }
  if (!closes.size) return text.trim();
  const next = new Map<string, number>();
  const open = /<([A-Za-z][\w-]{0,63})(?:\s[^<>]*)?>/g;
  let out = "";
  let from = 0;
  for (let m = open.exec(text); m; m = open.exec(text)) {
    const name = m[1]!;
    const at = closes.get(name);
    if (!at) continue;
    let k = next.get(name) ?? 0;
    while (k < at.length && at[k]! < open.lastIndex) k++;
    next.set(name, k);
    if (k === at.length) continue;
    out += text.slice(from, m.index);
    from = open.lastIndex = at[k]! + name.length + 3;
  }
  return (out + text.slice(from)).trim();
}

/** The user's own words in one turn: its text parts less client-added context, joined with spaces. */
export function turnText(turn: Turn): string {
  const texts: string[] = [];
  for (const p of turn.parts) {
    if (p.kind.case !== "text") continue;
    const own = stripClientContext(p.kind.value.text);
    if (own) texts.push(own);
  }
  return texts.join(" ");
}

/**
 * The user turn the engine answers (the request) and the user's own words in
 * it: the last user turn with words of the user's own and no tool results
 * (text beside results is the client's, as Claude Code's "Tool loaded.").
 * Index -1 and no words when there is none.
 */
export function userRequest(input: ChatInput): { index: number; said: string } {
  for (let i = input.turns.length - 1; i >= 0; i--) {
    const t = input.turns[i]!;
    if (t.role !== Role.USER || t.parts.some((p) => p.kind.case === "toolResult")) continue;
    const said = turnText(t);
    if (said) return { index: i, said };
  }
  return { index: -1, said: "" };
}

/** Clips text to `max` characters (code points), adding "..." when cut. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? chars.slice(0, max).join("") + "..." : text;
}

/** The plain-text answer: an echo of the user's words. */
export function answerText(said: string): string {
  return said ? `You said: ${clip(said, 400)}` : "Hello from omnigate's local engine.";
}

/** Values found in a prompt, used to fill tool arguments and JSON answers. */
export interface PromptHints {
  text: string;
  /** Runs of capitalised words that do not start a sentence (names, places), best first. */
  names: string[];
  numbers: number[];
  /** ISO dates (YYYY-MM-DD). */
  dates: string[];
  emails: string[];
  urls: string[];
  /** Unix-like paths or file names (x.ext). */
  paths: string[];
  /** Text between backticks or quotes. */
  quoted: string[];
  /** What follows "run:", "execute:" or "command:" to the end of its line. */
  commands: string[];
  /** Fenced blocks (``` or ~~~), in order. */
  blocks: FencedBlock[];
}

export interface FencedBlock {
  /** The lines between the fences, as written. */
  content: string;
  /** Where the opening fence stands in the text. */
  at: number;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})[^`\n]*$/;

/** The fenced blocks of `text`: an opening fence line to the next closing fence of its kind and at least its length. One pass. */
export function fencedBlocks(text: string): FencedBlock[] {
  const out: FencedBlock[] = [];
  const lines = text.split("\n");
  let offset = 0;
  let open: { fence: string; at: number; from: number } | undefined;
  lines.forEach((line, i) => {
    const l = line.replace(/\r$/, "");
    if (open) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(l);
      if (close && close[1]![0] === open.fence[0] && close[1]!.length >= open.fence.length) {
        out.push({ content: lines.slice(open.from, i).join("\n"), at: open.at });
        open = undefined;
      }
    } else {
      const m = FENCE_OPEN.exec(l);
      if (m) open = { fence: m[1]!, at: offset, from: i + 1 };
    }
    offset += line.length + 1;
  });
  return out;
}

const STOPWORDS = new Set(
  "i a an the what what's whats how who when where why which please can could would will should tell get give find show call use run make let hello hi hey is are do does and or but in on at for to of with".split(
    " ",
  ),
);

function capitalisedRuns(text: string): string[] {
  const primary: string[] = [];
  const fallback: string[] = [];
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    const words = [...sentence.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu)];
    let run: string[] = [];
    let runStartsSentence = false;
    const flush = () => {
      if (run.length) (runStartsSentence ? fallback : primary).push(run.join(" "));
      run = [];
    };
    words.forEach((m, i) => {
      const w = m[0];
      const capital = /^\p{Lu}/u.test(w) && !/[_]/.test(w) && !STOPWORDS.has(w.toLowerCase());
      if (capital) {
        if (!run.length) runStartsSentence = i === 0;
        run.push(w.replace(/['’]s$/u, ""));
      } else flush();
    });
    flush();
  }
  return [...new Set([...primary, ...fallback])];
}

/** The numbers written in `text`, in order. */
export function numbersIn(text: string): number[] {
  return [...text.matchAll(/(?<![\p{L}\d.])-?\d+(?:\.\d+)?(?![\d-])/gu)].map((m) => Number(m[0])).filter(Number.isFinite);
}

export function promptHints(text: string): PromptHints {
  const all = (re: RegExp, g = 0) => [...text.matchAll(re)].map((m) => m[g]!);
  return {
    text,
    names: capitalisedRuns(text),
    numbers: numbersIn(text),
    dates: all(/\b\d{4}-\d{2}-\d{2}\b/g),
    // Starts only where a run of local-part characters starts: without the
    // lookbehind every position of a long run without an "@" rescans the run
    // (quadratic: 70,000 letters took 6 s).
    emails: all(/(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g),
    urls: all(/\bhttps?:\/\/[^\s"'<>`]+[^\s"'<>`.,;:!?)]/g),
    paths: all(/(?:^|\s)((?:\/[\w.-]+)+\/?|[\w-]+\.[a-z0-9]{1,5})(?=[\s,;:!?)]|\.?$)/gim, 1).filter((p) => !/^\d+\.\d+$/.test(p)),
    quoted: all(/`([^`\n]+)`|"([^"\n]+)"/g).map((q) => q.replace(/^[`"]|[`"]$/g, "")),
    commands: all(/\b(?:run|execute|command)[ \t]*:[ \t]*([^\n]*[^\s])/gi, 1).map((c) => c.replace(/^([`"'])(.+)\1$/, "$2")),
    blocks: fencedBlocks(text),
  };
}
