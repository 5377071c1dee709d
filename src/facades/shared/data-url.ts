// Base64 data URLs and bare base64 payloads as wire formats carry files and
// images inline. Pure.

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

export const isBase64 = (s: string): boolean => BASE64.test(s);

/** A base64 data URL's type (lower case) and bytes; undefined for anything else. */
export function parseDataUrl(url: string): { mimeType: string; data: Uint8Array } | undefined {
  if (!url.startsWith("data:")) return undefined;
  const comma = url.indexOf(",");
  if (comma < 0) return undefined;
  const head = url.slice(5, comma).split(";");
  if (head.at(-1)?.toLowerCase() !== "base64") return undefined;
  const payload = url.slice(comma + 1);
  if (!BASE64.test(payload)) return undefined;
  return { mimeType: (head[0] ?? "").toLowerCase(), data: new Uint8Array(Buffer.from(payload, "base64")) };
}
