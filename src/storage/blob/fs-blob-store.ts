// The filesystem blob store: bytes under <dataDir>/files/<id>, metadata in
// storage.files. Writes go to a temporary name first and are renamed into
// place, so a reader never sees half a file.
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FileStore } from "../types.js";
import { FILE_ID, type BlobStore } from "./blob-store.js";

export interface FsBlobStoreOptions {
  /** Directory for the bytes, e.g. <dataDir>/files. */
  dir: string;
  files: FileStore;
  now: () => number;
  /** Files deleted per sweep batch. */
  sweepBatch?: number;
}

export function fsBlobStore(opts: FsBlobStoreOptions): BlobStore {
  const { dir, files, now } = opts;
  const batch = opts.sweepBatch ?? 500;
  let ready: Promise<unknown> | undefined;
  const ensureDir = () => (ready ??= mkdir(dir, { recursive: true }));
  const fileOf = (id: string) => path.join(dir, id);

  const remove = async (id: string): Promise<boolean> => {
    const existed = await files.delete(id);
    await rm(fileOf(id), { force: true });
    return existed;
  };

  return {
    async put(bytes, o) {
      await ensureDir();
      const id = "file_" + randomBytes(16).toString("hex");
      const tmp = fileOf(`.${id}.tmp`);
      await writeFile(tmp, bytes);
      await rename(tmp, fileOf(id));
      const t = now();
      const record = {
        id,
        mimeType: o.mimeType,
        size: bytes.byteLength,
        createTime: t,
        expireTime: o.ttlMs !== undefined ? t + o.ttlMs : undefined,
        ownerKeyId: o.ownerKeyId,
        kind: o.kind,
      };
      try {
        await files.insert(record);
      } catch (err) {
        await rm(fileOf(id), { force: true });
        throw err;
      }
      return record;
    },

    async open(id) {
      if (!FILE_ID.test(id)) return undefined;
      const record = await files.get(id);
      if (!record) return undefined;
      // Open the descriptor first so a missing file is seen here, not mid-stream.
      const handle = await open(fileOf(id), "r").catch(() => undefined);
      if (!handle) return undefined;
      return { record, stream: handle.createReadStream() };
    },

    delete(id) {
      if (!FILE_ID.test(id)) return Promise.resolve(false);
      return remove(id);
    },

    async sweep(at) {
      let count = 0;
      for (;;) {
        const expired = await files.listExpired(at, batch);
        for (const f of expired) if (await remove(f.id)) count++;
        if (expired.length < batch) return count;
      }
    },
  };
}
