// JSON Schema (the neutral model's) -> Gemini. A schema a Gemini Schema object
// can say (an OpenAPI subset: upper-case types, `nullable`) goes as `parameters`
// / `responseSchema`, so a Gemini client's own schema comes back unchanged;
// anything richer ($ref, oneOf, additionalProperties, const, ...) goes whole as
// `parametersJsonSchema` / `responseJsonSchema`, so nothing is dropped. Pure.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";

const TYPES = new Set(["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"]);
const SAME = new Set(["format", "title", "description", "pattern", "default", "minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties", "required", "propertyOrdering"]);

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** A Gemini Schema for a JSON Schema, or undefined when a Schema cannot say it. */
export function toGeminiSchema(js: unknown): JsonObject | undefined {
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
      case "items":
      case "properties":
      case "anyOf": {
        if (k === "items") {
          const sub = toGeminiSchema(v);
          if (!sub) return undefined;
          out.items = sub;
        } else if (k === "properties") {
          if (!isObject(v)) return undefined;
          const props: JsonObject = {};
          for (const [name, sub] of Object.entries(v)) {
            const g = toGeminiSchema(sub);
            if (!g) return undefined;
            props[name] = g;
          }
          out.properties = props;
        } else {
          if (!Array.isArray(v)) return undefined;
          const subs = v.map(toGeminiSchema);
          if (subs.some((x) => !x)) return undefined;
          out.anyOf = subs as JsonObject[];
        }
        break;
      }
      case "enum":
        if (!Array.isArray(v)) return undefined;
        out.enum = v.filter((x) => x !== null) as JsonValue[];
        if (v.includes(null)) out.nullable = true;
        break;
      case "examples":
        if (Array.isArray(v) && v.length) out.example = v[0] as JsonValue;
        break;
      case "$schema":
        break;
      default:
        if (!SAME.has(k)) return undefined;
        out[k] = v as JsonValue;
    }
  }
  return out;
}

/** A JSON Schema for Gemini's *JsonSchema fields: the same schema without `$schema`. */
export function toGeminiJsonSchema(js: JsonObject): JsonObject {
  const { $schema: _s, ...rest } = js;
  return rest;
}
