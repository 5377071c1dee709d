// scripts/tap-summary.mjs: the raw TAP passes through unchanged, and the end
// names each failing leaf test (path and first diagnostic lines) before the
// counts, because CI keeps only the tail of the output.
import t from "tap";
import TapSummary from "../../scripts/tap-summary.mjs";

async function report(tap: string, chunk = 7): Promise<{ out: string; tail: string }> {
  const r = new TapSummary();
  const parts: string[] = [];
  r.on("data", (b: Buffer | string) => parts.push(String(b)));
  const done = new Promise((resolve) => r.on("end", resolve));
  // Uneven chunks: a line split across writes must still be read whole.
  for (let i = 0; i < tap.length; i += chunk) r.write(tap.slice(i, i + chunk));
  r.end();
  await done;
  const out = parts.join("");
  return { out, tail: out.slice(tap.length) };
}

const FAILING = `TAP version 14
1..2
# Subtest: test/a.test.ts
    # Subtest: group one
        ok 1 - fine
        not ok 2 - should be equal
          ---
          found: 1
          wanted: 2
          at:
            fileName: test/a.test.ts
            lineNumber: 12
          ...
        1..2
    not ok 1 - group one
    1..1
not ok 1 - test/a.test.ts # time=12ms
  ---
  exitCode: 1
  ...
# Subtest: test/b.test.ts
    not ok 1 - timeout!
    1..1
not ok 2 - test/b.test.ts
# Subtest: test/c.test.ts
    ok 1 - c passes
    1..1
ok 3 - test/c.test.ts
# { total: 4, pass: 2, fail: 2 }
`;

t.test("failing leaves are listed with their path and diagnostics, parents are not", async (t) => {
  const { out, tail } = await report(FAILING);
  t.ok(out.startsWith(FAILING), "the TAP passes through unchanged");
  t.match(tail, /Failed \(2\):/);
  t.match(tail, /✖ test\/a\.test\.ts > group one > should be equal\n {6}found: 1\n {6}wanted: 2\n/);
  t.match(tail, /✖ test\/b\.test\.ts > timeout!\n/);
  t.notMatch(tail, /✖ test\/a\.test\.ts > group one\n/, "a parent failing through its child is not listed again");
  t.notMatch(tail, /exitCode/);
  t.match(tail, /\n2 passed, 2 failed\n$/);
});

t.test("a green run ends with the counts only", async (t) => {
  const green = "TAP version 14\n# Subtest: x\n    ok 1 - y\n    1..1\nok 1 - x\n# { total: 1, pass: 1, fail: 0 }\n";
  const { tail } = await report(green, 3);
  t.equal(tail, "\n1 passed, 0 failed\n");
});

t.test("a failing subtest with no failing child is listed itself", async (t) => {
  const tap = "# Subtest: f.test.ts\n    ok 1 - y\n    1..1\nnot ok 1 - f.test.ts\n  ---\n  signal: SIGKILL\n  ...\n# { total: 1, pass: 1, fail: 1 }\n";
  const { tail } = await report(tap);
  t.match(tail, /✖ f\.test\.ts\n {6}signal: SIGKILL\n/);
});

t.test("long lists are cut", async (t) => {
  const lines = Array.from({ length: 25 }, (_, i) => `not ok ${i + 1} - case ${i}`).join("\n");
  const { tail } = await report(`${lines}\n# { total: 25, pass: 0, fail: 25 }\n`, 64);
  t.match(tail, /Failed \(25\):/);
  t.match(tail, /✖ case 19\n/);
  t.notMatch(tail, /✖ case 20\n/);
  t.match(tail, /\.\.\. and 5 more/);
});
