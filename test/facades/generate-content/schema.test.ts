// Gemini Schema <-> JSON Schema, as tables.
import t from "tap";
import { ConnectError } from "@connectrpc/connect";
import { errorDetail } from "../../../src/core/errors.js";
import { geminiToJsonSchema, jsonSchemaToGemini } from "../../../src/facades/generate-content/schema.js";

const TO_JSON: [string, unknown, unknown][] = [
  ["string", { type: "STRING" }, { type: "string" }],
  ["lower-case type", { type: "integer" }, { type: "integer" }],
  ["unspecified type", { type: "TYPE_UNSPECIFIED", description: "d" }, { description: "d" }],
  ["nullable", { type: "STRING", nullable: true }, { type: ["string", "null"] }],
  ["string enum", { type: "STRING", format: "enum", enum: ["a", "b"] }, { type: "string", enum: ["a", "b"] }],
  ["nullable enum", { type: "STRING", enum: ["a"], nullable: true }, { type: ["string", "null"], enum: ["a", null] }],
  ["date format", { type: "STRING", format: "date-time" }, { type: "string", format: "date-time" }],
  ["numbers", { type: "NUMBER", minimum: 0, maximum: "10" }, { type: "number", minimum: 0, maximum: 10 }],
  ["int64 strings", { type: "ARRAY", items: { type: "BOOLEAN" }, minItems: "1", maxItems: 3 }, { type: "array", items: { type: "boolean" }, minItems: 1, maxItems: 3 }],
  ["lengths and pattern", { type: "STRING", minLength: 1, maxLength: 5, pattern: "^a" }, { type: "string", minLength: 1, maxLength: 5, pattern: "^a" }],
  ["example", { type: "STRING", example: "x" }, { type: "string", examples: ["x"] }],
  [
    "object",
    { type: "OBJECT", properties: { a: { type: "STRING" }, b: { type: "ARRAY", items: { type: "NUMBER" } } }, required: ["a"], propertyOrdering: ["a", "b"] },
    { type: "object", properties: { a: { type: "string" }, b: { type: "array", items: { type: "number" } } }, required: ["a"] },
  ],
  ["anyOf", { anyOf: [{ type: "STRING" }, { type: "INTEGER" }] }, { anyOf: [{ type: "string" }, { type: "integer" }] }],
  ["title and default", { type: "BOOLEAN", title: "T", default: true }, { type: "boolean", title: "T", default: true }],
];

for (const [name, gemini, json] of TO_JSON) {
  t.same(geminiToJsonSchema(gemini, "s"), json, `to JSON Schema: ${name}`);
}

const BAD: [string, unknown, string][] = [
  ["not an object", "STRING", "s"],
  ["bad type", { type: "TEXT" }, "s.type"],
  ["bad nested type", { type: "OBJECT", properties: { a: { type: "WORD" } } }, "s.properties.a.type"],
  ["bad item", { type: "ARRAY", items: 5 }, "s.items"],
  ["properties not a map", { type: "OBJECT", properties: [] }, "s.properties"],
  ["required not names", { type: "OBJECT", required: [1] }, "s.required"],
  ["enum not a list", { type: "STRING", enum: "a" }, "s.enum"],
  ["fractional minItems", { type: "ARRAY", minItems: 1.5 }, "s.minItems"],
  ["minimum not a number", { type: "NUMBER", minimum: "low" }, "s.minimum"],
  ["anyOf not a list", { anyOf: {} }, "s.anyOf"],
];

for (const [name, gemini, field] of BAD) {
  t.test(`rejects: ${name}`, async (t) => {
    try {
      geminiToJsonSchema(gemini, "s");
      t.fail("expected an error");
    } catch (e) {
      t.ok(e instanceof ConnectError);
      t.equal(errorDetail(e as ConnectError)?.field, field);
    }
  });
}

const FROM_JSON: [string, unknown, unknown][] = [
  ["string", { type: "string" }, { type: "STRING" }],
  ["nullable via type list", { type: ["integer", "null"] }, { type: "INTEGER", nullable: true }],
  ["enum with null", { type: "string", enum: ["a", null] }, { type: "STRING", enum: ["a"], nullable: true }],
  ["object", { type: "object", properties: { a: { type: "number", minimum: 1 } }, required: ["a"] }, { type: "OBJECT", properties: { a: { type: "NUMBER", minimum: 1 } }, required: ["a"] }],
  ["examples", { type: "string", examples: ["x", "y"] }, { type: "STRING", example: "x" }],
  ["$schema is dropped", { $schema: "http://json-schema.org/draft-07/schema#", type: "boolean" }, { type: "BOOLEAN" }],
  ["null type", { type: "null" }, { type: "NULL" }],
  ["propertyOrdering is kept", { type: "object", propertyOrdering: ["b", "a"] }, { type: "OBJECT", propertyOrdering: ["b", "a"] }],
  ["TYPE_UNSPECIFIED is not a JSON Schema type", { type: "type_unspecified" }, undefined],
  ["$ref cannot be said", { $ref: "#/defs/a" }, undefined],
  ["additionalProperties cannot be said", { type: "object", additionalProperties: false }, undefined],
  ["two types cannot be said", { type: ["string", "number"] }, undefined],
  ["nested failure", { type: "array", items: { oneOf: [] } }, undefined],
  ["not an object", true, undefined],
];

for (const [name, json, gemini] of FROM_JSON) {
  t.same(jsonSchemaToGemini(json), gemini, `to Gemini Schema: ${name}`);
}

t.test("round trip Gemini -> JSON -> Gemini keeps what Gemini says", async (t) => {
  const s = {
    type: "OBJECT",
    properties: { n: { type: "INTEGER", nullable: true, minimum: 0 }, none: { type: "NULL" }, tags: { type: "ARRAY", items: { type: "STRING", enum: ["x"] } } },
    required: ["n"],
  };
  t.same(jsonSchemaToGemini(geminiToJsonSchema(s, "s")), s);
});
