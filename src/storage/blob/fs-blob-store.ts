// The filesystem blob store: bytes under <dir>/<id> (dir = <dataDir>/files, or
// OMNIGATE_FILES_DIR: a directory every instance mounts, e.g. NFS), metadata in
// storage.files. Writes go to a temporary name first and are renamed into
// place, so a reader never sees half a file.
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FileStore } from "../types.js";
import { blobStore, type BlobStore, type ByteStore } from "./blob-store.js";

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
