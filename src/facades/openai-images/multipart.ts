// Reads an edits/variations multipart body with @fastify/multipart (busboy).
// Files are counted as they stream in: a file over its cap stops being kept
// (the rest is drained, not held) and the request is refused in the OpenAI
// shape. Parts may come in any order; the cap for image files follows the
// model when its field arrived first, else the largest any model accepts. A
// body larger than all files and a prompt may be is not read (upload-cap.ts).
import type { FastifyRequest } from "fastify";
import { megabytes } from "../../core/image/errors.js";
import { BodyOverCap, capBody, declaresMore, MULTIPART_OVERHEAD } from "../shared/upload-cap.js";
import { facadeError, FacadeError } from "./errors.js";
import type { UploadedFile } from "./translate.js";
import { IMAGE_FIELD } from "./wire.js";

export interface FormLimits {
  /** Hard cap per image file (busboy truncates beyond it). */
  maxImageBytes: number;
  maxMaskBytes: number;
  /** All files together. */
  maxTotalBytes: number;
  maxFiles: number;
  /** Characters of the longest text field accepted (prompts). */
  maxFieldBytes: number;
  /** Cap for image files once the model is known (e.g. 4 MB for IMG_MODEL_A). */
  imageBytesFor?: (model: string) => number | undefined;
}

export interface Form {
  fields: Record<string, string>;
  files: UploadedFile[];
}

const tooLarge = (param: string, name: string, cap: number) => facadeError(400, `Invalid file '${name}': images must be smaller than ${megabytes(cap)}.`, param, "invalid_image_size");

function fromParserError(err: unknown): FacadeError {
  if (err instanceof FacadeError) return err;
  const e = err as { code?: string; message?: string };
  switch (e?.code) {
    case "FST_FILES_LIMIT":
      return facadeError(400, "Too many files in the request.", "image", "too_many_images");
    case "FST_PARTS_LIMIT":
    case "FST_FIELDS_LIMIT":
      return facadeError(413, "Too many form fields in the request.", null, "request_too_large");
    case "FST_INVALID_MULTIPART_CONTENT_TYPE":
      return facadeError(400, "Invalid Content-Type header, expected multipart/form-data.", null, "invalid_content_type");
    case "FST_PROTO_VIOLATION":
      return facadeError(400, "Invalid form field name.", null, "invalid_multipart");
    default:
      return facadeError(400, "The multipart/form-data body could not be parsed.", null, "invalid_multipart");
  }
}

export async function readForm(req: FastifyRequest, limits: FormLimits): Promise<Form> {
  if (!req.isMultipart()) throw facadeError(400, `Invalid Content-Type header (${req.headers["content-type"] ?? "none"}), expected multipart/form-data.`, null, "invalid_content_type");
  const maxBody = limits.maxTotalBytes + limits.maxFieldBytes + MULTIPART_OVERHEAD;
  const bodyTooLarge = () => facadeError(413, `The request body is larger than the ${megabytes(maxBody)} this endpoint accepts.`, null, "request_too_large");
  if (declaresMore(req, maxBody)) throw bodyTooLarge();
  const bodyCap = capBody(req, maxBody);
  const fields: Record<string, string> = {};
  const files: UploadedFile[] = [];
  let total = 0;
  let failure: FacadeError | undefined;
  try {
    const parts = req.parts({
      limits: { fileSize: Math.max(limits.maxImageBytes, limits.maxMaskBytes), files: limits.maxFiles, fields: 64, fieldSize: limits.maxFieldBytes, parts: limits.maxFiles + 64 },
    });
    for await (const part of bodyCap.each(parts)) {
      if (part.type === "field") {
        if (part.valueTruncated) failure ??= facadeError(400, `Invalid '${part.fieldname}': string too long.`, part.fieldname, "string_above_max_length");
        if (!(part.fieldname in fields)) fields[part.fieldname] = String(part.value);
        continue;
      }
      const isImage = IMAGE_FIELD.test(part.fieldname);
      const param = isImage ? "image" : part.fieldname;
      const cap = part.fieldname === "mask" ? limits.maxMaskBytes : isImage ? (fields.model && limits.imageBytesFor?.(fields.model)) || limits.maxImageBytes : limits.maxImageBytes;
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      for await (const chunk of bodyCap.each(part.file)) {
        size += chunk.length;
        if (over) continue;
        if (size >= cap || total + size > limits.maxTotalBytes) {
          over = true;
          chunks.length = 0;
          continue;
        }
        chunks.push(chunk);
      }
      if (over || part.file.truncated) {
        failure ??=
          total + size > limits.maxTotalBytes && size < cap
            ? facadeError(413, "The request's files are too large together.", param, "request_too_large")
            : tooLarge(param, part.filename || param, cap);
        continue;
      }
      total += size;
      files.push({ field: part.fieldname, filename: part.filename || param, mimeType: part.mimetype, data: Buffer.concat(chunks) });
    }
  } catch (err) {
    if (err instanceof BodyOverCap) throw bodyTooLarge();
    throw failure ?? fromParserError(err);
  } finally {
    bodyCap.release();
  }
  if (failure) throw failure;
  return { fields, files };
}

/** Multipart text values -> the JSON types the wire schema expects. */
export function typedFields(fields: Record<string, string>, numeric: Set<string>, boolean: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (numeric.has(k) && /^-?\d+(\.\d+)?$/.test(v.trim())) out[k] = Number(v);
    else if (boolean.has(k) && /^(true|false)$/.test(v)) out[k] = v === "true";
    else out[k] = v;
  }
  return out;
}
