// Generates a JSON instance that validates against a JSON Schema: tool
// arguments and JSON answers. Values come from the prompt where natural (a
// place for `city`, a number the user wrote for a number property, an enum
// value the prompt mentions), otherwise from the schema's constraints. JSON
// answers fill every property; tool arguments fill the required ones and an
// optional one only where the user's words give it, as a sober model does.
// Deterministic: the same schema and prompt give the same instance.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { numbersIn, type PromptHints } from "./prompt.js";
import { matchesPattern, sampleRegex } from "./regex-sample.js";
import { formatValue, givenForKey, keyWords, stringForKey } from "./sample-strings.js";
import { validates } from "./schema-check.js";

type Schema = Record<string, unknown>;

const MAX_DEPTH = 8;
/** Caps on sizes a schema may ask for, so that a hostile schema cannot exhaust memory. */
const MAX_ITEMS = 64;
const MAX_LENGTH = 4096;
/**
 * Values one instance may hold in all. Sizes multiply with nesting (an array
 * of 64 arrays of 64 ..., or an object whose required properties all refer
 * back to the root), so a schema of a few hundred bytes could ask for
 * billions; past this, values come back as null and the instance stops
 * growing (it may then not validate, as such a schema would not at a vendor).
 */
export const MAX_NODES = 10_000;
/** oneOf branches told apart by validating; past this the first branch's value is kept. */
const MAX_BRANCHES = 16;

const isObj = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** Which optional properties an object gets: all of them, or those the user's words give. */
type Optional = "all" | "given";

class Sampler {
  private numberCursor = 0;
  private nodes = 0;
  /** The prompt's words, lower-cased, built when first needed. */
  private tokens?: Set<string>;
  constructor(
    private readonly root: Schema,
    private readonly hints: PromptHints,
    private readonly optional: Optional = "all",
  ) {}

  /** A local "#/..." reference, resolved against the root schema. */
  private resolve(ref: string): Schema | undefined {
    if (!ref.startsWith("#")) return undefined;
    let cur: unknown = this.root;
    for (const raw of ref.slice(1).split("/").filter(Boolean)) {
      const seg = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      cur = isObj(cur) ? cur[seg] : Array.isArray(cur) ? cur[Number(seg)] : undefined;
    }
    return isObj(cur) ? cur : cur === true ? {} : undefined;
  }

  /** Branch schemas carry the root's definitions so their references still resolve. */
  private standalone(branch: Schema): Schema {
    const out: Schema = { ...branch };
    if (this.root.definitions) out.definitions = this.root.definitions;
    if (this.root.$defs) out.$defs = this.root.$defs;
    return out;
  }

  private get exhausted(): boolean {
    return this.nodes >= MAX_NODES;
  }

  sample(schema: unknown, key: string, depth: number, variant: number): JsonValue {
    if (schema === false || this.nodes++ >= MAX_NODES) return null;
    if (!isObj(schema)) return stringForKey(key, this.hints, variant);
    let s = schema;
    if (typeof s.$ref === "string" && depth < MAX_DEPTH) {
      const target = this.resolve(s.$ref);
      const { $ref: _ref, ...rest } = s;
      s = { ...(target ?? {}), ...rest };
      depth++;
    }
    if (Array.isArray(s.allOf))
      s = mergeAll(
        s,
        s.allOf.filter(isObj).map((b) => (typeof b.$ref === "string" ? (this.resolve(b.$ref) ?? {}) : b)),
      );
    if ("const" in s) return s.const as JsonValue;
    if (Array.isArray(s.enum) && s.enum.length) return this.pickEnum(s.enum as JsonValue[], variant);
    if (Array.isArray(s.oneOf) && s.oneOf.length) return this.oneOf(s, depth, key, variant);
    if (Array.isArray(s.anyOf) && s.anyOf.length) {
      const branches = s.anyOf.filter(isObj);
      const pick = branches.find((b) => typeOf(b) !== "null") ?? branches[0];
      return this.sample({ ...without(s, "anyOf"), ...pick }, key, depth + 1, variant);
    }
    switch (typeOf(s)) {
      case "null":
        return null;
      case "boolean":
        return variant % 2 === 0;
      case "integer":
        return this.number(s, true, key, variant);
      case "number":
        return this.number(s, false, key, variant);
      case "array":
        return this.array(s, key, depth, variant);
      case "object":
        return this.object(s, depth, variant);
      default:
        return this.string(s, key, variant);
    }
  }

  private oneOf(s: Schema, depth: number, key: string, variant: number): JsonValue {
    const base = without(s, "oneOf");
    const branches = (s.oneOf as unknown[]).filter(isObj).map((b) => ({ ...base, ...b }));
    if (branches.length > MAX_BRANCHES) return this.sample(branches[0], key, depth + 1, variant);
    let first: JsonValue | undefined;
    for (const b of branches) {
      const v = this.sample(b, key, depth + 1, variant);
      first ??= v;
      if (this.exhausted) break;
      const matching = branches.filter((o) => validates(this.standalone(o), v) !== false).length;
      if (matching === 1) return v;
    }
    return first ?? null;
  }

  private pickEnum(values: JsonValue[], variant: number): JsonValue {
    if (variant === 0) {
      const text = this.hints.text.toLowerCase();
      const named = values.find((v) => typeof v === "string" && v && new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRe(v.toLowerCase())}($|[^\\p{L}\\p{N}_])`, "u").test(text));
      if (named !== undefined) return named;
    }
    return values[variant % values.length]!;
  }

  private number(s: Schema, integer: boolean, key: string, variant: number): number {
    const exMin = num(s.exclusiveMinimum) ?? (s.exclusiveMinimum === true ? num(s.minimum) : undefined);
    const exMax = num(s.exclusiveMaximum) ?? (s.exclusiveMaximum === true ? num(s.maximum) : undefined);
    const min = s.exclusiveMinimum === true ? undefined : num(s.minimum);
    const max = s.exclusiveMaximum === true ? undefined : num(s.maximum);
    const step = num(s.multipleOf) !== undefined && num(s.multipleOf)! > 0 ? num(s.multipleOf) : undefined;
    // Same arithmetic as ajv's multipleOf check.
    const ok = (v: number) =>
      Number.isFinite(v) &&
      (!integer || Number.isInteger(v)) &&
      (min === undefined || v >= min) &&
      (max === undefined || v <= max) &&
      (exMin === undefined || v > exMin) &&
      (exMax === undefined || v < exMax) &&
      (step === undefined || Number.isInteger(v / step));
    if (variant === 0) {
      // "a timeout of 5000": the number right after the property's name.
      const at = this.namedAt(keyWords(key));
      const near = at < 0 ? undefined : numbersIn(this.hints.text.slice(at, at + 40))[0];
      if (near !== undefined && ok(near)) return near;
      for (let i = this.numberCursor; i < this.hints.numbers.length; i++) {
        if (ok(this.hints.numbers[i]!)) {
          this.numberCursor = i + 1;
          return this.hints.numbers[i]!;
        }
      }
    }
    const lo = min ?? exMin;
    const hi = max ?? exMax;
    const unit = step ?? 1;
    // An unbounded number is not a whole number, so it also tells "number" from "integer" in a oneOf.
    const start = lo ?? (hi !== undefined && hi < 1 ? hi : integer ? 1 : 1.5);
    const snap = (x: number) => {
      const v = step !== undefined ? Number((Math.round(x / step) * step).toPrecision(15)) : x;
      return integer ? Math.round(v) : v;
    };
    const cands = [start + variant * unit, start + (variant + 1) * unit];
    if (lo !== undefined && hi !== undefined) cands.push((lo + hi) / 2, Math.ceil(lo), Math.floor(hi));
    for (let k = 0; k < 200; k++) cands.push(start + (variant + k) * unit, start - (variant + k) * unit);
    for (const c of cands) {
      const v = snap(c);
      if (ok(v)) return v;
    }
    return snap(start);
  }

  private string(s: Schema, key: string, variant: number): string {
    const minLen = Math.min(MAX_LENGTH, num(s.minLength) ?? 0);
    const maxLen = num(s.maxLength);
    const pattern = typeof s.pattern === "string" ? s.pattern : undefined;
    let v = (typeof s.format === "string" ? formatValue(s.format, this.hints, variant) : undefined) ?? stringForKey(key, this.hints, variant);
    if (pattern && !matchesPattern(v, pattern)) v = sampleRegex(pattern) ?? ["example", "a", "A", "1", "abc", "ABC", "a1"].find((c) => matchesPattern(c, pattern)) ?? v;
    let chars = Array.from(v);
    if (maxLen !== undefined && chars.length > maxLen) chars = chars.slice(0, maxLen);
    while (chars.length < minLen) chars.push("x");
    if (maxLen !== undefined && maxLen > 0 && chars.length && /\s/.test(chars[chars.length - 1]!)) chars[chars.length - 1] = "x";
    return chars.join("");
  }

  private array(s: Schema, key: string, depth: number, variant: number): JsonValue[] {
    const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined;
    const rest = tuple ? (Array.isArray(s.prefixItems) ? s.items : s.additionalItems) : s.items;
    const minItems = Math.min(MAX_ITEMS, num(s.minItems) ?? 0);
    const maxItems = num(s.maxItems) ?? Infinity;
    const wanted = depth >= MAX_DEPTH - 2 ? minItems : Math.max(minItems, Math.min(tuple ? tuple.length : 2, maxItems));
    const itemKey = singular(key);
    const out: JsonValue[] = [];
    const seen = new Set<string>();
    for (let i = 0; out.length < wanted && i < wanted + 8 && !this.exhausted; i++) {
      const itemSchema = tuple && i < tuple.length ? tuple[i] : rest === false ? undefined : rest;
      if (tuple && i >= tuple.length && rest === false) break;
      const v = this.sample(itemSchema ?? {}, itemKey, depth + 1, variant + i);
      if (s.uniqueItems === true) {
        const k = JSON.stringify(v);
        if (seen.has(k)) continue;
        seen.add(k);
      }
      out.push(v);
    }
    return out;
  }

  private object(s: Schema, depth: number, variant: number): JsonObject {
    const props = isObj(s.properties) ? s.properties : {};
    const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === "string") : [];
    const maxProps = num(s.maxProperties) ?? Infinity;
    const minProps = Math.min(MAX_ITEMS, num(s.minProperties) ?? 0);
    const deep = depth >= MAX_DEPTH - 2;
    const isRequired = new Set(required);
    const optional = deep ? [] : Object.keys(props).filter((k) => !isRequired.has(k));
    const chosen = new Set(this.optional === "all" ? optional : optional.filter((k) => this.given(k, props[k])));
    // Optional properties left out come back when minProperties needs them.
    for (const k of optional) if (required.length + chosen.size < minProps) chosen.add(k);
    const keys = [...required, ...optional.filter((k) => chosen.has(k))].slice(0, Math.max(required.length, maxProps));
    const out: JsonObject = {};
    for (const k of keys) out[k] = this.sample(props[k] ?? (isObj(s.additionalProperties) ? s.additionalProperties : {}), k, depth + 1, variant);
    for (let i = 1; Object.keys(out).length < minProps && s.additionalProperties !== false && i <= MAX_ITEMS && !this.exhausted; i++) {
      out[`extra_${i}`] = this.sample(isObj(s.additionalProperties) ? s.additionalProperties : {}, `extra_${i}`, depth + 1, variant);
    }
    return out;
  }

  /**
   * Where `words` first appear in the prompt in order as whole words, joined
   * by nothing, spaces, `_` or `-`: the index just past them, or -1. Names of
   * fewer than three letters in all are never found (too many false hits).
   * The prompt's word set rules most names out before any search, so many
   * properties cost one pass over the prompt, not one each.
   */
  private namedAt(words: string[]): number {
    if (words.join("").length < 3) return -1;
    const seen = (this.tokens ??= new Set(this.hints.text.toLowerCase().match(WORD)));
    const tokens = words.flatMap((w) => w.toLowerCase().match(WORD) ?? []);
    if (!seen.has(tokens.join("")) && !tokens.every((t) => seen.has(t))) return -1;
    const m = new RegExp(`(?:^|[^\\p{L}\\p{N}_])${words.map(escapeRe).join("[\\s_-]*")}(?=$|[^\\p{L}\\p{N}_])`, "iu").exec(this.hints.text);
    return m ? m.index + m[0].length : -1;
  }

  /**
   * Whether the user's words give an optional property: they name it
   * ("run in background", "timeout"), name one of its enum values, or hold a
   * value of its kind (a date for a date, a path for `file_path`, a place
   * for `city`); the prompt itself as a fallback text does not count.
   */
  private given(key: string, schema: unknown): boolean {
    if (!this.hints.text) return false;
    if (this.namedAt(keyWords(key)) >= 0) return true;
    let s = isObj(schema) ? schema : {};
    if (typeof s.$ref === "string") s = { ...(this.resolve(s.$ref) ?? {}), ...s };
    if (Array.isArray(s.enum)) return s.enum.some((v) => typeof v === "string" && this.namedAt([v]) >= 0);
    if (typeOf(s) !== "string") return false;
    switch (typeof s.format === "string" ? s.format.toLowerCase() : "") {
      case "date":
      case "date-time":
      case "datetime":
        return this.hints.dates.length > 0;
      case "email":
      case "idn-email":
        return this.hints.emails.length > 0;
      case "uri":
      case "url":
      case "iri":
        return this.hints.urls.length > 0;
      default:
        return givenForKey(key, this.hints);
    }
  }
}

const WORD = /[\p{L}\p{N}]+/gu;

function typeOf(s: Schema): string {
  const t = Array.isArray(s.type) ? (s.type.find((x) => String(x).toLowerCase() !== "null") ?? s.type[0]) : s.type;
  if (typeof t === "string" && t) return t.toLowerCase();
  if (isObj(s.properties) || Array.isArray(s.required) || isObj(s.additionalProperties)) return "object";
  if (s.items !== undefined || s.prefixItems !== undefined) return "array";
  if (s.minimum !== undefined || s.maximum !== undefined || s.multipleOf !== undefined) return "number";
  return "string";
}

function mergeAll(base: Schema, parts: Schema[]): Schema {
  const out: Schema = without(base, "allOf");
  for (const p of parts) {
    for (const [k, v] of Object.entries(p)) {
      if (k === "properties" && isObj(v)) out.properties = { ...(isObj(out.properties) ? out.properties : {}), ...v };
      else if (k === "required" && Array.isArray(v)) out.required = [...new Set([...(Array.isArray(out.required) ? out.required : []), ...v])];
      else if (!(k in out)) out[k] = v;
    }
  }
  return out;
}

function without(s: Schema, key: string): Schema {
  const { [key]: _drop, ...rest } = s;
  return rest;
}

function singular(key: string): string {
  return key.endsWith("ies") ? key.slice(0, -3) + "y" : key.endsWith("s") && !key.endsWith("ss") ? key.slice(0, -1) : key;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A JSON instance of `schema`; values are taken from the prompt where natural. */
export function sampleSchema(schema: JsonObject | undefined, hints: PromptHints, key = ""): JsonValue {
  const root = (schema ?? {}) as Schema;
  return new Sampler(root, hints).sample(root, key, 0, 0);
}

/** Tool arguments: always a JSON object; optional properties only where the user's words give them. */
export function sampleArguments(schema: JsonObject | undefined, hints: PromptHints): JsonObject {
  const root = (schema ?? { type: "object" }) as Schema;
  const v = new Sampler(root, hints, "given").sample(isObj(root) && Object.keys(root).length ? root : { type: "object" }, "", 0, 0);
  return isObj(v) ? (v as JsonObject) : {};
}
