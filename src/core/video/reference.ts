// Reference images of image-to-video requests: bytes (an upload or a data
// URL) are checked, from their header, to be an image within the pixel limit
// when the task is created; an http(s) URL is checked for SSRF then, and
// fetched (through a resolver that refuses private addresses) only when a
// task's provider needs the bytes.
import { Agent, request } from "undici";
import { loadSharp } from "../../lib/sharp.js";
import type { InputFile } from "../../../gen/omnigate/common/v1/common_pb.js";
import { Code, coreError, invalidArgument } from "../errors.js";
import { HEADER_ONLY, PIXEL_LIMIT_TEXT, withinPixelLimit } from "../pixel-limit.js";
import { callbackUrlProblem, guardedLookup } from "../tasks/ssrf.js";

export const MAX_REFERENCE_BYTES = 20 * 1024 * 1024;
const FIELD = "input_reference";
const MIME_OF: Record<string, string> = { jpeg: "image/jpeg", png: "image/png", webp: "image/webp", gif: "image/gif" };

export type Reference = { data: Uint8Array; mimeType: string } | { url: string; mimeType: "" };

/** Drops a response body we will not read (an unhandled 'error' from destroy() would crash the process). */
function discard(body: { on(ev: "error", fn: () => void): unknown; destroy(): unknown }): void {
  body.on("error", () => undefined);
  body.destroy();
}

const invalidImage = (msg: string) => invalidArgument(msg, FIELD, "invalid_image");

/** The image's MIME type from its bytes, or an InvalidArgument naming the problem. */
export async function sniffImage(data: Uint8Array): Promise<string> {
  if (data.byteLength === 0) throw invalidImage("The reference image is empty.");
  if (data.byteLength > MAX_REFERENCE_BYTES) throw invalidImage(`The reference image is larger than ${MAX_REFERENCE_BYTES / 1024 / 1024} MB.`);
  let meta: { format?: string; width?: number; height?: number } | undefined;
  try {
    meta = await (await loadSharp())(data, HEADER_ONLY).metadata();
  } catch {
    meta = undefined;
  }
  const mime = meta?.format && MIME_OF[meta.format];
  if (!mime) throw invalidImage("The reference image must be a JPEG, PNG, WEBP or GIF image.");
  const { width = 0, height = 0 } = meta!;
  if (!withinPixelLimit(width, height)) throw invalidImage(`The reference image is ${width}x${height} pixels; at most ${PIXEL_LIMIT_TEXT} are accepted.`);
  return mime;
}

function decodeDataUrl(uri: string): Uint8Array {
  const m = /^data:([\w.+-]+\/[\w.+-]+)?((?:;[\w-]+=[^;,]*)*);base64,(.*)$/s.exec(uri);
  if (!m) throw invalidImage("The reference image data URL must look like 'data:image/png;base64,...'.");
  const b64 = m[3]!.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64)) throw invalidImage("The reference image data URL is not valid base64.");
  return Buffer.from(b64, b64.includes("-") || b64.includes("_") ? "base64url" : "base64");
}

/** Checks a request's reference image: bytes come back with their sniffed type, a URL as it is. */
export async function checkReference(file: InputFile, allowPrivate: boolean): Promise<Reference> {
  const src = file.source;
  if (src.case === "data") return { data: src.value, mimeType: await sniffImage(src.value) };
  if (src.case === "uri") {
    const uri = src.value.trim();
    if (/^data:/i.test(uri)) {
      const data = decodeDataUrl(uri);
      return { data, mimeType: await sniffImage(data) };
    }
    if (!/^https?:\/\//i.test(uri)) throw invalidImage("The reference image must be an http(s) URL or a data URL.");
    const problem = callbackUrlProblem(uri, allowPrivate);
    if (problem) throw invalidImage(`The reference image URL ${problem}.`);
    return { url: uri, mimeType: "" };
  }
  throw invalidImage("The reference image is empty.");
}

/** Downloads a reference image URL (at most MAX_REFERENCE_BYTES, no redirects); failures are InvalidArgument. */
export async function fetchReference(url: string, opts: { allowPrivate: boolean; signal: AbortSignal; timeoutMs?: number }): Promise<{ data: Uint8Array; mimeType: string }> {
  const problem = callbackUrlProblem(url, opts.allowPrivate);
  if (problem) throw invalidImage(`The reference image URL ${problem}.`);
  const agent = new Agent({ connect: { timeout: opts.timeoutMs ?? 10_000, ...(opts.allowPrivate ? {} : { lookup: guardedLookup }) } });
  try {
    const res = await request(url, { dispatcher: agent, signal: opts.signal, headersTimeout: opts.timeoutMs ?? 30_000, bodyTimeout: opts.timeoutMs ?? 30_000 }).catch((err: unknown) => {
      if (opts.signal.aborted) throw err;
      throw coreError(Code.InvalidArgument, "The reference image URL could not be fetched.", { reason: "invalid_image", field: FIELD, cause: err });
    });
    if (res.statusCode !== 200) {
      discard(res.body);
      throw invalidImage(`The reference image URL answered HTTP ${res.statusCode}.`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of res.body) {
      size += (c as Buffer).length;
      if (size > MAX_REFERENCE_BYTES) {
        discard(res.body);
        throw invalidImage(`The reference image is larger than ${MAX_REFERENCE_BYTES / 1024 / 1024} MB.`);
      }
      chunks.push(c as Buffer);
    }
    const data = Buffer.concat(chunks);
    return { data, mimeType: await sniffImage(data) };
  } finally {
    void agent.close().catch(() => undefined);
  }
}
