// Validation errors in the words the real Messages API uses (pydantic style):
// `max_tokens: Field required`, `messages.0.content.1.text: String should
// have at least 1 character`. A per-parse zod error map writes the texts, and
// describeIssues picks the one issue to report, looking inside unions for the
// branch the client evidently meant.
import type { z } from "zod";

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

const TYPE_NAMES: Record<string, string> = {
  string: "a valid string",
  number: "a valid number",
  int: "a valid integer",
  boolean: "a valid boolean",
  array: "a valid list",
  object: "a valid dictionary",
  record: "a valid dictionary",
  null: "None",
};

const plural = (n: number | bigint, word: string) => `${n} ${word}${Number(n) === 1 ? "" : "s"}`;
const quote = (v: unknown) => `'${String(v)}'`;

function oneOf(values: readonly unknown[]): string {
  const q = values.map(quote);
  return q.length <= 1 ? (q[0] ?? "") : `${q.slice(0, -1).join(", ")} or ${q.at(-1)}`;
}

function patternSource(p: unknown): string {
  if (p instanceof RegExp) return p.source;
  const m = /^\/(.*)\/[a-z]*$/s.exec(String(p));
  return m ? m[1]! : String(p);
}

/** The per-parse error map: pass as `{ error: pydanticMessages }` to safeParse. */
export function pydanticMessages(iss: RawIssue): string | undefined {
  switch (iss.code) {
    case "invalid_type":
      if (iss.input === undefined) return "Field required";
      return `Input should be ${TYPE_NAMES[iss.expected] ?? iss.expected}`;
    case "too_small": {
      const min = iss.minimum;
      if (iss.origin === "string") return `String should have at least ${plural(min, "character")}`;
      if (iss.origin === "array") return `List should have at least ${plural(min, "item")} after validation, not ${Array.isArray(iss.input) ? iss.input.length : 0}`;
      return `Input should be greater than ${iss.inclusive ? "or equal to " : ""}${min}`;
    }
    case "too_big": {
      const max = iss.maximum;
      if (iss.origin === "string") return `String should have at most ${plural(max, "character")}`;
      if (iss.origin === "array") return `List should have at most ${plural(max, "item")} after validation, not ${Array.isArray(iss.input) ? iss.input.length : 0}`;
      return `Input should be less than ${iss.inclusive ? "or equal to " : ""}${max}`;
    }
    case "invalid_value":
      return `Input should be ${oneOf(iss.values)}`;
    case "invalid_format":
      if (iss.format === "regex" && "pattern" in iss) return `String should match pattern '${patternSource(iss.pattern)}'`;
      if (iss.format === "url") return "Input should be a valid URL";
      return `Input should be a valid ${iss.format}`;
    case "unrecognized_keys":
      return "Extra inputs are not permitted";
    default:
      return undefined;
  }
}

export interface Described {
  /** Dotted path of the field, e.g. "messages.0.content.1.text" ("" for the body itself). */
  field: string;
  message: string;
}

type Path = PropertyKey[];

const isRootTypeMiss = (i: Issue) => i.path.length === 0 && i.code === "invalid_type";
// "custom": a branch for types the gateway does not know, refusing a known one.
const isTagMiss = (i: Issue) => i.path.length === 1 && i.path[0] === "type" && (i.code === "invalid_value" || i.code === "invalid_format" || i.code === "invalid_type" || i.code === "custom");

function describe(iss: Issue, prefix: Path): Described {
  const path = [...prefix, ...iss.path];
  if (iss.code === "invalid_union") {
    const input = (iss as { input?: unknown }).input;
    const u = iss as Issue & { errors: Issue[][]; note?: string; discriminator?: string; options?: unknown[] };
    if (u.note === "No matching discriminator") {
      const at = path.at(-1) === u.discriminator ? path.slice(0, -1) : path;
      const tag = input && typeof input === "object" ? (input as Record<string, unknown>)[u.discriminator ?? "type"] : undefined;
      const message =
        tag === undefined
          ? `Unable to extract tag using discriminator '${u.discriminator}'`
          : `Input tag ${quote(typeof tag === "string" ? tag : JSON.stringify(tag))} found using '${u.discriminator}' does not match any of the expected tags: ${(u.options ?? []).map(quote).join(", ")}`;
      return { field: join(at), message };
    }
    const viable = u.errors.filter((branch) => branch.length > 0 && !branch.some((i) => isRootTypeMiss(i) || isTagMiss(i)));
    viable.sort((a, b) => a.length - b.length);
    const chosen = viable[0]?.[0];
    if (chosen) return describe(chosen, path);
    if (input === undefined) return { field: join(path), message: "Field required" };
    if (input && typeof input === "object" && !Array.isArray(input) && "type" in input) {
      const tag = (input as Record<string, unknown>).type;
      return { field: join(path), message: `Input tag ${quote(typeof tag === "string" ? tag : JSON.stringify(tag))} found using 'type' does not match any of the expected tags` };
    }
    const expected = [
      ...new Set(
        u.errors
          .flat()
          .filter(isRootTypeMiss)
          .map((i) => TYPE_NAMES[(i as { expected: string }).expected] ?? (i as { expected: string }).expected),
      ),
    ];
    return { field: join(path), message: expected.length ? `Input should be ${expected.join(" or ")}` : "Invalid input" };
  }
  return { field: join(path), message: iss.message };
}

function join(path: Path): string {
  return path.map((p) => String(p)).join(".");
}

/** The first problem, in the client's words. */
export function describeIssues(issues: readonly Issue[]): Described {
  const first = issues[0];
  if (!first) return { field: "", message: "Invalid request" };
  return describe(first, []);
}

/** "field: message", or just the message for the body itself. */
export function issueText(d: Described): string {
  return d.field ? `${d.field}: ${d.message}` : d.message;
}
