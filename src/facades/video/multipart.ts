// Reads a multipart create of /v1/videos (openai@6.49 always sends one): text
// fields, and at most one file, `input_reference`. Nested text fields
// (`input_reference[image_url]`) become objects. A file over the cap is drained,
// not held, and refused in the OpenAI shape; a body larger than the file and a
// prompt may be is not read (upload-cap.ts).
import type { FastifyRequest } from "fastify";
import { BodyOverCap, capBody, declaresMore, MULTIPART_OVERHEAD } from "../shared/upload-cap.js";
import { facadeError, FacadeError } from "./errors.js";
import type { UploadedFile } from "./translate.js";

export interface VideoForm {
  fields: Record<string, unknown>;
  file?: UploadedFile | undefined;
}

const NESTED = /^([A-Za-z_]\w*)\[([A-Za-z_]\w*)\]$/;
/** The longest text field (a prompt). */
const FIELD_BYTES = 64 * 1024;

function fromParserError(err: unknown): FacadeError {
  if (err instanceof FacadeError) return err;
  const code = (err as { code?: string } | undefined)?.code;
  if (code === "FST_FILES_LIMIT") return facadeError(400, "Only one file, 'input_reference', may be uploaded.", "input_reference", "too_many_files");
  if (code === "FST_PARTS_LIMIT" || code === "FST_FIELDS_LIMIT") return facadeError(413, "Too many form fields in the request.", null, "request_too_large");
  return facadeError(400, "The multipart/form-data body could not be parsed.", null, "invalid_multipart");
}

export async function readVideoForm(req: FastifyRequest, maxFileBytes: number): Promise<VideoForm> {
  const maxBody = maxFileBytes + FIELD_BYTES + MULTIPART_OVERHEAD;
  const bodyTooLarge = () => facadeError(413, `The request body is larger than the ${maxBody} bytes this endpoint accepts.`, null, "request_too_large");
  if (declaresMore(req, maxBody)) throw bodyTooLarge();
  const cap = capBody(req, maxBody);
  const fields: Record<string, unknown> = {};
  let file: UploadedFile | undefined;
  let failure: FacadeError | undefined;
  try {
    for await (const part of cap.each(req.parts({ limits: { fileSize: maxFileBytes, files: 1, fields: 32, fieldSize: FIELD_BYTES, parts: 40 } }))) {
      if (part.type === "field") {
        if (part.valueTruncated) failure ??= facadeError(400, `Invalid '${part.fieldname}': string too long.`, part.fieldname, "string_above_max_length");
        const value = String(part.value);
        const m = NESTED.exec(part.fieldname);
        if (m) {
          const obj = (fields[m[1]!] ??= {}) as Record<string, unknown>;
          if (typeof obj === "object") obj[m[2]!] = value;
        } else if (!(part.fieldname in fields)) fields[part.fieldname] = value;
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const c of cap.each(part.file)) chunks.push(c as Buffer);
      if (part.fieldname !== "input_reference") {
        failure ??= facadeError(400, `Unknown file parameter: '${part.fieldname}'.`, part.fieldname, "unknown_parameter");
        continue;
      }
      if (part.file.truncated) {
        failure ??= facadeError(400, `The file 'input_reference' must be smaller than ${Math.floor(maxFileBytes / 1024 / 1024)} MB.`, "input_reference", "file_too_large");
        continue;
      }
      file = { filename: part.filename || "input_reference", mimeType: part.mimetype, data: Buffer.concat(chunks) };
    }
  } catch (err) {
    if (err instanceof BodyOverCap) throw bodyTooLarge();
    throw failure ?? fromParserError(err);
  } finally {
    cap.release();
  }
  if (failure) throw failure;
  return { fields, file };
}
