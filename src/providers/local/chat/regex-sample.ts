// Produces a string that matches a JSON Schema `pattern` (an ECMAScript
// regular expression) for the common subset: literals, escapes (\d \w \s),
// classes and ranges, `.`, groups, alternation and quantifiers. Anything it
// cannot read yields undefined and the caller falls back to other candidates.

import { patternTest } from "./safe-pattern.js";

type Node = { t: "chars"; pick: string } | { t: "seq"; items: Node[] } | { t: "alt"; options: Node[] } | { t: "rep"; node: Node; min: number; max: number };

const CLASS_SAMPLE: Record<string, string> = { d: "1", w: "a", s: " ", D: "a", W: "-", S: "a" };
/** Longest run a quantifier may produce (a larger minimum makes the sample fail the final check). */
const MAX_REPEAT = 256;
const NEGATED_CANDIDATES = ["a", "x", "A", "1", "_", "-", " ", "."];

class Parser {
  i = 0;
  constructor(readonly src: string) {}

  parseAlt(): Node {
    const options = [this.parseSeq()];
    while (this.src[this.i] === "|") {
      this.i++;
      options.push(this.parseSeq());
    }
    return options.length === 1 ? options[0]! : { t: "alt", options };
  }

  parseSeq(): Node {
    const items: Node[] = [];
    while (this.i < this.src.length && this.src[this.i] !== "|" && this.src[this.i] !== ")") {
      const atom = this.parseAtom();
      if (atom) items.push(this.parseQuantifier(atom));
    }
    return { t: "seq", items };
  }

  parseAtom(): Node | undefined {
    const c = this.src[this.i++]!;
    if (c === "^" || c === "$") return undefined;
    if (c === "(") {
      if (this.src[this.i] === "?") {
        const kind = this.src[this.i + 1];
        if (kind === ":") this.i += 2;
        else if (kind === "<" && this.src[this.i + 2] !== "=" && this.src[this.i + 2] !== "!") this.i = this.src.indexOf(">", this.i) + 1;
        else throw new Error("lookaround");
      }
      const inner = this.parseAlt();
      if (this.src[this.i++] !== ")") throw new Error("unclosed group");
      return inner;
    }
    if (c === "[") return this.parseClass();
    if (c === ".") return { t: "chars", pick: "a" };
    if (c === "\\") return { t: "chars", pick: this.escape() };
    if ("*+?{".includes(c)) throw new Error("dangling quantifier");
    return { t: "chars", pick: c };
  }

  escape(): string {
    const e = this.src[this.i++];
    if (e === undefined) throw new Error("trailing backslash");
    if (e in CLASS_SAMPLE) return CLASS_SAMPLE[e]!;
    if (e === "b" || e === "B") return "";
    if (e === "n") return "\n";
    if (e === "t") return "\t";
    if (e === "u" && /^[0-9a-fA-F]{4}$/.test(this.src.slice(this.i, this.i + 4))) {
      const ch = String.fromCharCode(parseInt(this.src.slice(this.i, this.i + 4), 16));
      this.i += 4;
      return ch;
    }
    if (/[1-9]/.test(e)) throw new Error("backreference");
    return e;
  }

  parseClass(): Node {
    const negated = this.src[this.i] === "^";
    if (negated) this.i++;
    const members: Array<[string, string]> = [];
    const classes: string[] = [];
    let first = true;
    while (this.i < this.src.length && (this.src[this.i] !== "]" || first)) {
      first = false;
      let lo = this.src[this.i++]!;
      if (lo === "\\") {
        const e = this.src[this.i]!;
        if (e in CLASS_SAMPLE) {
          this.i++;
          classes.push(e);
          continue;
        }
        lo = this.escape();
      }
      let hi = lo;
      if (this.src[this.i] === "-" && this.src[this.i + 1] !== "]" && this.i + 1 < this.src.length) {
        this.i++;
        hi = this.src[this.i++]!;
        if (hi === "\\") hi = this.escape();
      }
      members.push([lo, hi]);
    }
    if (this.src[this.i++] !== "]") throw new Error("unclosed class");
    const inClass = (ch: string) => members.some(([lo, hi]) => ch >= lo && ch <= hi) || classes.some((k) => new RegExp(`\\${k}`).test(ch));
    if (negated) {
      const pick = NEGATED_CANDIDATES.find((ch) => !inClass(ch));
      if (pick === undefined) throw new Error("empty negated class");
      return { t: "chars", pick };
    }
    if (members.length) {
      // Prefer a letter or digit inside the first range, for readable samples.
      const [lo, hi] = members[0]!;
      const nice = ["a", "A", "0", "1"].find((ch) => ch >= lo && ch <= hi);
      return { t: "chars", pick: nice ?? lo };
    }
    return { t: "chars", pick: CLASS_SAMPLE[classes[0] ?? "w"]! };
  }

  parseQuantifier(node: Node): Node {
    let min = 1;
    let max = 1;
    const c = this.src[this.i];
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) return node;
      min = Number(m[1]);
      max = m[2] ? (m[3] ? Number(m[3]) : Infinity) : min;
      this.i += m[0].length - 1;
    } else return node;
    this.i++;
    if (this.src[this.i] === "?" || this.src[this.i] === "+") this.i++;
    return { t: "rep", node, min, max };
  }
}

function emit(n: Node): string {
  switch (n.t) {
    case "chars":
      return n.pick;
    case "seq":
      return n.items.map(emit).join("");
    case "alt":
      return emit(n.options[0]!);
    case "rep": {
      const count = Math.min(n.max, Math.max(n.min, 1), MAX_REPEAT);
      return emit(n.node).repeat(count);
    }
  }
}

/** A string matching `pattern`, or undefined when the pattern is beyond this sampler. */
export function sampleRegex(pattern: string): string | undefined {
  try {
    const p = new Parser(pattern);
    const tree = p.parseAlt();
    if (p.i < pattern.length) return undefined;
    const out = emit(tree);
    return patternTest(pattern)?.(out) ? out : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `value` matches `pattern` (false when the pattern does not compile),
 * in time bounded for any value (safe-pattern.ts).
 */
export function matchesPattern(value: string, pattern: string): boolean {
  return patternTest(pattern)?.(value) ?? false;
}
