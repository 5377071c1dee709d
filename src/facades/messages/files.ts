// /v1/files, the Anthropic Files API over the core's FileService: upload
// (multipart: `file`, optional `expires_in_seconds`), list (newest first,
// paged by `page` as the 1.x SDK does, or by after_id / before_id as the
// earlier API did), metadata, download and delete. The same headers as
// /v1/messages (a key, anthropic-version); errors in the Anthropic shape, with
// error.details.error_code where the API gives one (file_expired).
import multipart from "@fastify/multipart";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { FileService, File } from "../../../gen/omnigate/file/v1/file_pb.js";
import type { CallInit } from "../../core/call/call.js";
import type { CoreClient } from "../../core/call/service.js";
import { isoTime } from "../shared/time.js";
import { BodyOverCap, capBody, declaresMore, MULTIPART_OVERHEAD } from "../shared/upload-cap.js";
import { invalidRequest, toWireError, type WireError } from "./errors.js";

export interface FileMetadata {
  id: string;
  type: "file";
  filename: string;
  mime_type: string;
  size_bytes: number;
  created_at: string;
  downloadable: boolean;
  expires_at: string | null;
}

export function toFileMetadata(f: File): FileMetadata {
  return {
    id: f.id,
    type: "file",
    filename: f.filename,
    mime_type: f.mimeType,
    size_bytes: Number(f.sizeBytes),
    created_at: isoTime(f.createTime) ?? new Date(0).toISOString(),
    downloadable: f.downloadable,
    expires_at: isoTime(f.expireTime) ?? null,
  };
}

/** A file name for Content-Disposition: the name as is where it is plain ASCII, and RFC 5987's filename* beside it. */
export function contentDisposition(filename: string): string {
  const plain = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${plain}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

const csv = z.union([z.string(), z.array(z.string())]).transform((v) =>
  (Array.isArray(v) ? v : [v])
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter(Boolean),
);

/** The list query: `ids` comes as repeated ids[] (the SDK's brackets form), repeated ids, or a comma list. */
export const listFilesQuery = z.looseObject({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  page: z.string().min(1).max(512).optional(),
  after_id: z.string().min(1).max(256).optional(),
  before_id: z.string().min(1).max(256).optional(),
  ids: csv.optional(),
  "ids[]": csv.optional(),
  scope_id: z.string().optional(),
  beta: z.string().optional(),
});

const FILE_ID = /^[\w-]{1,256}$/;

export interface FilesRouteOptions {
  files: CoreClient<typeof FileService>;
  maxBytes: number;
  /** Checks of the key and anthropic-version (the Messages facade's own). */
  onRequest: (req: FastifyRequest, reply: FastifyReply, done: () => void) => void;
  call: (req: FastifyRequest, reply: FastifyReply) => CallInit;
  sendError: (req: FastifyRequest, reply: FastifyReply, e: WireError, cause?: unknown) => FastifyReply;
}

type Upload = { data: Buffer; filename: string; mimeType: string; expiresInSeconds: bigint };

async function readUpload(req: FastifyRequest, maxBytes: number): Promise<Upload | WireError> {
  const tooLarge: WireError = { status: 413, type: "request_too_large", message: `The file is larger than the ${maxBytes} bytes a file may have.` };
  // The file, its few short fields and the form's framing: a body declared larger is refused unread, one that grows larger stops being read.
  const maxBody = maxBytes + MULTIPART_OVERHEAD;
  if (declaresMore(req, maxBody)) return tooLarge;
  const cap = capBody(req, maxBody);
  let file: { data: Buffer; filename: string; mimeType: string } | undefined;
  let expires = 0n;
  let failure: WireError | undefined;
  try {
    for await (const part of cap.each(req.parts({ limits: { fileSize: maxBytes, files: 1, fields: 8, fieldSize: 1024, parts: 10 } }))) {
      if (part.type === "field") {
        if (part.fieldname === "expires_in_seconds") {
          const v = String(part.value).trim();
          if (!/^\d{1,12}$/.test(v)) failure ??= invalidRequest("expires_in_seconds: Input should be a valid integer");
          else expires = BigInt(v);
        } else failure ??= invalidRequest(`${part.fieldname}: Extra inputs are not permitted`);
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const c of cap.each(part.file)) chunks.push(c as Buffer);
      if (part.fieldname !== "file") {
        failure ??= invalidRequest(`${part.fieldname}: Extra inputs are not permitted`);
        continue;
      }
      if (part.file.truncated) {
        failure ??= tooLarge;
        continue;
      }
      file = { data: Buffer.concat(chunks), filename: part.filename ?? "", mimeType: part.mimetype ?? "" };
    }
  } catch (err) {
    if (err instanceof BodyOverCap) return tooLarge;
    if (failure) return failure;
    const code = (err as { code?: string } | undefined)?.code;
    if (code === "FST_FILES_LIMIT") return invalidRequest("file: only one file may be uploaded");
    if (code === "FST_PARTS_LIMIT" || code === "FST_FIELDS_LIMIT") return invalidRequest("too many form fields");
    return invalidRequest("The multipart/form-data body could not be parsed.");
  } finally {
    cap.release();
  }
  if (failure) return failure;
  if (!file) return invalidRequest("file: Field required");
  return { ...file, expiresInSeconds: expires };
}

export function fileRoutes(o: FilesRouteOptions) {
  return async (scope: FastifyInstance) => {
    await scope.register(multipart, { throwFileSizeLimit: false });
    // Handlers throw; this renders every error, the core's and fastify's, in the Anthropic shape.
    scope.setErrorHandler((err, req, reply) => o.sendError(req, reply, toWireError(err), err));
    scope.setNotFoundHandler((req, reply) => o.sendError(req, reply, { status: 404, type: "not_found_error", message: `no route ${req.method} ${req.url.split("?")[0]}` }));
    const hooks = { onRequest: o.onRequest };
    /** The routes of one file: an id that cannot be one is not found before the core is asked. */
    const byId = {
      onRequest: o.onRequest,
      preHandler: (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
        const id = (req.params as { file_id: string }).file_id;
        if (FILE_ID.test(id)) return done();
        o.sendError(req, reply, { status: 404, type: "not_found_error", message: `File not found: ${id.slice(0, 64)}` });
      },
    };

    scope.post("/", hooks, async (req, reply) => {
      if (!req.isMultipart()) return o.sendError(req, reply, invalidRequest("content-type must be multipart/form-data"));
      const up = await readUpload(req, o.maxBytes);
      if ("status" in up) return o.sendError(req, reply, up);
      const res = await o.files.uploadFile({ filename: up.filename, mimeType: up.mimeType, data: up.data, expiresInSeconds: up.expiresInSeconds }, o.call(req, reply));
      return reply.type("application/json").send(toFileMetadata(res.file!));
    });

    scope.get("/", hooks, async (req, reply) => {
      const q = listFilesQuery.safeParse(req.query ?? {});
      if (!q.success) {
        const i = q.error.issues[0]!;
        return o.sendError(req, reply, invalidRequest(`${i.path.join(".")}: ${i.message}`));
      }
      const { limit, page, after_id, before_id, scope_id } = q.data;
      const ids = [...(q.data.ids ?? []), ...(q.data["ids[]"] ?? [])];
      if (ids.length && (limit !== undefined || page !== undefined)) return o.sendError(req, reply, invalidRequest("ids: cannot be combined with limit or page"));
      // Files here belong to keys, not sessions: no file is in any scope.
      const picked = ids.length ? { ids } : { limit: limit ?? 0, pageToken: page ?? "", afterId: after_id ?? "", beforeId: before_id ?? "" };
      const res = scope_id !== undefined ? undefined : await o.files.listFiles(picked, o.call(req, reply));
      const data = (res?.files ?? []).map(toFileMetadata);
      return reply.type("application/json").send({ data, has_more: res?.hasMore ?? false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, next_page: res?.nextPageToken || null });
    });

    scope.get<{ Params: { file_id: string } }>("/:file_id", byId, async (req, reply) => {
      const res = await o.files.getFile({ id: req.params.file_id }, o.call(req, reply));
      return reply.type("application/json").send(toFileMetadata(res.file!));
    });

    scope.get<{ Params: { file_id: string } }>("/:file_id/content", byId, async (req, reply) => {
      const res = await o.files.getFileContent({ id: req.params.file_id }, o.call(req, reply));
      const f = res.file!;
      return reply
        .type(f.mimeType)
        .header("content-length", String(res.data.byteLength))
        .header("content-disposition", contentDisposition(f.filename))
        .header("x-content-type-options", "nosniff")
        .send(Buffer.from(res.data.buffer, res.data.byteOffset, res.data.byteLength));
    });

    scope.delete<{ Params: { file_id: string } }>("/:file_id", byId, async (req, reply) => {
      const res = await o.files.deleteFile({ id: req.params.file_id }, o.call(req, reply));
      return reply.type("application/json").send({ id: res.id, type: "file_deleted" });
    });
  };
}
