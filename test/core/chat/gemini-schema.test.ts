// JSON Schema -> Gemini Schema, shared by the generate-content facade and the Gemini provider.
import t from "tap";
import { GEMINI_TYPES, SAME_KEYWORDS, jsonSchemaToGemini } from "../../../src/wire/gemini/schema.js";

const CASES: [string, unknown, unknown][] = [
  ["string", { type: "string" }, { type: "STRING" }],
  ["nullable via type list", { type: ["integer", "null"] }, { type: "INTEGER", nullable: true }],
  ["null type", { type: "null" }, { type: "NULL" }],
  ["null type as a list", { type: ["null"] }, { type: "NULL" }],
  ["null in anyOf", { anyOf: [{ type: "string" }, { type: "null" }] }, { anyOf: [{ type: "STRING" }, { type: "NULL" }] }],
  ["enum with null", { type: "string", enum: ["a", null] }, { type: "STRING", enum: ["a"], nullable: true }],
  [
    "object with required and propertyOrdering",
    { type: "object", properties: { a: { type: "number", minimum: 1 }, b: { type: "array", items: { type: "string" }, minItems: 1 } }, required: ["a"], propertyOrdering: ["b", "a"] },
    { type: "OBJECT", properties: { a: { type: "NUMBER", minimum: 1 }, b: { type: "ARRAY", items: { type: "STRING" }, minItems: 1 } }, required: ["a"], propertyOrdering: ["b", "a"] },
  ],
  ["examples keep the first", { type: "string", examples: ["x", "y"] }, { type: "STRING", example: "x" }],
  ["empty examples are dropped", { type: "string", examples: [] }, { type: "STRING" }],
  [
    "copied keywords",
    { type: "string", format: "date-time", title: "T", description: "d", pattern: "^a", default: "a", minLength: 1, maxLength: 9 },
    { type: "STRING", format: "date-time", title: "T", description: "d", pattern: "^a", default: "a", minLength: 1, maxLength: 9 },
  ],
  ["$schema is dropped", { $schema: "http://json-schema.org/draft-07/schema#", type: "boolean" }, { type: "BOOLEAN" }],
  ["empty schema", {}, {}],
  ["$ref cannot be said", { $ref: "#/defs/a" }, undefined],
  ["additionalProperties cannot be said", { type: "object", additionalProperties: false }, undefined],
  ["const cannot be said", { const: 1 }, undefined],
  ["oneOf cannot be said", { oneOf: [{ type: "string" }] }, undefined],
  ["two types cannot be said", { type: ["string", "number"] }, undefined],
  ["TYPE_UNSPECIFIED is not a JSON Schema type", { type: "type_unspecified" }, undefined],
  ["unknown type", { type: "text" }, undefined],
  ["nested failure in items", { type: "array", items: { oneOf: [] } }, undefined],
  ["nested failure in properties", { type: "object", properties: { a: { not: {} } } }, undefined],
  ["nested failure in anyOf", { anyOf: [{ type: "string" }, { allOf: [] }] }, undefined],
  ["enum not a list", { enum: "a" }, undefined],
  ["properties not a map", { type: "object", properties: [] }, undefined],
  ["not an object", true, undefined],
  ["array root", [{ type: "string" }], undefined],
];

for (const [name, json, gemini] of CASES) t.same(jsonSchemaToGemini(json), gemini, name);

t.test("the copied keywords come through unchanged", async (t) => {
  for (const k of SAME_KEYWORDS) t.same(jsonSchemaToGemini({ [k]: 1 }), { [k]: 1 }, k);
  t.equal(GEMINI_TYPES.length, 8);
});
