// /v1/files, the Anthropic Files API over the core's FileService: upload
// (multipart: `file`, optional `expires_in_seconds`), list (newest first,
// paged by `page` as the 1.x SDK does, or by after_id / before_id as the
// earlier API did), metadata, download and delete. The same headers as
// /v1/messages (a key, anthropic-version); errors in the Anthropic shape, with
// error.details.error_code where the API gives one (file_expired).
import multipart from "@fastify/multipart";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { FileService, type File } from "../../../gen/omnigate/file/v1/file_pb.js";
import { errorBody, invalidRequest, toWireError, type WireError } from "./errors.js";

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

const iso = (t: Parameters<typeof timestampMs>[0]) => new Date(timestampMs(t)).toISOString();

export function toFileMetadata(f: File): FileMetadata {
  return {
    id: f.id,
    type: "file",
    filename: f.filename,
    mime_type: f.mimeType,
    size_bytes: Number(f.sizeBytes),
    created_at: f.createTime ? iso(f.createTime) : new Date(0).toISOString(),
    downloadable: f.downloadable,
    expires_at: f.expireTime ? iso(f.expireTime) : null,
  };
}

/** A file name for Content-Disposition: the name as is where it is plain ASCII, and RFC 5987's filename* beside it. */
export function contentDisposition(filename: string): string {
  const plain = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${plain}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

const csv = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).map((s) => s.trim()).filter(Boolean));

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
  files: Client<typeof FileService>;
  maxBytes: number;
  /** Checks of the key and anthropic-version (the Messages facade's own). */
  onRequest: (req: FastifyRequest, reply: FastifyReply, done: () => void) => void;
  callOptions: (req: FastifyRequest, reply: FastifyReply) => Parameters<Client<typeof FileService>["getFile"]>[1];
  sendError: (req: FastifyRequest, reply: FastifyReply, e: WireError, cause?: unknown) => FastifyReply;
}

type Upload = { data: Buffer; filename: string; mimeType: string; expiresInSeconds: bigint };

async function readUpload(req: FastifyRequest, maxBytes: number): Promise<Upload | WireError> {
  let file: { data: Buffer; filename: string; mimeType: string } | undefined;
  let expires = 0n;
  let failure: WireError | undefined;
  try {
    for await (const part of req.parts({ limits: { fileSize: maxBytes, files: 1, fields: 8, fieldSize: 1024, parts: 10 } })) {
      if (part.type === "field") {
        if (part.fieldname === "expires_in_seconds") {
          const v = String(part.value).trim();
          if (!/^\d{1,12}$/.test(v)) failure ??= invalidRequest("expires_in_seconds: Input should be a valid integer");
          else expires = BigInt(v);
        } else failure ??= invalidRequest(`${part.fieldname}: Extra inputs are not permitted`);
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const c of part.file) chunks.push(c as Buffer);
      if (part.fieldname !== "file") {
        failure ??= invalidRequest(`${part.fieldname}: Extra inputs are not permitted`);
        continue;
      }
      if (part.file.truncated) {
        failure ??= { status: 413, type: "request_too_large", message: `The file is larger than the ${maxBytes} bytes a file may have.` };
        continue;
      }
      file = { data: Buffer.concat(chunks), filename: part.filename ?? "", mimeType: part.mimetype ?? "" };
    }
  } catch (err) {
    if (failure) return failure;
    const code = (err as { code?: string } | undefined)?.code;
    if (code === "FST_FILES_LIMIT") return invalidRequest("file: only one file may be uploaded");
    if (code === "FST_PARTS_LIMIT" || code === "FST_FIELDS_LIMIT") return invalidRequest("too many form fields");
    return invalidRequest("The multipart/form-data body could not be parsed.");
  }
  if (failure) return failure;
  if (!file) return invalidRequest("file: Field required");
  return { ...file, expiresInSeconds: expires };
}

export function fileRoutes(o: FilesRouteOptions) {
  return async (scope: FastifyInstance) => {
    await scope.register(multipart, { throwFileSizeLimit: false });
    scope.setErrorHandler((err, req, reply) => o.sendError(req, reply, toWireError(err), err));
    scope.setNotFoundHandler((req, reply) => o.sendError(req, reply, { status: 404, type: "not_found_error", message: `no route ${req.method} ${req.url.split("?")[0]}` }));
    const hooks = { onRequest: o.onRequest };
    const fail = (req: FastifyRequest, reply: FastifyReply) => (err: unknown) => o.sendError(req, reply, toWireError(err), err);
    const checkId = (id: string): WireError | undefined => (FILE_ID.test(id) ? undefined : { status: 404, type: "not_found_error", message: `File not found: ${id.slice(0, 64)}` });

    scope.post("/", hooks, async (req, reply) => {
      if (!req.isMultipart()) return o.sendError(req, reply, invalidRequest("content-type must be multipart/form-data"));
      const up = await readUpload(req, o.maxBytes);
      if ("status" in up) return o.sendError(req, reply, up);
      try {
        const res = await o.files.uploadFile({ filename: up.filename, mimeType: up.mimeType, data: up.data, expiresInSeconds: up.expiresInSeconds }, o.callOptions(req, reply));
        return reply.type("application/json").send(toFileMetadata(res.file!));
      } catch (err) {
        return fail(req, reply)(err);
      }
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
      const empty = { data: [], has_more: false, first_id: null, last_id: null, next_page: null };
      // Files here belong to keys, not sessions: no file is in any scope.
      if (scope_id !== undefined) return reply.type("application/json").send(empty);
      try {
        const call = o.callOptions(req, reply);
        if (ids.length) {
          const res = await o.files.listFiles({ ids }, call);
          const data = res.files.map(toFileMetadata);
          return reply.type("application/json").send({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, next_page: null });
        }
        const res = await o.files.listFiles({ limit: limit ?? 0, pageToken: page ?? "", afterId: after_id ?? "", beforeId: before_id ?? "" }, call);
        const data = res.files.map(toFileMetadata);
        return reply.type("application/json").send({ data, has_more: res.hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, next_page: res.nextPageToken || null });
      } catch (err) {
        return fail(req, reply)(err);
      }
    });

    scope.get<{ Params: { file_id: string } }>("/:file_id", hooks, async (req, reply) => {
      const bad = checkId(req.params.file_id);
      if (bad) return o.sendError(req, reply, bad);
      try {
        const res = await o.files.getFile({ id: req.params.file_id }, o.callOptions(req, reply));
        return reply.type("application/json").send(toFileMetadata(res.file!));
      } catch (err) {
        return fail(req, reply)(err);
      }
    });

    scope.get<{ Params: { file_id: string } }>("/:file_id/content", hooks, async (req, reply) => {
      const bad = checkId(req.params.file_id);
      if (bad) return o.sendError(req, reply, bad);
      try {
        const res = await o.files.getFileContent({ id: req.params.file_id }, o.callOptions(req, reply));
        const f = res.file!;
        return reply
          .type(f.mimeType)
          .header("content-length", String(res.data.byteLength))
          .header("content-disposition", contentDisposition(f.filename))
          .header("x-content-type-options", "nosniff")
          .send(Buffer.from(res.data.buffer, res.data.byteOffset, res.data.byteLength));
      } catch (err) {
        return fail(req, reply)(err);
      }
    });

    scope.delete<{ Params: { file_id: string } }>("/:file_id", hooks, async (req, reply) => {
      const bad = checkId(req.params.file_id);
      if (bad) return o.sendError(req, reply, bad);
      try {
        const res = await o.files.deleteFile({ id: req.params.file_id }, o.callOptions(req, reply));
        return reply.type("application/json").send({ id: res.id, type: "file_deleted" });
      } catch (err) {
        return fail(req, reply)(err);
      }
    });
  };
}
