// JSON Schema (the neutral model's) -> Gemini. A schema a Gemini Schema object
// can say (an OpenAPI subset: upper-case types, `nullable`) goes as `parameters`
// / `responseSchema`, so a Gemini client's own schema comes back unchanged;
// anything richer ($ref, oneOf, additionalProperties, const, ...) goes whole as
// `parametersJsonSchema` / `responseJsonSchema`, so nothing is dropped. The
// conversion is shared with the generate-content facade (src/wire/gemini/schema.ts). Pure.
import type { JsonObject } from "@bufbuild/protobuf";

/** A Gemini Schema for a JSON Schema, or undefined when a Schema cannot say it. */
export { jsonSchemaToGemini as toGeminiSchema } from "../../wire/gemini/schema.js";

/** A JSON Schema for Gemini's *JsonSchema fields: the same schema without `$schema`. */
export function toGeminiJsonSchema(js: JsonObject): JsonObject {
  const { $schema: _s, ...rest } = js;
  return rest;
}
