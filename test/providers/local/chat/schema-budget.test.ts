// Sizes multiply with nesting, so a small schema can ask the local engine for
// billions of values: an array of 64 arrays of 64 ..., an object whose
// required properties all refer back to the root, a oneOf of thousands of
// branches, each told apart by validation. The sampler stops at MAX_NODES
// values. Before it did, each schema below held the gateway's thread for
// longer than the file's timeout.
import t from "tap";
import { promptHints } from "../../../../src/providers/local/chat/prompt.js";
import { MAX_NODES, sampleArguments, sampleSchema } from "../../../../src/providers/local/chat/schema-sample.js";
import { ADMIN_KEY, startServer } from "../../../helpers/app.js";

const hints = promptHints("make it so");

/** How many values (leaves and containers) an instance holds. */
function count(v: unknown): number {
  if (Array.isArray(v)) return 1 + v.reduce((n: number, x) => n + count(x), 0);
  if (v && typeof v === "object") return 1 + Object.values(v).reduce((n: number, x) => n + count(x), 0);
  return 1;
}

const nestedArrays = (levels: number): Record<string, unknown> => (levels === 0 ? { type: "string" } : { type: "array", minItems: 64, items: nestedArrays(levels - 1) });
const letters = "abcdefghijklmnopqrst".split("");
const selfReferring = { type: "object", required: letters, properties: Object.fromEntries(letters.map((k) => [k, { $ref: "#" }])) };
const manyBranches = { oneOf: Array.from({ length: 5000 }, (_, i) => ({ type: "object", required: [`k${i}`], properties: { [`k${i}`]: { type: "integer" } } })) };

t.test("hostile schemas give a bounded instance", async (t) => {
  for (const [name, schema] of [
    ["arrays of arrays, 64 each, six deep", nestedArrays(6)],
    ["20 required properties referring to the root", selfReferring],
    ["a oneOf of 5,000 branches", manyBranches],
  ] as const) {
    const v = sampleSchema(schema as never, hints);
    // The budget counts values made; the containers open when it ran out still
    // hold a null for each of their remaining keys.
    t.ok(count(v) <= 2 * MAX_NODES, `${name}: ${count(v)} values`);
  }
});

t.test("a schema within the budget is still sampled whole", async (t) => {
  const v = sampleSchema(nestedArrays(2) as never, hints) as string[][];
  t.equal(v.length, 64);
  t.ok(
    v.every((row) => row.length === 64 && row.every((x) => typeof x === "string")),
    "64 x 64 strings",
  );
  const one = sampleSchema({ oneOf: [{ type: "integer", minimum: 5 }, { type: "string" }] } as never, hints);
  t.equal(one, 5, "a small oneOf still picks by validation");
});

t.test("many optional properties and a long prompt: one pass over the prompt, not one per property", async (t) => {
  // Each optional property of tool arguments is looked for in the user's words.
  const properties = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`option_${i}_value`, { type: "integer" }]));
  const words = promptHints("set option 7 value ".repeat(50_000) + "with option_19999_value 42");
  t.same(sampleArguments({ type: "object", properties } as never, words), { option_7_value: 7, option_19999_value: 42 });
});

t.test("a hostile schema through the Messages API", async (t) => {
  const server = await startServer({});
  t.teardown(() => server.close());
  const res = await fetch(`${server.baseUrl}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({
      model: "claude-sonnet-4-6",
      max_tokens: 256,
      tools: [{ name: "grid", description: "fills a grid", input_schema: { type: "object", required: ["g"], properties: { g: nestedArrays(6) } } }],
      tool_choice: { type: "tool", name: "grid" },
      messages: [{ role: "user", content: "fill the grid" }],
    }),
  });
  t.equal(res.status, 200);
  const body = (await res.json()) as { content: { type: string; input?: unknown }[] };
  const use = body.content.find((b) => b.type === "tool_use");
  t.ok(use, "the tool is called");
  t.ok(count(use?.input) <= 2 * MAX_NODES, "with a bounded input");
});
