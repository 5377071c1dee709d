// The blob store: where generated files (images, image-bot results, videos,
// uploads) live until they expire. Callers depend on BlobStore only.
//
// It has two layers. Metadata (size, type, owner, expiry) is a FileRecord in
// storage.files, shared by every instance through the database. The bytes are
// in a ByteStore, the only part that differs per backend: the filesystem
// (fs-blob-store.ts, <dataDir>/files or a shared OMNIGATE_FILES_DIR) today; an
// S3-compatible bucket implements the same three methods (PutObject, GetObject,
// DeleteObject; a listing, optionally, for the orphan sweep; see
// docs/storage.md). URLs stay gateway-signed
// (signed-url.ts), so clients never see where the bytes are.
import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import type { FileRecord, FileStore } from "../types.js";

export type { FileRecord };

export interface PutOptions {
  mimeType: string;
  /** What produced it: "image", "image-bot", "video", "upload". */
  kind: string;
  /** Time to live from now; without it the file never expires. */
  ttlMs?: number;
  ownerKeyId?: string;
  /** The client's name for the file (Files API uploads). */
  filename?: string;
}

export interface OpenedBlob {
  record: FileRecord;
  /** The bytes; the caller must consume or destroy it. */
  stream: Readable;
}

export interface BlobStore {
  /** Stores the bytes and records their metadata; returns the new record. */
  put(bytes: Uint8Array, opts: PutOptions): Promise<FileRecord>;
  /** The file and a stream of its bytes, or undefined when it is gone. */
  open(id: string): Promise<OpenedBlob | undefined>;
  /** The file's metadata without its bytes, or undefined when it is gone. */
  stat(id: string): Promise<FileRecord | undefined>;
  /** Removes the file and its metadata; false when it did not exist. */
  delete(id: string): Promise<boolean>;
  /** Deletes every file expired at `now`; returns how many were deleted. */
  sweep(now: number): Promise<number>;
  /**
   * Deletes bytes that no metadata refers to and that were last written
   * before `before`: what a crash between a put's two steps left behind (the
   * bytes, or a write that never finished). Returns how many were deleted; 0
   * for a ByteStore that cannot list what it holds.
   */
  sweepOrphans(before: number): Promise<number>;
}

/** One stored object as a ByteStore lists it. */
export interface StoredBytes {
  /** The file id, or undefined for the leftover of a write that never finished. */
  id: string | undefined;
  /** When the bytes were last written (ms since the epoch). */
  modifiedMs: number;
  /** Removes these bytes (no error when they are gone already). */
  remove(): Promise<void>;
}

/**
 * Where the bytes of each file id live. Ids are FILE_ID-shaped (safe as a file
 * name or an object key). Writes must be atomic: a reader sees all of a file or
 * none of it. Several instances may use one ByteStore at once.
 */
export interface ByteStore {
  /** Stores the bytes under the id (replacing any). */
  write(id: string, bytes: Uint8Array, mimeType: string): Promise<void>;
  /** A stream of the bytes, or undefined when there are none; a missing object is seen here, not mid-stream. */
  read(id: string): Promise<Readable | undefined>;
  /** Removes the bytes; no error when there are none. */
  remove(id: string): Promise<void>;
  /**
   * Everything it holds (finished files and unfinished writes, nothing else),
   * for the orphan sweep; optional (a store without it is never swept for
   * orphans).
   */
  scan?(): AsyncIterable<StoredBytes>;
}

/** File ids are opaque, URL-safe and never contain path separators. */
export const FILE_ID = /^file_[0-9a-f]{32}$/;

export interface BlobStoreOptions {
  bytes: ByteStore;
  files: FileStore;
  now: () => number;
  /** Files deleted per sweep batch. */
  sweepBatch?: number;
}

/** A BlobStore from a ByteStore and the metadata table. */
export function blobStore(opts: BlobStoreOptions): BlobStore {
  const { bytes, files, now } = opts;
  const batch = opts.sweepBatch ?? 500;

  // Bytes first: a crash in between leaves metadata without bytes, which opens
  // as gone and is swept at expiry, never bytes nobody can find.
  const remove = async (id: string): Promise<boolean> => {
    await bytes.remove(id);
    return files.delete(id);
  };
  const stat = async (id: string) => (FILE_ID.test(id) ? files.get(id) : undefined);

  return {
    async put(data, o) {
      const id = "file_" + randomBytes(16).toString("hex");
      await bytes.write(id, data, o.mimeType);
      const t = now();
      const record: FileRecord = {
        id,
        mimeType: o.mimeType,
        size: data.byteLength,
        createTime: t,
        expireTime: o.ttlMs !== undefined ? t + o.ttlMs : undefined,
        ownerKeyId: o.ownerKeyId,
        kind: o.kind,
        ...(o.filename !== undefined ? { filename: o.filename } : {}),
      };
      try {
        await files.insert(record);
      } catch (err) {
        await bytes.remove(id).catch(() => undefined);
        throw err;
      }
      return record;
    },

    async open(id) {
      const record = await stat(id);
      if (!record) return undefined;
      const stream = await bytes.read(id);
      return stream && { record, stream };
    },

    stat,

    delete(id) {
      if (!FILE_ID.test(id)) return Promise.resolve(false);
      return remove(id);
    },

    async sweep(at) {
      let count = 0;
      for (;;) {
        const expired = await files.listExpired(at, batch);
        // Instances sweeping at once: only the one whose delete removes the row counts it.
        for (const f of expired) if (await remove(f.id)) count++;
        if (expired.length < batch) return count;
      }
    },

    // Only bytes older than `before` are looked at: a put writes its bytes
    // and then its metadata within moments, so the grace the caller leaves
    // (an hour by default) keeps the sweep from racing a put, on this
    // instance or on another one sharing the store.
    async sweepOrphans(before) {
      if (!bytes.scan) return 0;
      let count = 0;
      let pending: StoredBytes[] = [];
      const settle = async () => {
        const known = await files.existing(pending.map((b) => b.id!));
        for (const b of pending) {
          if (known.has(b.id!)) continue;
          await b.remove();
          count++;
        }
        pending = [];
      };
      for await (const b of bytes.scan()) {
        if (b.modifiedMs >= before) continue;
        if (b.id === undefined) {
          await b.remove();
          count++;
          continue;
        }
        pending.push(b);
        if (pending.length >= batch) await settle();
      }
      if (pending.length) await settle();
      return count;
    },
  };
}
