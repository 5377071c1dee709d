// Prompt helpers: sensitive words, Chinese detection and --parameters.
import t from "tap";
import { aspectOf, findBannedWord, hasChinese, paramsOf, seedOf, stripParams, zoomOf } from "../../../src/core/image-bot/prompt.js";

t.test("banned words match whole Latin words, case-insensitively, and CJK anywhere", async (t) => {
  const words = ["nude", "Gore", "血腥"];
  t.equal(findBannedWord("a NUDE statue", words), "nude");
  t.equal(findBannedWord("gore, everywhere", words), "Gore");
  t.equal(findBannedWord("nudes are fine here", words), undefined, "not a whole word");
  t.equal(findBannedWord("denuded hills", words), undefined);
  t.equal(findBannedWord("一幅血腥的画", words), "血腥");
  t.equal(findBannedWord("a cat", words), undefined);
  t.equal(findBannedWord("a cat", []), undefined);
});

t.test("Chinese detection", async (t) => {
  t.ok(hasChinese("猫猫 --ar 1:1"));
  t.notOk(hasChinese("a cat, 100%!"));
  t.notOk(hasChinese("ねこ"), "kana alone is not Chinese");
});

t.test("parameters", async (t) => {
  t.same(aspectOf("cat --ar 3:2"), { w: 3, h: 2 });
  t.same(aspectOf("cat --aspect 9:16 --v 6"), { w: 9, h: 16 });
  t.same(aspectOf("cat"), { w: 1, h: 1 });
  t.same(aspectOf("cat --ar 10:1"), { w: 1, h: 1 }, "beyond 4:1 falls back to square");
  t.equal(zoomOf("cat --zoom 1.5"), 1.5);
  t.equal(zoomOf("cat --zoomed 2"), undefined);
  t.equal(seedOf("cat --seed 42"), 42);
  t.equal(seedOf("cat --seed 99999999999"), undefined);
  t.equal(stripParams("a red cat --ar 3:2 --v 6"), "a red cat");
  t.equal(paramsOf("a red cat --ar 3:2 --v 6"), "--ar 3:2 --v 6");
  t.equal(paramsOf("a red cat"), "");
});
