import t from "tap";
import { isWellFormed, mayHoldSurrogate, parseWellFormed, toWellFormed } from "../../src/lib/unicode.js";

const EMOJI = "\ud83d\ude00";

t.test("isWellFormed and toWellFormed", async (t) => {
  const table: [string, boolean, string][] = [
    ["", true, ""],
    ["plain €", true, "plain €"],
    [`a ${EMOJI} b`, true, `a ${EMOJI} b`],
    ["cut \ud83d", false, "cut \ufffd"],
    ["\ude00 alone", false, "\ufffd alone"],
    ["\ude00\ud83d", false, "\ufffd\ufffd"],
    [`${EMOJI}\ud83d${EMOJI}`, false, `${EMOJI}\ufffd${EMOJI}`],
    ["\ud800\ud800\udc00", false, "\ufffd\ud800\udc00"],
  ];
  for (const [s, ok, fixed] of table) {
    t.equal(isWellFormed(s), ok, JSON.stringify(s));
    t.equal(toWellFormed(s), fixed, `${JSON.stringify(s)} made well formed`);
  }
});

t.test("mayHoldSurrogate reads the JSON text's escapes", async (t) => {
  t.equal(mayHoldSurrogate('{"a":"b"}'), false);
  t.equal(mayHoldSurrogate(`{"a":"${EMOJI}"}`), false, "raw UTF-8 text cannot hold an unpaired surrogate");
  t.equal(mayHoldSurrogate('{"a":"\\ud83d\\ude00"}'), true, "a pair escaped");
  t.equal(mayHoldSurrogate('{"a":"\\uDC00"}'), true, "upper case");
  t.equal(mayHoldSurrogate('{"a":"\\u00e9\\ud7ff\\ue000"}'), false, "escapes around the range");
});

t.test("parseWellFormed", async (t) => {
  t.same(parseWellFormed('{"a":[1,"x"]}'), { a: [1, "x"] }, "no escape: JSON.parse");
  t.same(parseWellFormed('{"a":"\\ud83d\\ude00","b":["\\ud83d",{"c":"x\\udc00"}],"\\ud800k":1}'), { a: EMOJI, b: ["\ufffd", { c: "x\ufffd" }], "\ufffdk": 1 });
  t.same(parseWellFormed('"\\ud800"'), "\ufffd", "a string alone");
  t.throws(() => parseWellFormed('{"a":"\\ud800"'), SyntaxError, "broken JSON still throws");
});
