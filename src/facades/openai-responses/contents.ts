// Responses content parts -> neutral parts: text (input_text, output_text),
// refusals, images (data URLs, https URLs, file ids), files (file ids, inline
// data, URLs). Parts of a type the gateway does not know are left out. Pure.
//
// vendor_extras.openai holds what an OpenAI channel (a Chat Completions
// upstream) reads in its own shape: an image's `detail`, a refusal as Chat's
// refusal part. Nothing else of a part is carried.
import { standInPart } from "../../core/json-fields.js";
import { invalidArgument } from "../../core/errors.js";
import { create } from "../../core/proto/create.js";
import { PartSchema, type Part } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { isBase64, parseDataUrl } from "../shared/data-url.js";
import * as wire from "./wire.js";

export const VENDOR = "openai";

export const bad = (message: string, param: string) => invalidArgument(message, param, "invalid_value");

export const text = (t: string): Part => create(PartSchema, { kind: { case: "text", value: { text: t } } });

/** A refusal the assistant gave: an OpenAI channel gets Chat's refusal part back, others read the text. */
export const refusal = (r: string): Part => standInPart(VENDOR, { type: "refusal", refusal: r }, r);

const FILE_TYPES: Record<string, string> = {
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  json: "application/json",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

/** A type from a file name or URL path's extension; PDF, the type OpenAI's input_file takes, when there is none to go by. */
function typeOfName(name: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name.split(/[?#]/)[0]!)?.[1]?.toLowerCase() ?? "";
  return FILE_TYPES[ext] ?? "application/pdf";
}

function imagePart(p: wire.InputImage, param: string): Part {
  const extras = p.detail ? { vendorExtras: { [VENDOR]: { image_url: { detail: p.detail } } } } : {};
  const url = p.image_url;
  if (url == null) return create(PartSchema, { kind: { case: "media", value: { mimeType: "", source: { case: "fileId", value: p.file_id! } } }, ...extras });
  if (url.startsWith("data:")) {
    const d = parseDataUrl(url);
    if (!d) throw bad(`Invalid '${param}.image_url': expected a base64-encoded data URL ('data:image/png;base64,...') or an http(s) URL.`, `${param}.image_url`);
    return create(PartSchema, { kind: { case: "media", value: { mimeType: d.mimeType, source: { case: "data", value: d.data } } }, ...extras });
  }
  if (!/^https?:\/\//i.test(url)) throw bad(`Invalid '${param}.image_url': expected a base64-encoded data URL or an http(s) URL.`, `${param}.image_url`);
  return create(PartSchema, { kind: { case: "media", value: { mimeType: "", source: { case: "uri", value: url } } }, ...extras });
}

function filePart(p: wire.InputFile, param: string): Part {
  const name = p.filename ?? "";
  // The core reads a file id in (and sets its type) before any provider sees it.
  if (p.file_id != null) return create(PartSchema, { kind: { case: "media", value: { mimeType: "", source: { case: "fileId", value: p.file_id }, name } } });
  if (p.file_data != null) {
    const d = parseDataUrl(p.file_data);
    if (d) return create(PartSchema, { kind: { case: "media", value: { mimeType: d.mimeType, source: { case: "data", value: d.data }, name } } });
    if (!isBase64(p.file_data)) throw bad(`Invalid '${param}.file_data': expected a base64-encoded data URL or base64-encoded data.`, `${param}.file_data`);
    const data = new Uint8Array(Buffer.from(p.file_data, "base64"));
    return create(PartSchema, { kind: { case: "media", value: { mimeType: typeOfName(name), source: { case: "data", value: data }, name } } });
  }
  const url = p.file_url!;
  if (!/^https?:\/\//i.test(url)) throw bad(`Invalid '${param}.file_url': expected an http(s) URL.`, `${param}.file_url`);
  return create(PartSchema, { kind: { case: "media", value: { mimeType: typeOfName(name || url), source: { case: "uri", value: url }, name } } });
}

/** One content part -> a neutral part, or undefined for a part of a type the gateway does not know. */
export function contentPart(p: wire.ContentPart, param: string): Part | undefined {
  if (!wire.isKnownPart(p)) return undefined;
  switch (p.type) {
    case "input_text":
    case "output_text":
      return text(p.text);
    case "refusal":
      return refusal(p.refusal);
    case "input_image":
      return imagePart(p, param);
    case "input_file":
      return filePart(p, param);
  }
}

/** A message's or tool output's content, with the client's path of each part. */
export function contentOf(content: string | wire.ContentPart[] | null | undefined, param: string): { parts: Part[]; origins: string[] } {
  if (content == null || content === "") return { parts: [], origins: [] };
  if (typeof content === "string") return { parts: [text(content)], origins: [param] };
  const parts: Part[] = [];
  const origins: string[] = [];
  content.forEach((c, ci) => {
    const part = contentPart(c, `${param}[${ci}]`);
    if (!part) return;
    parts.push(part);
    origins.push(`${param}[${ci}]`);
  });
  return { parts, origins };
}
