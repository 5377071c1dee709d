// What a client's file is: the MIME type of an upload, from its bytes first
// (the formats a chat model reads have signatures), then from the type the
// client declared or its file name, then from whether it reads as UTF-8 text.
// A declared or named type with a signature the bytes lack is not believed
// (a "photo.png" that is not a PNG is not sent upstream as one). Pure.
import { isUtf8 } from "node:buffer";
import { createRequire } from "node:module";

// mime-types is loaded by the first file that needs a name's type: its database is heap most instances never need.
const requireMime = createRequire(import.meta.url);
let mimeTypes: typeof import("mime-types") | undefined;
const mime = (): typeof import("mime-types") => (mimeTypes ??= requireMime("mime-types") as typeof import("mime-types"));

/** Types a chat request may carry as a document or image block. */
export const CHAT_MEDIA_TYPES: ReadonlySet<string> = new Set(["application/pdf", "text/plain", "image/jpeg", "image/png", "image/gif", "image/webp"]);

const SIGNED = new Set(["application/pdf", "image/jpeg", "image/png", "image/gif", "image/webp"]);

const startsWith = (d: Uint8Array, bytes: readonly number[], at = 0) => d.length >= at + bytes.length && bytes.every((b, i) => d[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = ascii("GIF87a");
const GIF89 = ascii("GIF89a");
const RIFF = ascii("RIFF");
const WEBP = ascii("WEBP");

/** The type the bytes' signature names, for the formats that have one here. */
export function sniff(data: Uint8Array): string | undefined {
  // A PDF may start after a little junk (readers look in the first 1024 bytes); most start at 0.
  if (Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, 1024)).includes("%PDF-")) return "application/pdf";
  if (startsWith(data, PNG)) return "image/png";
  if (startsWith(data, JPEG)) return "image/jpeg";
  if (startsWith(data, GIF87) || startsWith(data, GIF89)) return "image/gif";
  if (startsWith(data, RIFF) && startsWith(data, WEBP, 8)) return "image/webp";
  return undefined;
}

const TYPE = /^[a-z0-9][\w.+-]*\/[a-z0-9][\w.+-]*$/;

function candidate(type: string | false | undefined): string | undefined {
  const t = (type || "").split(";")[0]!.trim().toLowerCase();
  return t && t !== "application/octet-stream" && TYPE.test(t) && !SIGNED.has(t) ? t : undefined;
}

export function detectMimeType(data: Uint8Array, declared: string, filename: string): string {
  const signed = sniff(data);
  if (signed) return signed;
  const named = candidate(declared) ?? candidate(mime().lookup(filename));
  if (named) return named;
  return data.length > 0 && isUtf8(data) && !data.includes(0) ? "text/plain" : "application/octet-stream";
}

/** A file name as stored: the last path segment, no control characters, at most 255 characters; "" when nothing is left. */
export function cleanFilename(name: string): string {
  const last = name.split(/[\\/]/).at(-1)!;
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  const base = last.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return base === "." || base === ".." ? "" : base.slice(0, 255);
}

/** The name of an upload that came without one: "unnamed", with the extension of its type when there is one. */
export function unnamed(mimeType: string): string {
  const ext = mime().extension(mimeType);
  return ext ? `unnamed.${ext}` : "unnamed";
}
