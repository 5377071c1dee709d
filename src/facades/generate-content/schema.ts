// Gemini Schema objects (spec 2.6: an OpenAPI 3.0 subset with upper-case type
// names and `nullable`) <-> JSON Schema, which is what the neutral model and the
// providers speak. Pure; errors name the offending field.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { invalidArgument } from "../../core/errors.js";

export const SCHEMA_TYPES = ["TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"] as const;

/** Keywords copied unchanged in both directions. */
const SAME = ["format", "title", "description", "pattern", "default", "minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"] as const;
const INT_KEYWORDS = new Set(["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"]);
const NUM_KEYWORDS = new Set(["minimum", "maximum"]);

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** int64 fields may arrive as JSON strings ("5"); numbers stay numbers. */
function numeric(v: unknown, field: string, int: boolean): number {
  const n = typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n) || (int && !Number.isInteger(n))) {
    throw invalidArgument(`${field} must be ${int ? "an integer" : "a number"}`, field);
  }
  return n;
}

/** Converts a Gemini Schema to JSON Schema; `field` is the wire path for errors. */
export function geminiToJsonSchema(s: unknown, field: string): JsonObject {
  if (!isObject(s)) throw invalidArgument(`${field} must be a Schema object`, field);
  const out: JsonObject = {};
  let type: string | undefined;
  if (s.type !== undefined) {
    const t = typeof s.type === "string" ? s.type.toUpperCase() : "";
    if (!(SCHEMA_TYPES as readonly string[]).includes(t)) {
      throw invalidArgument(`${field}.type: invalid value ${JSON.stringify(s.type)}, expected one of ${SCHEMA_TYPES.join(", ")}`, `${field}.type`);
    }
    if (t !== "TYPE_UNSPECIFIED") type = t.toLowerCase();
  }
  if (type) out.type = s.nullable === true && type !== "null" ? [type, "null"] : type;
  for (const k of SAME) {
    const v = s[k];
    if (v === undefined || v === null) continue;
    if (INT_KEYWORDS.has(k)) out[k] = numeric(v, `${field}.${k}`, true);
    else if (NUM_KEYWORDS.has(k)) out[k] = numeric(v, `${field}.${k}`, false);
    else out[k] = v as JsonValue;
  }
  // Gemini's string enums carry format "enum"; JSON Schema has no such format.
  if (out.format === "enum") delete out.format;
  if (s.example !== undefined) out.examples = [s.example as JsonValue];
  if (s.enum !== undefined) {
    if (!Array.isArray(s.enum)) throw invalidArgument(`${field}.enum must be a list`, `${field}.enum`);
    out.enum = s.enum as JsonValue[];
    if (s.nullable === true && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  if (s.items !== undefined) out.items = geminiToJsonSchema(s.items, `${field}.items`);
  if (s.properties !== undefined) {
    if (!isObject(s.properties)) throw invalidArgument(`${field}.properties must be a map of Schema objects`, `${field}.properties`);
    const props: JsonObject = {};
    for (const [name, sub] of Object.entries(s.properties)) props[name] = geminiToJsonSchema(sub, `${field}.properties.${name}`);
    out.properties = props;
  }
  if (s.required !== undefined) {
    if (!Array.isArray(s.required) || s.required.some((r) => typeof r !== "string")) {
      throw invalidArgument(`${field}.required must be a list of property names`, `${field}.required`);
    }
    out.required = s.required as string[];
  }
  if (s.anyOf !== undefined) {
    if (!Array.isArray(s.anyOf)) throw invalidArgument(`${field}.anyOf must be a list of Schema objects`, `${field}.anyOf`);
    out.anyOf = s.anyOf.map((sub, i) => geminiToJsonSchema(sub, `${field}.anyOf[${i}]`));
  }
  return out;
}

/**
 * Converts JSON Schema back to a Gemini Schema, or returns undefined when the
 * schema uses something a Gemini Schema cannot say ($ref, oneOf, allOf,
 * additionalProperties, const, several non-null types...).
 */
export function jsonSchemaToGemini(js: unknown): JsonObject | undefined {
  if (!isObject(js)) return undefined;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(js)) {
    if (v === undefined) continue;
    switch (k) {
      case "type": {
        const types = Array.isArray(v) ? v : [v];
        const nonNull = types.filter((t) => t !== "null");
        if (nonNull.length !== 1 || typeof nonNull[0] !== "string") return undefined;
        const t = nonNull[0].toUpperCase();
        if (!(SCHEMA_TYPES as readonly string[]).includes(t)) return undefined;
        out.type = t;
        if (nonNull.length < types.length) out.nullable = true;
        break;
      }
      case "items": {
        const sub = jsonSchemaToGemini(v);
        if (!sub) return undefined;
        out.items = sub;
        break;
      }
      case "properties": {
        if (!isObject(v)) return undefined;
        const props: JsonObject = {};
        for (const [name, sub] of Object.entries(v)) {
          const g = jsonSchemaToGemini(sub);
          if (!g) return undefined;
          props[name] = g;
        }
        out.properties = props;
        break;
      }
      case "anyOf": {
        if (!Array.isArray(v)) return undefined;
        const subs = v.map(jsonSchemaToGemini);
        if (subs.some((x) => !x)) return undefined;
        out.anyOf = subs as JsonObject[];
        break;
      }
      case "enum":
        if (!Array.isArray(v)) return undefined;
        out.enum = v.filter((x) => x !== null) as JsonValue[];
        if (v.includes(null)) out.nullable = true;
        break;
      case "required":
        out.required = v as JsonValue;
        break;
      case "examples":
        if (Array.isArray(v) && v.length > 0) out.example = v[0] as JsonValue;
        break;
      case "$schema":
        break;
      default:
        if (!(SAME as readonly string[]).includes(k)) return undefined;
        out[k] = v as JsonValue;
    }
  }
  return out;
}
