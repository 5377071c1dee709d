// The filesystem blob store: bytes under <dir>/<id> (dir = <dataDir>/files, or
// OMNIGATE_FILES_DIR: a directory every instance mounts, e.g. NFS), metadata in
// storage.files. Writes go to a temporary name first and are renamed into
// place, so a reader never sees half a file.
import { randomBytes } from "node:crypto";
import { mkdir, open, opendir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FileStore } from "../types.js";
import { blobStore, FILE_ID, type BlobStore, type ByteStore, type StoredBytes } from "./blob-store.js";

/** A write in progress (or one a crash cut short): `.<id>.<8 hex>.tmp`. */
const TEMP_NAME = /^\.file_[0-9a-f]{32}\.[0-9a-f]{8}\.tmp$/;

export function fsByteStore(dir: string): ByteStore {
  let ready: Promise<unknown> | undefined;
  const ensureDir = () => (ready ??= mkdir(dir, { recursive: true }));
  const fileOf = (id: string) => path.join(dir, id);
  return {
    async write(id, bytes) {
      await ensureDir();
      // Unique per writer, so instances sharing the directory never collide.
      const tmp = fileOf(`.${id}.${randomBytes(4).toString("hex")}.tmp`);
      try {
        await writeFile(tmp, bytes);
        await rename(tmp, fileOf(id));
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
    },
    async read(id) {
      // Open the descriptor first so a missing file is seen here, not mid-stream.
      const handle = await open(fileOf(id), "r").catch(() => undefined);
      return handle?.createReadStream();
    },
    async remove(id) {
      await rm(fileOf(id), { force: true });
    },
    // Names that are neither a file id nor one of our temporary names (the
    // URL secret, anything an operator put there) are never listed.
    async *scan(): AsyncIterable<StoredBytes> {
      let entries;
      try {
        entries = await opendir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
        throw err;
      }
      for await (const e of entries) {
        const id = FILE_ID.test(e.name) ? e.name : TEMP_NAME.test(e.name) ? undefined : null;
        if (id === null || !e.isFile()) continue;
        const file = fileOf(e.name);
        // Gone since it was listed (deleted or renamed into place): nothing to sweep.
        const st = await stat(file).catch(() => undefined);
        if (!st) continue;
        yield { id, modifiedMs: st.mtimeMs, remove: () => rm(file, { force: true }) };
      }
    },
  };
}

export interface FsBlobStoreOptions {
  /** Directory for the bytes, e.g. <dataDir>/files. */
  dir: string;
  files: FileStore;
  now: () => number;
  /** Files deleted per sweep batch. */
  sweepBatch?: number;
}

export function fsBlobStore(opts: FsBlobStoreOptions): BlobStore {
  return blobStore({ bytes: fsByteStore(opts.dir), files: opts.files, now: opts.now, ...(opts.sweepBatch ? { sweepBatch: opts.sweepBatch } : {}) });
}
