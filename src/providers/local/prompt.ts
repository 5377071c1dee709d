// What the local engine reads from a prompt: the last user text and the hints
// (capitalised names, numbers, dates, quoted snippets...) it derives values from.
import { Role, type ChatInput, type Turn } from "../../../gen/omnigate/chat/v1/chat_pb.js";

/** The last user turn, if any. */
export function lastUserTurn(input: ChatInput): Turn | undefined {
  for (let i = input.turns.length - 1; i >= 0; i--) if (input.turns[i]!.role === Role.USER) return input.turns[i];
  return undefined;
}

/** Text parts of one turn joined with spaces. */
export function turnText(turn: Turn | undefined): string {
  if (!turn) return "";
  return turn.parts.flatMap((p) => (p.kind.case === "text" ? [p.kind.value.text] : [])).join(" ").trim();
}

/** Text of the last user turn that has text (the thing the engine answers). */
export function lastUserText(input: ChatInput): string {
  for (let i = input.turns.length - 1; i >= 0; i--) {
    const t = input.turns[i]!;
    if (t.role !== Role.USER) continue;
    const text = turnText(t);
    if (text) return text;
  }
  return "";
}

/** Clips text to `max` characters (code points), adding "..." when cut. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? chars.slice(0, max).join("") + "..." : text;
}

/** The plain-text answer: an echo of the last user text. */
export function answerText(input: ChatInput): string {
  const said = lastUserText(input);
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
}

const STOPWORDS = new Set(
  "i a an the what what's whats how who when where why which please can could would will should tell get give find show call use run make let hello hi hey is are do does and or but in on at for to of with".split(" "),
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

export function promptHints(text: string): PromptHints {
  const all = (re: RegExp, g = 0) => [...text.matchAll(re)].map((m) => m[g]!);
  return {
    text,
    names: capitalisedRuns(text),
    numbers: all(/(?<![\p{L}\d.])-?\d+(?:\.\d+)?(?![\d-])/gu).map(Number).filter(Number.isFinite),
    dates: all(/\b\d{4}-\d{2}-\d{2}\b/g),
    // Starts only where a run of local-part characters starts: without the
    // lookbehind every position of a long run without an "@" rescans the run
    // (quadratic: 70,000 letters took 6 s).
    emails: all(/(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g),
    urls: all(/\bhttps?:\/\/[^\s"'<>`]+[^\s"'<>`.,;:!?)]/g),
    paths: all(/(?:^|\s)((?:\/[\w.-]+)+\/?|[\w-]+\.[a-z0-9]{1,5})(?=[\s,;:!?)]|\.?$)/gim, 1).filter((p) => !/^\d+\.\d+$/.test(p)),
    quoted: all(/`([^`\n]+)`|"([^"\n]+)"/g).map((q) => q.replace(/^[`"]|[`"]$/g, "")),
  };
}
