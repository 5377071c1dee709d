// Code execution: with a code_execution tool and a prompt that asks to
// calculate or run code, the engine "runs" Python: it finds the arithmetic in
// the prompt, emits ExecutableCode `print(<expr>)`, evaluates it safely
// (python-arith.ts, never eval) and reports the printed result.
import type { ChatInput } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { CodeOutcome } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { evalPython, formatPython, PyError } from "./python-arith.js";

const ASKS = /\b(calculate|calculation|compute|evaluate|run|execute|code|python|program|script|math)\b/i;
const GREETING = "Hello from omnigate's local engine!";

export interface CodeRun {
  /** The expression printed (empty when the prompt had none). */
  expression: string;
  code: string;
  outcome: CodeOutcome;
  output: string;
  /** The closing text part. */
  summary: string;
}

export function hasCodeExecution(input: ChatInput): boolean {
  return input.tools.some((t) => t.kind.case === "codeExecution");
}

/** Rewrites everyday arithmetic ("3 x 4", "2^10", "7 plus 5") as Python. */
function normalise(text: string): string {
  return text
    .replace(/[×✕]/g, "*")
    .replace(/÷/g, "/")
    .replace(/(\d)\s*x\s*(?=[\d(])/gi, "$1 * ")
    .replace(/\bto the power of\b/gi, "**")
    .replace(/\bdivided by\b/gi, "/")
    .replace(/\b(times|multiplied by)\b/gi, "*")
    .replace(/\bplus\b/gi, "+")
    .replace(/\bminus\b/gi, "-")
    .replace(/\bmod(ulo)?\b/gi, "%")
    .replace(/\^/g, "**");
}

const START = /[-(\d.]/;
const END = /[\d)]/;

/**
 * What `/[-(\d.][\d\s.+\-*\/%()]*[\d)]/g` matches, white space collapsed:
 * in each run of expression characters, from its first possible start to its
 * last possible end. Found run by run, because that regex rescans the rest of
 * a run from every position of a run it cannot match in (quadratic: a prompt
 * of 20,000 dashes took 2 s).
 */
export function expressionRuns(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/[\d\s.+\-*/%()]+/g)) {
    const run = m[0];
    let from = 0;
    while (from < run.length && !START.test(run[from]!)) from++;
    let to = run.length - 1;
    while (to > from && !END.test(run[to]!)) to--;
    if (to > from)
      out.push(
        run
          .slice(from, to + 1)
          .trim()
          .replace(/\s+/g, " "),
      );
  }
  return out;
}

/** The longest arithmetic expression in `text` with at least one operator. */
export function findExpression(text: string): string {
  let best = "";
  for (const cand of expressionRuns(normalise(text))) {
    if (!/\d\s*(\*\*|\/\/|[-+*/%])\s*[-(\d.]/.test(cand)) continue;
    try {
      evalPython(cand);
    } catch (err) {
      if (!(err instanceof PyError) || err.message.startsWith("SyntaxError")) continue;
    }
    if (cand.length > best.length) best = cand;
  }
  return best;
}

/** The run for this prompt, or undefined when the prompt does not ask for code. */
export function planCodeRun(input: ChatInput, said: string): CodeRun | undefined {
  if (!hasCodeExecution(input) || !ASKS.test(said)) return undefined;
  const expression = findExpression(said);
  if (!expression) {
    return { expression, code: `print(${JSON.stringify(GREETING)})`, outcome: CodeOutcome.OK, output: `${GREETING}\n`, summary: `The code printed: ${GREETING}` };
  }
  const code = `print(${expression})`;
  try {
    const value = formatPython(evalPython(expression));
    return { expression, code, outcome: CodeOutcome.OK, output: `${value}\n`, summary: `The result of ${expression} is ${value}.` };
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const output = `Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n${msg}\n`;
    return { expression, code, outcome: CodeOutcome.FAILED, output, summary: `Running ${code} failed: ${msg}` };
  }
}
