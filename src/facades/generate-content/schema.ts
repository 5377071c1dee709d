// Gemini Schema objects (spec 2.6: an OpenAPI 3.0 subset with upper-case type
// names and `nullable`) <-> JSON Schema, which is what the neutral model and the
// providers speak. The JSON Schema -> Gemini direction is shared with the Gemini
// provider and lives in src/wire/gemini/schema.ts. Pure; errors name the offending field.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { invalidArgument } from "../../core/errors.js";
import { GEMINI_TYPES, SAME_KEYWORDS } from "../../wire/gemini/schema.js";

export { jsonSchemaToGemini } from "../../wire/gemini/schema.js";

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
    if (!(GEMINI_TYPES as readonly string[]).includes(t)) {
      throw invalidArgument(`${field}.type: invalid value ${JSON.stringify(s.type)}, expected one of ${GEMINI_TYPES.join(", ")}`, `${field}.type`);
    }
    if (t !== "TYPE_UNSPECIFIED") type = t.toLowerCase();
  }
  if (type) out.type = s.nullable === true && type !== "null" ? [type, "null"] : type;
  for (const k of SAME_KEYWORDS) {
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
