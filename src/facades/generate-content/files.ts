// The Gemini Files API over the core's FileService, as the GenAI SDK calls it:
// a resumable upload (POST /upload/{version}/files with X-Goog-Upload-Command
// "start" and the file's metadata, answered with an X-Goog-Upload-URL; then
// the bytes to that URL in chunks, "upload" and finally "upload, finalize"),
// and GET/DELETE {version}/files/{id}, GET {version}/files. A file is named
// "files/<id>" and expires 48 hours after its upload, as on Google's API. The
// same files are the Anthropic facade's (/v1/files): one store, two formats.
//
// An upload's chunks before the last are held in this instance's memory until
// the last arrives (at most fileMaxBytes a session, MAX_SESSIONS sessions and
// MAX_SESSIONS_PER_KEY a key, an hour each, and heldLimit bytes in all): a
// file of one chunk (8 MiB with the SDK) needs no state, a longer one needs
// its chunks sent to the same instance.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { FileService, File } from "../../../gen/omnigate/file/v1/file_pb.js";
import type { CallInit } from "../../core/call/call.js";
import type { CoreClient } from "../../core/call/service.js";
import { Code, coreError, invalidArgument } from "../../core/errors.js";
import { isoTime } from "../shared/time.js";

/** How long a file uploaded through this format lives: Google keeps uploads for 48 hours. */
export const GEMINI_FILE_TTL_S = 48 * 3600;
export const MAX_SESSIONS = 256;
export const MAX_SESSIONS_PER_KEY = 8;
/** Bytes of unfinished uploads held at once, all sessions together: a few files' worth, not MAX_SESSIONS of them. */
export const heldLimit = (maxBytes: number) => Math.max(64 * 1024 * 1024, 2 * maxBytes);
const SESSION_TTL_MS = 3600_000;
const DEFAULT_PAGE = 10;
const MAX_PAGE = 100;

export interface GeminiFile {
  name: string;
  displayName: string;
  mimeType: string;
  sizeBytes: string;
  createTime: string;
  updateTime: string;
  expirationTime?: string;
  uri: string;
  state: "ACTIVE";
  source: "UPLOADED";
}

/** A core file in the Gemini shape; `base` is the gateway's public base URL and `version` the API version the caller uses. */
export function toGeminiFile(f: File, base: string, version: string): GeminiFile {
  const created = isoTime(f.createTime) ?? new Date(0).toISOString();
  return {
    name: `files/${f.id}`,
    displayName: f.filename,
    mimeType: f.mimeType,
    sizeBytes: String(f.sizeBytes),
    createTime: created,
    updateTime: created,
    ...(f.expireTime ? { expirationTime: isoTime(f.expireTime) } : {}),
    uri: `${base}/${version}/files/${f.id}`,
    state: "ACTIVE",
    source: "UPLOADED",
  };
}

const GATEWAY_FILE = /(?:^|\/)files\/(file_[0-9a-f]{32})$/;

/** The id of one of this gateway's files from a fileData.fileUri (its uri, or its name "files/<id>"); undefined for any other URI. */
export function gatewayFileId(uri: string): string | undefined {
  return GATEWAY_FILE.exec(uri.trim())?.[1];
}

interface Session {
  key: Buffer;
  mimeType: string;
  displayName: string;
  declared: number | undefined;
  chunks: Buffer[];
  received: number;
  expires: number;
}

export interface GeminiFilesOptions {
  files: CoreClient<typeof FileService>;
  maxBytes: number;
  /** The configured public URL, when there is one. */
  publicUrl: string | undefined;
  call(req: FastifyRequest, reply: FastifyReply): CallInit;
  apiKey(req: FastifyRequest): string;
  now(): number;
  /** Bytes of unfinished uploads held at once (default heldLimit(maxBytes)). */
  heldBytes?: number;
}

const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

const sameKey = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

function baseUrl(req: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, "");
  return `${req.protocol}://${req.headers.host ?? "localhost"}`;
}

function pageSizeOf(v: unknown): number {
  if (v === undefined || v === "") return DEFAULT_PAGE;
  if (typeof v !== "string" || !/^\d{1,9}$/.test(v)) throw invalidArgument(`pageSize: ${JSON.stringify(v)} is not a non-negative integer`, "pageSize");
  const n = Number(v);
  return n === 0 ? DEFAULT_PAGE : Math.min(n, MAX_PAGE);
}

/** The upload routes, under /upload/{version}/files (a scope of their own: any body is taken as bytes). */
export function uploadRoutes(o: GeminiFilesOptions, version: string) {
  const sessions = new Map<string, Session>();
  let held = 0;
  const drop = (id: string) => {
    const s = sessions.get(id);
    if (s) held -= s.received;
    sessions.delete(id);
  };
  const sweep = () => {
    const now = o.now();
    for (const [id, s] of sessions) if (s.expires <= now) drop(id);
  };
  const busy = (message: string) => coreError(Code.ResourceExhausted, message, { reason: "rate_limited", retryAfterMs: 5_000 });

  return async (scope: FastifyInstance) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: o.maxBytes + 64 * 1024 }, (_req, body, done) => done(null, body));

    scope.post("/", async (req, reply) => {
      const key = o.apiKey(req);
      const q = (req.query ?? {}) as Record<string, string | undefined>;
      const protocol = header(req, "x-goog-upload-protocol");
      const command = (header(req, "x-goog-upload-command") ?? "").split(",").map((s) => s.trim().toLowerCase());
      if (q.upload_id === undefined) {
        if (protocol !== "resumable" || !command.includes("start")) {
          throw invalidArgument("Only resumable uploads are served: send X-Goog-Upload-Protocol: resumable and X-Goog-Upload-Command: start.", "X-Goog-Upload-Protocol");
        }
        return start(req, reply, key);
      }
      return chunk(req, reply, key, q.upload_id, command);
    });

    async function start(req: FastifyRequest, reply: FastifyReply, key: string) {
      const raw = Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
      let meta: { file?: { displayName?: unknown; mimeType?: unknown } } = {};
      try {
        meta = raw.trim() ? (JSON.parse(raw) as typeof meta) : {};
      } catch {
        throw invalidArgument("The upload's metadata is not valid JSON.", "file");
      }
      const declared = header(req, "x-goog-upload-header-content-length");
      const size = declared !== undefined && /^\d{1,15}$/.test(declared) ? Number(declared) : undefined;
      if (size !== undefined && size > o.maxBytes) {
        throw coreError(Code.InvalidArgument, `The file is ${size} bytes; files may be at most ${o.maxBytes} bytes.`, { reason: "request_too_large", field: "file" });
      }
      // The key is checked now (a cheap call that authenticates and checks the key's formats), not after the bytes.
      await o.files.listFiles({ ids: ["file_" + "0".repeat(32)] }, o.call(req, reply));
      sweep();
      if (sessions.size >= MAX_SESSIONS) throw busy("Too many uploads are in progress; try again later.");
      const mine = Buffer.from(key);
      let ofKey = 0;
      for (const s of sessions.values()) if (sameKey(s.key, mine)) ofKey++;
      if (ofKey >= MAX_SESSIONS_PER_KEY) throw busy(`This key has ${ofKey} uploads in progress; finish or cancel one first.`);
      const id = randomBytes(16).toString("hex");
      const mime = typeof meta.file?.mimeType === "string" ? meta.file.mimeType : (header(req, "x-goog-upload-header-content-type") ?? "");
      sessions.set(id, {
        key: Buffer.from(key),
        mimeType: mime,
        displayName: typeof meta.file?.displayName === "string" ? meta.file.displayName : (header(req, "x-goog-upload-file-name") ?? ""),
        declared: size,
        chunks: [],
        received: 0,
        expires: o.now() + SESSION_TTL_MS,
      });
      const url = `${baseUrl(req, o.publicUrl)}/upload/${version}/files?upload_id=${id}&upload_protocol=resumable`;
      return reply.headers({ "x-goog-upload-url": url, "x-goog-upload-status": "active", "x-goog-upload-chunk-granularity": "262144" }).code(200).send();
    }

    async function chunk(req: FastifyRequest, reply: FastifyReply, key: string, id: string, command: string[]) {
      const s = sessions.get(id);
      if (!s || s.expires <= o.now() || !sameKey(s.key, Buffer.from(key)))
        throw coreError(Code.NotFound, "No such upload session (it expired, finished, or was started on another instance).", { reason: "upload_not_found" });
      if (command.includes("cancel")) {
        drop(id);
        return reply.header("x-goog-upload-status", "cancelled").code(200).send();
      }
      if (command.includes("query"))
        return reply
          .headers({ "x-goog-upload-status": "active", "x-goog-upload-size-received": String(s.received) })
          .code(200)
          .send();
      if (!command.includes("upload")) throw invalidArgument("X-Goog-Upload-Command must be upload, upload, finalize, query or cancel.", "X-Goog-Upload-Command");
      const offset = Number(header(req, "x-goog-upload-offset") ?? "0");
      if (offset !== s.received) throw invalidArgument(`X-Goog-Upload-Offset is ${offset}; ${s.received} bytes have been received.`, "X-Goog-Upload-Offset");
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (s.received + body.length > o.maxBytes) {
        drop(id);
        throw coreError(Code.InvalidArgument, `The file is larger than the ${o.maxBytes} bytes a file may have.`, { reason: "request_too_large", field: "file" });
      }
      const final = command.includes("finalize");
      // A chunk to hold (not the last) must fit what all sessions may hold; the last is not held past this request.
      if (!final && held + body.length > (o.heldBytes ?? heldLimit(o.maxBytes))) throw busy("Too many bytes of unfinished uploads are held; send this chunk again later.");
      s.chunks.push(body);
      s.received += body.length;
      held += body.length;
      if (!final)
        return reply
          .headers({ "x-goog-upload-status": "active", "x-goog-upload-size-received": String(s.received) })
          .code(200)
          .send();
      drop(id);
      if (s.declared !== undefined && s.declared !== s.received) throw invalidArgument(`The upload declared ${s.declared} bytes and sent ${s.received}.`, "X-Goog-Upload-Header-Content-Length");
      const res = await o.files.uploadFile(
        { filename: s.displayName, mimeType: s.mimeType, data: Buffer.concat(s.chunks, s.received), expiresInSeconds: BigInt(GEMINI_FILE_TTL_S) },
        o.call(req, reply),
      );
      return reply
        .header("x-goog-upload-status", "final")
        .type("application/json; charset=utf-8")
        .send({ file: toGeminiFile(res.file!, baseUrl(req, o.publicUrl), version) });
    }
  };
}

/** GET {version}/files, GET and DELETE {version}/files/{id}, registered into the facade's scope (its error handler renders every error). */
export function fileRoutes(scope: FastifyInstance, o: GeminiFilesOptions, version: string, opts: object): void {
  scope.get("/files", opts, async (req, reply) => {
    const q = (req.query ?? {}) as Record<string, string | undefined>;
    const res = await o.files.listFiles({ limit: pageSizeOf(q.pageSize ?? q.page_size), pageToken: q.pageToken ?? q.page_token ?? "" }, o.call(req, reply));
    const base = baseUrl(req, o.publicUrl);
    return { files: res.files.map((f) => toGeminiFile(f, base, version)), ...(res.nextPageToken ? { nextPageToken: res.nextPageToken } : {}) };
  });

  scope.get<{ Params: { id: string } }>("/files/:id", opts, async (req, reply) => {
    const res = await o.files.getFile({ id: req.params.id }, o.call(req, reply));
    return toGeminiFile(res.file!, baseUrl(req, o.publicUrl), version);
  });

  scope.delete<{ Params: { id: string } }>("/files/:id", opts, async (req, reply) => {
    await o.files.deleteFile({ id: req.params.id }, o.call(req, reply));
    return {};
  });
}
