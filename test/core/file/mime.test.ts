// What an upload is: signatures first, then the declared type or the file
// name (never one that claims a signature the bytes lack), then UTF-8 text.
import t from "tap";
import { cleanFilename, detectMimeType, sniff, unnamed } from "../../../src/core/file/mime.js";

const bytes = (...b: number[]) => new Uint8Array(b);
const text = (s: string) => new TextEncoder().encode(s);
const PNG = bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13);
const JPEG = bytes(0xff, 0xd8, 0xff, 0xe0, 0, 16);
const GIF = text("GIF89a\x01\x00\x01\x00");
const WEBP = text("RIFF\x24\x00\x00\x00WEBPVP8 ");
const PDF = text("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n");

t.test("sniff", async (t) => {
  const table: Array<[string, Uint8Array, string | undefined]> = [
    ["png", PNG, "image/png"],
    ["jpeg", JPEG, "image/jpeg"],
    ["gif", GIF, "image/gif"],
    ["webp", WEBP, "image/webp"],
    ["pdf", PDF, "application/pdf"],
    ["pdf after a little junk", text("\r\n%PDF-1.4\n"), "application/pdf"],
    ["RIFF that is not WebP (a WAV)", text("RIFF\x24\x00\x00\x00WAVEfmt "), undefined],
    ["text", text("hello"), undefined],
    ["empty", new Uint8Array(), undefined],
    ["a PNG cut short", PNG.subarray(0, 4), undefined],
  ];
  for (const [name, data, want] of table) t.equal(sniff(data), want, name);
});

t.test("detectMimeType", async (t) => {
  const table: Array<[string, Uint8Array, string, string, string]> = [
    ["a signature beats the declared type", PNG, "text/plain", "x.txt", "image/png"],
    ["a signature beats the name", PDF, "application/octet-stream", "report.txt", "application/pdf"],
    ["the declared type, parameters dropped", text("a,b\n1,2\n"), "text/csv; charset=utf-8", "data", "text/csv"],
    ["octet-stream is no type: the name says", text("# Title\n"), "application/octet-stream", "notes.md", "text/markdown"],
    ["no type: the name says", text("{}"), "", "x.json", "application/json"],
    ["a declared image/png the bytes are not: text", text("not an image"), "image/png", "photo.png", "text/plain"],
    ["a named .pdf that is not one: text", text("plain words"), "", "paper.pdf", "text/plain"],
    ["no type, no known name, UTF-8: text/plain", text("héllo wörld"), "", "README", "text/plain"],
    ["binary without a name: octet-stream", bytes(0, 1, 2, 3, 0xff), "", "", "application/octet-stream"],
    ["invalid UTF-8: octet-stream", bytes(0xc3, 0x28), "", "blob", "application/octet-stream"],
    ["a NUL byte is not text", text("a\u0000b"), "", "blob", "application/octet-stream"],
    ["a declared zip stays a zip", bytes(0x50, 0x4b, 3, 4), "application/zip", "a.zip", "application/zip"],
    ["a malformed declared type is ignored", text("abc"), "not a type", "a.bin", "text/plain"],
  ];
  for (const [name, data, declared, filename, want] of table) t.equal(detectMimeType(data, declared, filename), want, name);
});

t.test("cleanFilename", async (t) => {
  const table: Array<[string, string]> = [
    ["notes.txt", "notes.txt"],
    ["/etc/passwd", "passwd"],
    ["C:\\Users\\me\\report.pdf", "report.pdf"],
    ["dir/", ""],
    ["..", ""],
    ["  spaced.txt  ", "spaced.txt"],
    ["bell\u0007name\u0000.txt", "bellname.txt"],
    ["ünïcødé 文件.txt", "ünïcødé 文件.txt"],
    ["x".repeat(300), "x".repeat(255)],
  ];
  for (const [given, want] of table) t.equal(cleanFilename(given), want, JSON.stringify(given.slice(0, 40)));
});

t.test("unnamed", async (t) => {
  t.equal(unnamed("application/pdf"), "unnamed.pdf");
  t.equal(unnamed("text/plain"), "unnamed.txt");
  t.equal(unnamed("image/png"), "unnamed.png");
  t.equal(unnamed("application/octet-stream"), "unnamed.bin");
  t.equal(unnamed("x-unknown/thing"), "unnamed");
});
