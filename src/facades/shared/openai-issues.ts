// zod issues -> OpenAI's 400, for the facades that answer in OpenAI's shape:
// the message texts the API writes for a missing, mistyped, out-of-range or
// unknown value, and `param` as it names the field
// ("messages[0].content[1].image_url.url"). One issue is reported, as the API
// does; inside a union the branch that got furthest speaks for it.
import type { z } from "zod";

export interface Issue {
  message: string;
  param: string | null;
  code: string | null;
}

/** What differs between the endpoints. */
export interface IssueRules {
  /** The integer fields (the others that take numbers take decimals). */
  integers: ReadonlySet<string>;
  /** The discriminator a union names when zod does not say ("type"; "" for none). */
  discriminator: string;
  /** Supported values of a discriminator, in the order OpenAI lists them, where it differs from the schema's. */
  listed?: Readonly<Record<string, readonly string[]>>;
  /** Chat Completions' own text for a missing model. */
  missingModel?: string;
}

type ZIssue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** A path as OpenAI writes it: dots between names, brackets around indexes. */
export function paramOf(path: Path): string {
  let out = "";
  for (const k of path) out += typeof k === "number" ? `[${k}]` : out ? `.${String(k)}` : String(k);
  return out;
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a decimal",
  int: "an integer",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
  record: "an object",
};

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "number") return Number.isInteger(v) ? "an integer" : "a decimal";
  if (typeof v === "object") return "an object";
  return `a ${typeof v}`;
}

/** 'a', 'b', and 'c', as OpenAI lists supported values. */
export function listValues(values: readonly unknown[]): string {
  const q = values.map((v) => `'${String(v)}'`);
  if (q.length <= 1) return q.join("");
  if (q.length === 2) return `${q[0]} and ${q[1]}`;
  return `${q.slice(0, -1).join(", ")}, and ${q.at(-1)}`;
}

/** The gateway's own forward-compatibility branches (a type it does not know) failing on a type it knows. */
const isAbortBranch = (issues: ZIssue[]) => issues.length === 1 && issues[0]!.code === "custom" && / the gateway knows$/.test(issues[0]!.message);
/** A branch that failed on the value's own type (a string where the union also takes an array). */
const isRootTypeMiss = (issues: ZIssue[]) => issues.length === 1 && issues[0]!.code === "invalid_type" && issues[0]!.path.length === 0;
/** A discriminated union that found no branch for the value's `type` (a message item without one meets the typed items so). */
const isNoDiscriminator = (issues: ZIssue[]) => issues.length === 1 && issues[0]!.code === "invalid_union" && issues[0]!.errors.length === 0;
/** A branch for another type (the message branch meeting a function_call). */
const isOtherType = (issues: ZIssue[]) => issues.some((i) => i.code === "invalid_value" && i.path.length === 1 && i.path[0] === "type");

const depth = (issues: ZIssue[]) => Math.max(0, ...issues.map((i) => i.path.length + (i.code === "invalid_union" ? 1 : 0)));

/** The issue that explains a union's failure, with its path made whole. */
function resolve(issue: ZIssue, base: Path): { issue: ZIssue; path: Path } {
  const path = [...base, ...issue.path];
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return { issue, path };
  const branches = issue.errors.filter((b) => b.length && !isAbortBranch(b));
  const informative = branches.filter((b) => !isRootTypeMiss(b) && !isNoDiscriminator(b) && !isOtherType(b));
  const pool = informative.length ? informative : branches;
  const pick = pool.length ? pool.reduce((a, b) => (depth(b) > depth(a) ? b : a)) : undefined;
  if (!pick) return { issue, path };
  return resolve(pick[0]!, path);
}

function valueAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

const missing = (param: string): Issue => ({ message: `Missing required parameter: '${param}'.`, param, code: "missing_required_parameter" });

/** The first issue of a failed parse as OpenAI's error. */
export function describeIssues(issues: ZIssue[], body: unknown, rules: IssueRules): Issue {
  const first = issues[0];
  if (!first) return { message: "Invalid request.", param: null, code: null };
  const { issue, path } = resolve(first, []);
  const param = paramOf(path);
  const value = "input" in issue && issue.input !== undefined ? issue.input : valueAt(body, path);
  switch (issue.code) {
    case "invalid_type": {
      if (value === undefined) {
        if (param === "model" && rules.missingModel) return { message: rules.missingModel, param: null, code: null };
        return missing(param);
      }
      const expected = TYPE_NAMES[issue.expected] ?? `a ${issue.expected}`;
      return { message: `Invalid type for '${param}': expected ${expected}, but got ${kindOf(value)} instead.`, param, code: "invalid_type" };
    }
    case "invalid_union": {
      // No branch matched the discriminator: an unknown role or type.
      const d = issue as ZIssue & { discriminator?: string; options?: unknown[] };
      const key = d.discriminator ?? rules.discriminator;
      // zod ends the path with the discriminator's key.
      const at = key && path.at(-1) !== key ? [...path, key] : path;
      const p = paramOf(at);
      const sent = valueAt(body, at);
      if (sent === undefined) return missing(p);
      const options = rules.listed?.[key] ?? d.options ?? [];
      return { message: `Invalid value: '${String(sent)}'. Supported values are: ${listValues(options)}.`, param: p, code: "invalid_value" };
    }
    case "invalid_value":
      if (value === undefined) return missing(param);
      return { message: `Invalid value: '${String(value)}'. Supported values are: ${listValues(issue.values)}.`, param, code: "invalid_value" };
    case "too_small": {
      if (issue.origin === "array") {
        return {
          message: `Invalid '${param}': empty array. Expected an array with minimum length ${String(issue.minimum)}, but got an empty array instead.`,
          param,
          code: "empty_array",
        };
      }
      if (issue.origin === "string") {
        return { message: `Invalid '${param}': empty string. Expected a string with minimum length ${String(issue.minimum)}, but got an empty string instead.`, param, code: "empty_string" };
      }
      const kind = rules.integers.has(param) ? "integer" : "decimal";
      return {
        message: `Invalid '${param}': ${kind} below minimum value. Expected a value >= ${String(issue.minimum)}, but got ${String(value)} instead.`,
        param,
        code: `${kind}_below_min_value`,
      };
    }
    case "too_big": {
      if (issue.origin === "array" || issue.origin === "string") {
        const what = issue.origin === "array" ? "array too long" : "string too long";
        return {
          message: `Invalid '${param}': ${what}. Expected a maximum length of ${String(issue.maximum)}.`,
          param,
          code: issue.origin === "array" ? "array_above_max_length" : "string_above_max_length",
        };
      }
      const kind = rules.integers.has(param) ? "integer" : "decimal";
      return {
        message: `Invalid '${param}': ${kind} above maximum value. Expected a value <= ${String(issue.maximum)}, but got ${String(value)} instead.`,
        param,
        code: `${kind}_above_max_value`,
      };
    }
    case "invalid_format": {
      const pattern = "pattern" in issue && typeof issue.pattern === "string" ? issue.pattern.replace(/^\/|\/$/g, "") : issue.format;
      return { message: `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '${pattern}'.`, param, code: "invalid_value" };
    }
    default:
      return { message: `Invalid '${param}': ${issue.message}.`, param: param || null, code: "invalid_value" };
  }
}
