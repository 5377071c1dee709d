// The artwork's SVG text: every string a client may send must be XML 1.0 that
// librsvg reads, so every prompt renders.
import t from "tap";
import sharp from "sharp";
import { artSvg, escapeXml } from "../../../../src/providers/local/images/art.js";

/** What XML 1.0 cannot hold, one of each class. */
const FORBIDDEN: Array<[string, string]> = [
  ["NUL", "\u0000"],
  ["C0 control", "\u0001"],
  ["vertical tab", "\u000b"],
  ["form feed", "\u000c"],
  ["unit separator", "\u001f"],
  ["lone high surrogate", "\ud800"],
  ["lone low surrogate", "\udfff"],
  ["U+FFFE", "\ufffe"],
  ["U+FFFF", "\uffff"],
];
const XML_CHAR = /^[\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

t.test("escapeXml: markup as references, characters XML cannot hold as U+FFFD, the rest kept", async (t) => {
  for (const [name, c] of FORBIDDEN) {
    const out = escapeXml(`a${c}b`);
    t.equal(out, "a\uFFFDb", name);
    t.match(out, XML_CHAR, `${name}: only XML characters`);
  }
  t.equal(escapeXml(`<&>"'`), "&#60;&#38;&#62;&#34;&#39;");
  t.equal(escapeXml("tab\there\nnew\rline"), "tab\there\nnew\rline", "tab, LF and CR are XML characters");
  t.equal(escapeXml("emoji 😀, \u{10FFFD}, \uE000, \uFFFD, \u007f, \u0085"), "emoji 😀, \u{10FFFD}, \uE000, \uFFFD, \u007f, \u0085", "pairs and every allowed range pass");
});

t.test("a prompt of every forbidden class renders", async (t) => {
  for (const [name, c] of FORBIDDEN) {
    const svg = artSvg({ prompt: `a${c}b ${c}${c} c`, seed: 1, index: 0, width: 64, height: 64, transparent: false, quality: "low", style: "" });
    t.match(svg, XML_CHAR, `${name}: the document holds only XML characters`);
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    t.equal((await sharp(png).metadata()).width, 64, `${name}: rendered`);
  }
  // A word cut by the wrap must not leave half a surrogate pair behind.
  const svg = artSvg({ prompt: "😀".repeat(40), seed: 1, index: 0, width: 64, height: 64, transparent: false, quality: "low", style: "" });
  t.match(svg, XML_CHAR, "a cut surrogate pair is replaced");
  t.ok((await sharp(Buffer.from(svg)).png().toBuffer()).length > 0);
});
