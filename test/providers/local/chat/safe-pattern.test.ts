// A client's JSON Schema `pattern` is tested by the local engine against the
// client's own words. With V8's backtracking engine, `^(\w+\s?)+$` against 43
// letters and a "!" ran for hours and held the gateway's one thread (the last
// test below was that request, and hung). Each test here that feeds such a
// pattern a long string would hang the same way, so a regression fails by the
// file's timeout.
import t from "tap";
import { MAX_BACKTRACKED, patternTest, re2Loaded } from "../../../../src/providers/local/chat/safe-pattern.js";
import { matchesPattern, sampleRegex } from "../../../../src/providers/local/chat/regex-sample.js";
import { validates } from "../../../../src/providers/local/chat/schema-check.js";
import { ADMIN_KEY, startServer } from "../../../helpers/app.js";

const EVIL = ["^(a+)+$", "^(\\w+\\s?)+$", "^((a+)+)+$", "^(a|aa)+$", "(x+x+)+y"];
const LONG = "a".repeat(43) + "!";

t.test("re2js is loaded by the first pattern, not at start", async (t) => {
  t.equal(re2Loaded(), false, "not by importing the local engine's modules");
  patternTest("^a$");
  t.equal(re2Loaded(), true);
});

t.test("the answers of ECMAScript's engine on the patterns schemas use", async (t) => {
  const patterns = [
    "^[a-z]{3}-\\d{2,4}$",
    "^\\p{Lu}\\p{Ll}+$",
    "^[A-Z0-9._%+-]+@[A-Z0-9.-]+\\.[A-Z]{2,}$",
    "\\d",
    "^(?:\\+?1[-. ]?)?\\(?\\d{3}\\)?[-. ]?\\d{3}[-. ]?\\d{4}$",
    "^#[0-9a-fA-F]{6}$",
    "^$",
    "colou?r",
    "^[^\\s]+$",
    "^\\w+$",
  ];
  const strings = [
    "abc-12",
    "abc-12345",
    "Émile",
    "émile",
    "ANN@EX.COM",
    "ann@ex",
    "x7",
    "(555) 123-4567",
    "+1 555.123.4567",
    "#a0B1c2",
    "#a0B1c",
    "",
    "the color",
    "no space",
    "nospace",
    "snake_case_1",
    "dash-no",
  ];
  for (const p of patterns) {
    const js = new RegExp(p, "u");
    const test = patternTest(p)!;
    for (const s of strings) t.equal(test(s), js.test(s), `${p} on ${JSON.stringify(s)}`);
  }
});

t.test("patterns that backtrack exponentially answer at once, and rightly", async (t) => {
  for (const p of EVIL) {
    const test = patternTest(p)!;
    t.equal(test(LONG), false, `${p} on 43 letters and a "!"`);
    t.equal(test("a".repeat(40)), new RegExp(p, "u").test("a".repeat(40)), `${p} on 40 letters`);
    t.equal(matchesPattern(LONG + LONG, p), false, `${p} through matchesPattern`);
  }
});

t.test("what RE2 lacks runs on V8, on short strings only", async (t) => {
  const backref = patternTest("^(a+)\\1$")!;
  t.equal(backref("aaaa"), true, "a backreference");
  t.equal(backref("aaa"), false);
  const look = patternTest("^(?=(a+)+$)a+")!;
  t.equal(look("a".repeat(MAX_BACKTRACKED)), true, "a lookahead, at the length limit");
  t.equal(look("a".repeat(40) + "!"), false, "longer: not tested, not a match");
  t.equal(look("a".repeat(40)), false, "longer strings never match (the sampler builds one instead)");
});

t.test("an invalid pattern", async (t) => {
  t.equal(patternTest("(unclosed"), undefined);
  t.equal(patternTest("\\p{NotAProperty}"), undefined);
  t.equal(matchesPattern("x", "(unclosed"), false);
  t.equal(validates({ type: "string", pattern: "(unclosed" }, "x"), undefined, "ajv: no opinion");
});

t.test("the sampler and ajv use the bounded test", async (t) => {
  t.equal(sampleRegex("^(\\w+\\s?)+$"), "a ");
  t.equal(validates({ type: "string", pattern: "^(\\w+\\s?)+$" }, LONG), false);
  t.equal(validates({ type: "string", pattern: "^(\\w+\\s?)+$" }, "a".repeat(43)), true);
  t.equal(validates({ oneOf: [{ type: "string" }, { type: "string", pattern: "^((a+)+)+$" }] }, LONG), true, "one branch of a oneOf");
});

t.test("the request that held the gateway", async (t) => {
  const server = await startServer({});
  t.teardown(() => server.close());
  const schema = { type: "object", properties: { _: { type: "string", pattern: "^(\\w+\\s?)+$" } }, required: ["_"] };
  const res = await fetch(`${server.baseUrl}/v1beta/models/gemini-2.5-flash:generateContent`, {
    method: "POST",
    headers: { "x-goog-api-key": ADMIN_KEY, "content-type": "application/json" },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: LONG }] }], generationConfig: { responseMimeType: "application/json", responseJsonSchema: schema } }),
  });
  t.equal(res.status, 200);
  const body = (await res.json()) as { candidates: { content: { parts: { text: string }[] } }[] };
  const out = JSON.parse(body.candidates[0]!.content.parts[0]!.text) as { _: string };
  t.match(out._, /^(\w+\s?)+$/, "the answer still matches the pattern");
});
