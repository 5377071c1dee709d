// JSON Schema (the neutral model's) -> a Gemini Schema object (spec 2.6: an
// OpenAPI 3.0 subset with upper-case type names and `nullable`). Shared by the
// generate-content facade (schemas it hands back) and the Gemini provider
// (schemas it sends up), which must not import each other. Pure.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";

/** Gemini's Type enum. */
export const GEMINI_TYPES = ["TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"] as const;

/** Keywords with the same name and meaning in JSON Schema and a Gemini Schema. */
export const SAME_KEYWORDS = [
  "format",
  "title",
  "description",
  "pattern",
  "default",
  "minimum",
  "maximum",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "minProperties",
  "maxProperties",
] as const;

// TYPE_UNSPECIFIED is not a JSON Schema type; `required` and Gemini's own
// `propertyOrdering` are copied as they are.
const TYPES = new Set<string>(GEMINI_TYPES.filter((t) => t !== "TYPE_UNSPECIFIED"));
const COPIED = new Set<string>([...SAME_KEYWORDS, "required", "propertyOrdering"]);

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/**
 * A Gemini Schema for a JSON Schema, or undefined when a Schema cannot say it
 * ($ref, oneOf, allOf, additionalProperties, const, several non-null types...);
 * callers then send the JSON Schema whole (parametersJsonSchema / responseJsonSchema).
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
        if (nonNull.length === 0 && types.length === 1) {
          out.type = "NULL";
          break;
        }
        if (nonNull.length !== 1 || typeof nonNull[0] !== "string") return undefined;
        const t = nonNull[0].toUpperCase();
        if (!TYPES.has(t)) return undefined;
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
      case "examples":
        if (Array.isArray(v) && v.length > 0) out.example = v[0] as JsonValue;
        break;
      case "$schema":
        break;
      default:
        if (!COPIED.has(k)) return undefined;
        out[k] = v as JsonValue;
    }
  }
  return out;
}
