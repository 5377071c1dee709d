import t from "tap";
import type { JsonObject } from "@bufbuild/protobuf";
import { promptHints } from "../../../../src/providers/local/chat/prompt.js";
import { sampleRegex } from "../../../../src/providers/local/chat/regex-sample.js";
import { sampleArguments, sampleSchema } from "../../../../src/providers/local/chat/schema-sample.js";
import { newAjv } from "./fixtures.js";

const ajv = newAjv();

/** Gemini schemas spell types in capitals; JSON Schema (and ajv) want lower case. */
function lowerTypes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(lowerTypes);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === "type" && typeof x === "string" ? x.toLowerCase() : lowerTypes(x)]));
  return v;
}

const cases: Array<{ name: string; prompt: string; schema: JsonObject }> = [
  {
    name: "weather with enum and bounded integer",
    prompt: "What's the weather in Paris for 3 days, in celsius?",
    schema: {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string", enum: ["fahrenheit", "celsius"] }, days: { type: "integer", minimum: 1, maximum: 7 } },
      required: ["city", "unit", "days"],
      additionalProperties: false,
    },
  },
  {
    name: "nested objects and arrays",
    prompt: "Book a trip",
    schema: {
      type: "object",
      properties: {
        traveller: { type: "object", properties: { name: { type: "string", minLength: 2 }, age: { type: "integer", minimum: 18 } }, required: ["name", "age"] },
        legs: { type: "array", minItems: 2, maxItems: 3, items: { type: "object", properties: { from: { type: "string" }, to: { type: "string" } }, required: ["from", "to"] } },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, uniqueItems: true },
      },
      required: ["traveller", "legs"],
    },
  },
  {
    name: "string formats",
    prompt: "Schedule it",
    schema: {
      type: "object",
      properties: {
        day: { type: "string", format: "date" },
        at: { type: "string", format: "date-time" },
        time: { type: "string", format: "time" },
        mail: { type: "string", format: "email" },
        site: { type: "string", format: "uri" },
        id: { type: "string", format: "uuid" },
        ip: { type: "string", format: "ipv4" },
        ip6: { type: "string", format: "ipv6" },
        host: { type: "string", format: "hostname" },
        every: { type: "string", format: "duration" },
      },
      required: ["day", "at", "time", "mail", "site", "id", "ip", "ip6", "host", "every"],
    },
  },
  {
    name: "numeric constraints",
    prompt: "numbers please",
    schema: {
      type: "object",
      properties: {
        ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
        step: { type: "number", minimum: 0.3, multipleOf: 0.25 },
        negative: { type: "integer", maximum: -5 },
        big: { type: "integer", minimum: 1000, multipleOf: 7 },
      },
      required: ["ratio", "step", "negative", "big"],
    },
  },
  {
    name: "string lengths and patterns",
    prompt: "codes",
    schema: {
      type: "object",
      properties: {
        short: { type: "string", maxLength: 3 },
        long: { type: "string", minLength: 40 },
        zip: { type: "string", pattern: "^\\d{5}$" },
        sku: { type: "string", pattern: "^[A-Z]{3}-[0-9]{2,4}$" },
        slug: { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$" },
        alt: { type: "string", pattern: "^(red|green)$" },
      },
      required: ["short", "long", "zip", "sku", "slug", "alt"],
    },
  },
  {
    name: "refs, definitions and recursion",
    prompt: "tree",
    schema: {
      type: "object",
      definitions: { node: { type: "object", properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/definitions/node" } } }, required: ["label"] } },
      properties: { root: { $ref: "#/definitions/node" }, other: { $ref: "#/$defs/color" } },
      $defs: { color: { type: "string", enum: ["red", "blue"] } },
      required: ["root", "other"],
    },
  },
  {
    name: "oneOf, anyOf, allOf, const, nullable types",
    prompt: "mixed",
    schema: {
      type: "object",
      properties: {
        shape: {
          oneOf: [
            { type: "object", properties: { kind: { const: "circle" }, r: { type: "number" } }, required: ["kind", "r"] },
            { type: "object", properties: { kind: { const: "square" }, side: { type: "number" } }, required: ["kind", "side"] },
          ],
        },
        overlap: { oneOf: [{ type: "number" }, { type: "integer" }] },
        maybe: { anyOf: [{ type: "null" }, { type: "string", minLength: 3 }] },
        both: {
          allOf: [
            { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
            { properties: { b: { type: "boolean" } }, required: ["b"] },
          ],
        },
        fixed: { const: 42 },
        opt: { type: ["null", "integer"], minimum: 3 },
      },
      required: ["shape", "overlap", "maybe", "both", "fixed", "opt"],
    },
  },
  {
    name: "object size constraints and tuples",
    prompt: "sizes",
    schema: {
      type: "object",
      properties: {
        few: { type: "object", properties: { a: { type: "string" }, b: { type: "string" }, c: { type: "string" } }, required: ["a"], maxProperties: 2 },
        many: { type: "object", minProperties: 3, additionalProperties: { type: "integer" } },
        pair: { type: "array", items: [{ type: "string" }, { type: "integer" }], additionalItems: false },
        uniq: { type: "array", items: { type: "integer", minimum: 1, maximum: 9 }, minItems: 4, uniqueItems: true },
      },
      required: ["few", "many", "pair", "uniq"],
    },
  },
  {
    name: "Gemini-style upper-case types",
    prompt: "Find hotels in Rome",
    schema: { type: "OBJECT", properties: { location: { type: "STRING" }, stars: { type: "INTEGER" }, open: { type: "BOOLEAN" } }, required: ["location", "stars"] },
  },
  { name: "empty schema", prompt: "anything", schema: {} },
];

t.test("sampled arguments validate against their schema", async (t) => {
  for (const c of cases) {
    const v = sampleArguments(c.schema, promptHints(c.prompt));
    const validate = ajv.compile(lowerTypes(c.schema) as JsonObject);
    t.ok(validate(v), `${c.name}: ${JSON.stringify(v)} ${JSON.stringify(validate.errors)}`);
  }
});

t.test("the same schema and prompt give the same instance", async (t) => {
  for (const c of cases) t.same(sampleArguments(c.schema, promptHints(c.prompt)), sampleArguments(c.schema, promptHints(c.prompt)), c.name);
});

t.test("values come from the prompt where natural", async (t) => {
  const weather = sampleArguments(cases[0]!.schema, promptHints(cases[0]!.prompt));
  t.same(weather, { city: "Paris", unit: "celsius", days: 3 });
  t.equal(sampleArguments({ type: "object", properties: { location: { type: "string" } } }, promptHints("Is it raining in New York today?")).location, "New York");
  t.equal(sampleArguments({ type: "object", properties: { location: { type: "string" } } }, promptHints("Tokyo weather")).location, "Tokyo");
  t.equal(sampleArguments({ type: "object", properties: { query: { type: "string" } }, required: ["query"] }, promptHints("search for cheap flights")).query, "search for cheap flights");
  t.equal(sampleArguments({ type: "object", properties: { when: { type: "string", format: "date" } } }, promptHints("on 2024-03-09 please")).when, "2024-03-09");
  t.equal(sampleArguments({ type: "object", properties: { n: { type: "integer", maximum: 10 } }, required: ["n"] }, promptHints("pick 50 or 7")).n, 7, "skips numbers out of range");
  t.equal(sampleArguments({ type: "object", properties: { path: { type: "string" } } }, promptHints("open /etc/hosts now")).path, "/etc/hosts");
});

// Claude Code's Bash tool, as it sends it.
const bash: JsonObject = {
  type: "object",
  properties: {
    command: { type: "string", description: "The command to execute" },
    timeout: { type: "number", description: "Optional timeout in milliseconds (max 600000)" },
    description: { type: "string", description: "Clear, concise description of what this command does" },
    run_in_background: { type: "boolean" },
    dangerouslyDisableSandbox: { type: "boolean" },
  },
  required: ["command"],
  additionalProperties: false,
};

t.test("tool arguments: the required properties, and optional ones only where the user's words give them", async (t) => {
  t.same(sampleArguments(bash, promptHints("use the Bash tool to run: ls")), { command: "ls" }, "no timeout, description, background or sandbox flags");
  t.same(sampleArguments(bash, promptHints("use the Bash tool to run: `git log --oneline`")), { command: "git log --oneline" }, "quotes around the command go");
  t.same(sampleArguments(bash, promptHints('run "make test" with Bash')), { command: "make test" }, "a quoted command");
  t.same(
    sampleArguments(bash, promptHints("use Bash to run: sleep 5\nwith a timeout of 9000, run in background")),
    { command: "sleep 5", timeout: 9000, run_in_background: true },
    "named ones are filled, a number from right after its name",
  );
  t.same(sampleArguments(bash, promptHints("dangerously disable sandbox, run: ls")), { command: "ls", dangerouslyDisableSandbox: true });

  const listDir: JsonObject = {
    type: "object",
    properties: {
      dir_path: { type: "string" },
      ignore: { type: "array", items: { type: "string" } },
      file_filtering_options: { type: "object", properties: { respect_git_ignore: { type: "boolean" } } },
    },
    required: ["dir_path"],
  };
  t.same(sampleArguments(listDir, promptHints("use the list_directory tool to list the current directory")), { dir_path: "." }, "a folder not named is the current one");
  t.same(sampleArguments(listDir, promptHints("list_directory /srv/app please")), { dir_path: "/srv/app" });

  const trip: JsonObject = {
    type: "object",
    properties: {
      city: { type: "string" },
      unit: { $ref: "#/$defs/unit" },
      day: { type: "string", format: "date" },
      contact: { type: "string", format: "email" },
      site: { type: "string", format: "uri" },
      days: { type: "integer" },
      note: { type: "string" },
    },
    $defs: { unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
  };
  t.same(sampleArguments(trip, promptHints("hello")), {}, "nothing given, nothing filled");
  t.same(
    sampleArguments(trip, promptHints("Weather in Oslo on 2025-06-01 in fahrenheit, mail ann@example.org, see https://met.no/x")),
    { city: "Oslo", unit: "fahrenheit", day: "2025-06-01", contact: "ann@example.org", site: "https://met.no/x" },
    "a place, an enum value (through a $ref), a date, an e-mail address and a URL; no number, no free text",
  );
  t.same(
    sampleArguments({ type: "object", properties: { a: { type: "string" }, b: { type: "string" }, c: { type: "string" } }, minProperties: 2 }, promptHints("hi")),
    { a: "a", b: "b" },
    "minProperties brings optional ones back",
  );
  t.same(sampleArguments({ type: "object", properties: { q: { type: "string" }, id: { type: "integer" } } }, promptHints("q id 7")), {}, "names under three letters are not looked for");
  t.same(sampleArguments(trip, promptHints("")), {}, "no words, nothing given");

  const byKey: Array<[string, string, string]> = [
    ["file_path", "open notes.md", "notes.md"],
    ["folder", "in /srv/www", "/srv/www"],
    ["link", "fetch https://example.org/a", "https://example.org/a"],
    ["mail", "write to bo@example.org", "bo@example.org"],
    ["cmd", "try `make`", "make"],
    ["author", "books by Ursula Le Guin", "Ursula Le Guin"],
    ["deadline", "due 2025-02-03", "2025-02-03"],
  ];
  for (const [key, prompt, value] of byKey) {
    const schema: JsonObject = { type: "object", properties: { [key]: { type: "string" } } };
    t.same(sampleArguments(schema, promptHints(prompt)), { [key]: value }, `${key} from "${prompt}"`);
    t.same(sampleArguments(schema, promptHints("nothing of the kind")), {}, `${key} left out`);
  }
});

t.test("JSON answers still fill every property", async (t) => {
  t.same(sampleSchema(bash, promptHints("run: ls")), { command: "ls", timeout: 1.5, description: "run: ls", run_in_background: true, dangerouslyDisableSandbox: true });
});

t.test("JSON answers of any root type", async (t) => {
  for (const schema of [{ type: "array", items: { type: "string" } }, { type: "string", enum: ["x", "y"] }, { type: "number" }, { type: "boolean" }, { type: "null" }] as JsonObject[]) {
    t.ok(ajv.validate(schema, sampleSchema(schema, promptHints("hi"))), JSON.stringify(schema));
  }
  t.equal(sampleSchema({ type: "string", enum: ["positive", "negative", "neutral"] }, promptHints("This is negative")), "negative");
});

t.test("regex sampler", async (t) => {
  const patterns = ["^\\d{3}-\\d{4}$", "^[A-Z][a-z]+$", "^(foo|bar)+baz?$", "^[^0-9]{2}$", "^\\w+@\\w+\\.com$", "^a.c$", "^[\\dA-F]{6}$", "^(?:ab){2,}$"];
  for (const p of patterns) {
    const s = sampleRegex(p);
    t.ok(s !== undefined && new RegExp(p, "u").test(s), `${p} -> ${s}`);
  }
  t.equal(sampleRegex("(a)\\1"), undefined, "backreferences are beyond it");
  t.equal(sampleRegex("(?=x)x"), undefined, "lookaheads are beyond it");
});

t.test("hostile sizes are capped", async (t) => {
  const v = sampleArguments(
    {
      type: "object",
      properties: { s: { type: "string", minLength: 1e9 }, a: { type: "array", minItems: 1e9 }, o: { type: "object", minProperties: 1e9 }, r: { type: "string", pattern: "^a{1000000}$" } },
      required: ["s", "a", "o", "r"],
    },
    promptHints("x"),
  ) as { s: string; a: unknown[]; o: object; r: string };
  t.ok(v.s.length <= 4096 && v.a.length <= 64 && Object.keys(v.o).length <= 64 && v.r.length <= 4096);
});
