// The blob store: where generated files (images today; image-bot results and
// videos later) live until they expire. Callers depend on this interface only.
//
// Implementations: the filesystem store (fs-blob-store.ts, the default, under
// <dataDir>/files/). An S3-compatible store can implement the same interface:
// put = PutObject (metadata in storage.files as here), open = GetObject with
// its Body as the Readable, delete = DeleteObject, sweep = listExpired +
// DeleteObjects. URLs stay gateway-signed (signed-url.ts), so clients never
// see the bucket.
import type { Readable } from "node:stream";
import type { FileRecord } from "../types.js";

export type { FileRecord };

export interface PutOptions {
  mimeType: string;
  /** What produced it: "image", "image-bot", "video", "upload". */
  kind: string;
  /** Time to live from now; without it the file never expires. */
  ttlMs?: number;
  ownerKeyId?: string;
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
  /** Removes the file and its metadata; false when it did not exist. */
  delete(id: string): Promise<boolean>;
  /** Deletes every file expired at `now`; returns how many were deleted. */
  sweep(now: number): Promise<number>;
}

/** File ids are opaque, URL-safe and never contain path separators. */
export const FILE_ID = /^file_[0-9a-f]{32}$/;
