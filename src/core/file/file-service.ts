// The neutral FileService behind /v1/files: a client uploads a file once and
// names it by id in later chat requests (resolve.ts puts the bytes in). Files
// live in the blob store as kind "file", with the client's file name; a key
// sees its own files, admin keys see all. Listing is newest first, paged by an
// opaque token that names the last file of the page before.
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { Call } from "../call/call.js";
import type { ServiceImpl } from "../call/service.js";
import {
  DeleteFileResponseSchema,
  FileSchema,
  FileService,
  GetFileContentResponseSchema,
  GetFileResponseSchema,
  ListFilesResponseSchema,
  UploadFileResponseSchema,
  type File,
} from "../../../gen/omnigate/file/v1/file_pb.js";
import type { BlobStore } from "../../storage/blob/blob-store.js";
import { FILE_ID } from "../../storage/blob/blob-store.js";
import type { FileCursor, FileRecord, FileStore } from "../../storage/types.js";
import type { Principal } from "../call/call.js";
import type { ConnectError } from "@connectrpc/connect";
import { Code, coreError, invalidArgument } from "../errors.js";
import { create } from "../proto/create.js";
import { cleanFilename, detectMimeType, unnamed } from "./mime.js";

/** The blob-store kind of Files API uploads. */
export const FILE_KIND = "file";
export const DEFAULT_LIST = 20;
export const MAX_LIST = 1000;
export const MAX_IDS = 100;
/** The lifetimes an upload may ask for: an hour to ninety days, as the vendor's API. */
export const MIN_EXPIRES_IN_SECONDS = 3600;
export const MAX_EXPIRES_IN_SECONDS = 90 * 24 * 3600;

export interface FileServiceDeps {
  blobs: BlobStore;
  files: FileStore;
  /** Largest upload, in bytes. */
  maxBytes: number;
  /** Bytes of unexpired files one key may hold. */
  quotaBytes: number;
  now: () => number;
}

export function toFile(r: FileRecord): File {
  return create(FileSchema, {
    id: r.id,
    filename: r.filename ?? "",
    mimeType: r.mimeType,
    sizeBytes: BigInt(r.size),
    createTime: timestampFromMs(r.createTime),
    ...(r.expireTime !== undefined ? { expireTime: timestampFromMs(r.expireTime) } : {}),
    downloadable: true,
  });
}

/** The token of the page after the one that ended with `last`. */
export function pageToken(last: FileCursor): string {
  return Buffer.from(`${last.createTime}.${last.id}`).toString("base64url");
}

export function parsePageToken(token: string): FileCursor {
  const m = /^(\d{1,15})\.(file_[0-9a-f]{32})$/.exec(Buffer.from(token, "base64url").toString("utf8"));
  if (!m) throw invalidArgument(`Invalid page token '${token.slice(0, 64)}'.`, "page", "invalid_page_token");
  return { createTime: Number(m[1]), id: m[2]! };
}

/**
 * A file the caller looked for: "ok", "missing" when there is no such Files
 * API file or another key owns it (never told apart), "expired" when it is the
 * caller's but past its expiry (its bytes are gone or about to be swept; the
 * record still has its place in the listing order).
 */
export type Lookup = { state: "ok" | "expired"; file: FileRecord } | { state: "missing" };

export async function lookupFile(files: FileStore, id: string, p: Principal, now: number): Promise<Lookup> {
  if (!FILE_ID.test(id)) return { state: "missing" };
  const file = await files.get(id);
  if (!file || file.kind !== FILE_KIND || (!p.admin && file.ownerKeyId !== p.keyId)) return { state: "missing" };
  return { state: file.expireTime !== undefined && file.expireTime <= now ? "expired" : "ok", file };
}

/** The NotFound of a lookup that found no usable file; `field` names where the id came from. */
export function fileGone(id: string, why: "missing" | "expired", field?: string): ConnectError {
  return why === "expired"
    ? coreError(Code.NotFound, `File ${id} has expired.`, { reason: "file_expired", ...(field ? { field } : {}) })
    : coreError(Code.NotFound, `File not found: ${id}`, { reason: "file_not_found", ...(field ? { field } : {}) });
}

export function fileService(deps: FileServiceDeps): ServiceImpl<typeof FileService> {
  const visible = async (id: string, call: Call): Promise<FileRecord> => {
    const p = call.principal;
    if (!id) throw invalidArgument("Missing required parameter: 'file_id'.", "id", "missing_required_parameter");
    const r = await lookupFile(deps.files, id, p, deps.now());
    if (r.state !== "ok") throw fileGone(id, r.state);
    return r.file;
  };

  return {
    async uploadFile(req, call) {
      const p = call.principal;
      if (req.data.byteLength === 0) throw invalidArgument("The file is empty.", "file", "empty_file");
      if (req.data.byteLength > deps.maxBytes) {
        throw coreError(Code.InvalidArgument, `The file is ${req.data.byteLength} bytes; files may be at most ${deps.maxBytes} bytes.`, { reason: "request_too_large", field: "file" });
      }
      const ttl = req.expiresInSeconds;
      if (ttl !== 0n && (ttl < BigInt(MIN_EXPIRES_IN_SECONDS) || ttl > BigInt(MAX_EXPIRES_IN_SECONDS))) {
        throw invalidArgument(`expires_in_seconds must be between ${MIN_EXPIRES_IN_SECONDS} (one hour) and ${MAX_EXPIRES_IN_SECONDS} (ninety days).`, "expires_in_seconds", "invalid_value");
      }
      // Concurrent uploads of one key may each pass this check: the quota can be overshot by what is in flight, never by more.
      const held = await deps.files.totalSize({ kind: FILE_KIND, ownerKeyId: p.keyId, now: deps.now() });
      if (held + req.data.byteLength > deps.quotaBytes) {
        throw coreError(
          Code.InvalidArgument,
          `This key's files hold ${held} bytes; this file's ${req.data.byteLength} more would pass its quota of ${deps.quotaBytes}. Delete files to free space, then retry the upload.`,
          { reason: "storage_quota_exceeded", field: "file" },
        );
      }
      const given = cleanFilename(req.filename);
      const mimeType = detectMimeType(req.data, req.mimeType, given);
      const filename = given || unnamed(mimeType);
      const rec = await deps.blobs.put(req.data, {
        mimeType,
        kind: FILE_KIND,
        ownerKeyId: p.keyId,
        filename,
        ...(ttl > 0n ? { ttlMs: Number(ttl) * 1000 } : {}),
      });
      return create(UploadFileResponseSchema, { file: toFile(rec) });
    },

    async getFile(req, call) {
      return create(GetFileResponseSchema, { file: toFile(await visible(req.id, call)) });
    },

    async listFiles(req, call) {
      const p = call.principal;
      const now = deps.now();
      const live = (r: FileRecord) => r.expireTime === undefined || r.expireTime > now;
      if (req.ids.length) {
        if (req.limit || req.pageToken || req.afterId || req.beforeId) throw invalidArgument("ids cannot be combined with limit or paging.", "ids", "invalid_value");
        const ids = [...new Set(req.ids)];
        if (ids.length > MAX_IDS) throw invalidArgument(`At most ${MAX_IDS} ids may be given.`, "ids", "invalid_value");
        const found = await Promise.all(ids.map((id) => lookupFile(deps.files, id, p, now)));
        const files = found.flatMap((r) => (r.state === "ok" ? [r.file] : [])).sort((a, b) => b.createTime - a.createTime || (a.id < b.id ? 1 : -1));
        return create(ListFilesResponseSchema, { files: files.map(toFile) });
      }
      const limit = req.limit || DEFAULT_LIST;
      if (limit < 1 || limit > MAX_LIST) throw invalidArgument(`limit must be between 1 and ${MAX_LIST}.`, "limit", "invalid_value");
      if ([req.pageToken, req.afterId, req.beforeId].filter(Boolean).length > 1) throw invalidArgument("Give at most one of page, after_id and before_id.", "page", "invalid_value");
      // after_id and before_id name a file the caller can see; its place in the order is the cursor.
      const cursorOf = async (id: string, field: string): Promise<FileCursor> => {
        const r = await lookupFile(deps.files, id, p, now);
        if (r.state === "missing") throw invalidArgument(`No file with id '${id.slice(0, 64)}'.`, field, "invalid_value");
        return { createTime: r.file.createTime, id: r.file.id };
      };
      const owner = p.admin ? {} : { ownerKeyId: p.keyId };
      if (req.beforeId) {
        const before = await cursorOf(req.beforeId, "before_id");
        const rows = await deps.files.list({ kind: FILE_KIND, limit: limit + 1, ...owner, before });
        // Newest first; the ones nearest the cursor are at the end.
        return create(ListFilesResponseSchema, { files: rows.slice(-limit).filter(live).map(toFile), hasMore: rows.length > limit });
      }
      const after = req.pageToken ? parsePageToken(req.pageToken) : req.afterId ? await cursorOf(req.afterId, "after_id") : undefined;
      const rows = await deps.files.list({ kind: FILE_KIND, limit: limit + 1, ...owner, ...(after ? { after } : {}) });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const more = rows.length > limit;
      return create(ListFilesResponseSchema, {
        files: page.filter(live).map(toFile),
        nextPageToken: more && last ? pageToken(last) : "",
        hasMore: more,
      });
    },

    async deleteFile(req, call) {
      const r = await visible(req.id, call);
      await deps.blobs.delete(r.id);
      return create(DeleteFileResponseSchema, { id: r.id });
    },

    async getFileContent(req, call) {
      const r = await visible(req.id, call);
      const blob = await deps.blobs.open(r.id);
      if (!blob) throw fileGone(r.id, "missing");
      const chunks: Buffer[] = [];
      for await (const c of blob.stream) chunks.push(c as Buffer);
      return create(GetFileContentResponseSchema, { file: toFile(r), data: Buffer.concat(chunks) });
    },
  };
}
