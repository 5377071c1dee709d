// Chat Completions content parts -> neutral parts: text, images (data URLs
// and https URLs), audio, files (data or a file id), refusals, and parts of
// types the gateway does not know (whole, for OpenAI). Pure.
import type { JsonObject } from "@bufbuild/protobuf";
import { opaquePart, standInPart, unknownFields } from "../../core/json-fields.js";
import { invalidArgument } from "../../core/errors.js";
import { create } from "../../core/proto/create.js";
import { PartSchema, type Part } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type * as wire from "./wire.js";
import { isFuturePart } from "./wire.js";

export const VENDOR = "openai";

export type Extras = Partial<{ vendorExtras: Record<string, JsonObject> }>;
export const NO_EXTRAS: Extras = Object.freeze({});

/**
 * The fields of `o` beyond `known`, and those of its object field `nested`
 * beyond `nestedKnown` (kept under the same key, so that laid over the part the
 * provider builds they land where they were), as vendor_extras.openai.
 */
export function extrasOf(o: object, known: ReadonlySet<string>, nested?: string, nestedKnown?: ReadonlySet<string>): Extras {
  let x = unknownFields(o, known);
  const inner = nested ? (o as Record<string, unknown>)[nested] : undefined;
  if (inner && typeof inner === "object" && !Array.isArray(inner) && nestedKnown) {
    const ix = unknownFields(inner, nestedKnown);
    if (ix) (x ??= {})[nested!] = ix;
  }
  return x ? { vendorExtras: { [VENDOR]: x } } : NO_EXTRAS;
}

export const bad = (message: string, param: string) => invalidArgument(message, param, "invalid_value");

export const text = (t: string, extras: Extras = NO_EXTRAS): Part => create(PartSchema, { kind: { case: "text", value: { text: t } }, ...extras });

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

/** A base64 data URL's type and bytes; undefined for anything else. */
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

function base64Bytes(data: string, param: string): Uint8Array {
  if (!BASE64.test(data)) throw bad(`Invalid '${param}': expected base64-encoded data.`, param);
  return new Uint8Array(Buffer.from(data, "base64"));
}

export const TEXT_PART_FIELDS = new Set(["type", "text"]);
const IMAGE_PART_FIELDS = new Set(["type", "image_url"]);
const IMAGE_URL_FIELDS = new Set(["url"]);
const AUDIO_PART_FIELDS = new Set(["type", "input_audio"]);
const AUDIO_FIELDS = new Set(["data", "format"]);
const FILE_PART_FIELDS = new Set(["type", "file"]);
const FILE_FIELDS = new Set(["file_data", "file_id", "filename"]);

const AUDIO_TYPES: Record<string, string> = { wav: "audio/wav", mp3: "audio/mpeg" };
const FILE_TYPES: Record<string, string> = { pdf: "application/pdf", txt: "text/plain", md: "text/markdown", csv: "text/csv", json: "application/json" };

function imagePart(p: wire.ImageUrlPart, param: string): Part {
  const url = p.image_url.url;
  const extras = extrasOf(p, IMAGE_PART_FIELDS, "image_url", IMAGE_URL_FIELDS);
  if (url.startsWith("data:")) {
    const d = parseDataUrl(url);
    if (!d) throw bad(`Invalid '${param}.image_url.url': expected a base64-encoded data URL ('data:image/png;base64,...') or an http(s) URL.`, `${param}.image_url.url`);
    return create(PartSchema, { kind: { case: "media", value: { mimeType: d.mimeType, source: { case: "data", value: d.data } } }, ...extras });
  }
  if (!/^https?:\/\//i.test(url)) throw bad(`Invalid '${param}.image_url.url': expected a base64-encoded data URL or an http(s) URL.`, `${param}.image_url.url`);
  return create(PartSchema, { kind: { case: "media", value: { mimeType: "", source: { case: "uri", value: url } } }, ...extras });
}

function audioPart(p: wire.InputAudioPart, param: string): Part {
  const format = p.input_audio.format.toLowerCase();
  const data = base64Bytes(p.input_audio.data, `${param}.input_audio.data`);
  return create(PartSchema, {
    kind: { case: "media", value: { mimeType: AUDIO_TYPES[format] ?? `audio/${format}`, source: { case: "data", value: data } } },
    ...extrasOf(p, AUDIO_PART_FIELDS, "input_audio", AUDIO_FIELDS),
  });
}

function filePart(p: wire.FilePart, param: string): Part {
  const f = p.file;
  const extras = extrasOf(p, FILE_PART_FIELDS, "file", FILE_FIELDS);
  const name = f.filename ?? "";
  // The core reads a file id in (and sets its type) before any provider sees it.
  if (f.file_data === undefined) return create(PartSchema, { kind: { case: "media", value: { mimeType: "", source: { case: "fileId", value: f.file_id! }, name } }, ...extras });
  const d = parseDataUrl(f.file_data);
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? "";
  const media = d ?? { mimeType: FILE_TYPES[ext] ?? "application/pdf", data: base64Bytes(f.file_data, `${param}.file.file_data`) };
  return create(PartSchema, { kind: { case: "media", value: { mimeType: media.mimeType, source: { case: "data", value: media.data }, name } }, ...extras });
}

/** One content part of a user, system, developer or tool message -> a neutral part. */
export function contentPart(p: wire.UserPart, param: string): Part {
  // A part of a type newer than the gateway: whole, for OpenAI only.
  if (isFuturePart(p)) return opaquePart(VENDOR, p);
  const k = p as wire.KnownUserPart;
  switch (k.type) {
    case "text":
      return text(k.text, extrasOf(k, TEXT_PART_FIELDS));
    case "image_url":
      return imagePart(k, param);
    case "input_audio":
      return audioPart(k, param);
    case "file":
      return filePart(k, param);
  }
}

/** A refusal the assistant gave (its `refusal` field or a refusal part): OpenAI gets the part back, others read the text. */
export const refusal = (r: string, p?: wire.RefusalPart): Part => standInPart(VENDOR, p ?? { type: "refusal", refusal: r }, r);
