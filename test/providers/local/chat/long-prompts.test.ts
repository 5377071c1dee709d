// The local engine reads every prompt with regular expressions (the hints it
// answers from, the arithmetic it runs, the prompt it rewrites). A pattern
// that rescans the rest of its input from every position is quadratic: a
// 70,000-letter prompt took 6 s of the one thread, so one client could stall
// the gateway. Each rewritten reader is checked against the pattern it
// replaces, and each is fed a megabyte of the input that was quadratic: at
// the old cost that is hours, past the file's timeout.
import t from "tap";
import { expressionRuns, findExpression } from "../../../../src/providers/local/chat/code-exec.js";
import { trimEndDots } from "../../../../src/providers/local/images/prompt-rewrite.js";
import { promptHints } from "../../../../src/providers/local/chat/prompt.js";
import { evalPython, formatPython } from "../../../../src/providers/local/chat/python-arith.js";
import { ADMIN_KEY, startServer } from "../../../helpers/app.js";
import { rng, type Rng } from "../../../helpers/rng.js";

const MB = 1 << 20;

const randomText = (rand: Rng, alphabet: string, max: number) => Array.from({ length: Math.floor(rand() * max) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join("");

t.test("expressionRuns finds what the old pattern matched", async (t) => {
  const OLD = /[-(\d.][\d\s.+\-*/%()]*[\d)]/g;
  const old = (s: string) => [...s.matchAll(OLD)].map((m) => m[0].trim().replace(/\s+/g, " "));
  const table = ["what is 12 * (3 + 4)?", "-(2+3) and 7", "a ) 5 b", "5", "--", "x (1) y", ". 5 .", "1\n+\n2", "2024-01-02", ""];
  for (const s of table) t.same(expressionRuns(s), old(s), JSON.stringify(s));
  const rand = rng(7);
  let same = 0;
  for (let i = 0; i < 3000; i++) {
    const s = randomText(rand, "-(1. +*/%)a\n2", 40);
    if (JSON.stringify(expressionRuns(s)) === JSON.stringify(old(s))) same++;
    else t.fail(`differs on ${JSON.stringify(s)}`);
  }
  t.equal(same, 3000, "3,000 random strings of expression characters");
});

t.test("trimEndDots trims what the old pattern did", async (t) => {
  const old = (s: string) => s.replace(/[.\s]+$/, "");
  const table = ["a cat.", "a cat. . .\n", "...", "", "a.b", "a cat\t.", "x. y"];
  for (const s of table) t.equal(trimEndDots(s), old(s), JSON.stringify(s));
  const rand = rng(11);
  let same = 0;
  for (let i = 0; i < 3000; i++) {
    const s = randomText(rand, ". \tab\n", 30);
    if (trimEndDots(s) === old(s)) same++;
    else t.fail(`differs on ${JSON.stringify(s)}`);
  }
  t.equal(same, 3000, "3,000 random strings of dots, spaces and letters");
});

t.test("the hints still find e-mail addresses", async (t) => {
  t.same(promptHints("write to ann.lee+news@mail.example.co.uk, cc bo@x.io.").emails, ["ann.lee+news@mail.example.co.uk", "bo@x.io"]);
  t.same(promptHints("no address: user@ or @host.com or a@b").emails, []);
  t.same(promptHints("(jo_e-1@sub-domain.org)").emails, ["jo_e-1@sub-domain.org"]);
});

t.test("a tokenizer pass per prompt, not per token", async (t) => {
  t.equal(formatPython(evalPython("1 + 2  \n ")), "3", "trailing white space");
  t.equal(formatPython(evalPython(Array(200_000).fill("1").join(" + "))), "200000", "200,000 terms");
});

t.test("a megabyte of what was quadratic is read in one pass", async (t) => {
  t.same(promptHints("x".repeat(MB)).emails, [], "letters with no @ (the e-mail pattern)");
  t.equal(findExpression("-".repeat(MB)), "", "dashes (the arithmetic pattern)");
  t.equal(findExpression("sum " + "1 + ".repeat(MB / 4) + "1").length, (MB / 4) * 4 + 1, "a long sum");
  t.equal(trimEndDots("a" + " .".repeat(MB / 2) + "b"), "a" + " .".repeat(MB / 2) + "b", "dots and spaces inside");
});

t.test("a long prompt through the local engine, end to end", async (t) => {
  const server = await startServer({});
  t.teardown(() => server.close());
  const res = await fetch(server.baseUrl + "/v1/messages", {
    method: "POST",
    headers: { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({ model: "claude-sonnet-4-6", max_tokens: 64, messages: [{ role: "user", content: "x".repeat(MB) }] }),
  });
  const body = (await res.json()) as { type: string; content: { type: string; text: string }[]; stop_reason: string; usage: { input_tokens: number } };
  t.equal(res.status, 200);
  t.equal(body.type, "message");
  t.match(body.content[0]?.text, /^You said:/, "the echo, cut at max_tokens");
  t.equal(body.stop_reason, "max_tokens");
  t.ok(body.usage.input_tokens > 100_000, "the whole prompt was read");
});
