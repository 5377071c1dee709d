// Files across instances: two blob stores on one shared directory and one
// PostgreSQL schema (two gateway instances) see each other's files and sweep
// each expired file once; the blob store works over any ByteStore (the seam an
// S3-compatible store plugs into), and a shared directory shares the URL secret.
import t from "tap";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { readdirSync } from "node:fs";
import { blobStore, type ByteStore } from "../../../src/storage/blob/blob-store.js";
import { fsBlobStore } from "../../../src/storage/blob/fs-blob-store.js";
import { resolveUrlSecret } from "../../../src/storage/blob/signed-url.js";
import { openPostgresStorage } from "../../../src/storage/postgres/pg-storage.js";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import { pgSchema } from "../../helpers/pg.js";

t.test("two instances share one files directory and one database", async (t) => {
  const { url, schema } = await pgSchema(t);
  const dir = t.testdir();
  let now = 1_000_000;
  const clock = () => now;
  const [sa, sb] = await Promise.all([openPostgresStorage({ url, schema, poolSize: 2 }), openPostgresStorage({ url, schema, poolSize: 2 })]);
  t.teardown(() => Promise.all([sa.close(), sb.close()]));
  const a = fsBlobStore({ dir, files: sa.files, now: clock, sweepBatch: 3 });
  const b = fsBlobStore({ dir, files: sb.files, now: clock, sweepBatch: 3 });

  const rec = await a.put(Buffer.from("made on a"), { mimeType: "text/plain", kind: "image", ttlMs: 1000 });
  t.same(await b.stat(rec.id), rec, "b sees a's metadata");
  const opened = await b.open(rec.id);
  t.equal((await buffer(opened!.stream)).toString(), "made on a", "and reads its bytes");
  t.equal(await b.delete(rec.id), true);
  t.equal(await a.open(rec.id), undefined, "a delete on b is seen on a");
  t.equal(await a.delete(rec.id), false);

  const many = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).put(Buffer.from(`f${i}`), { mimeType: "text/plain", kind: "image", ttlMs: 100 })));
  const keep = await a.put(Buffer.from("keep"), { mimeType: "text/plain", kind: "image" });
  now += 100;
  const [ca, cb] = await Promise.all([a.sweep(now), b.sweep(now)]);
  t.equal(ca + cb, 10, "sweeping on both instances at once counts each file once");
  for (const f of many) t.equal(await a.stat(f.id), undefined);
  t.same(readdirSync(dir), [keep.id], "only the unexpired file's bytes are left, no temporary files");
});

t.test("any ByteStore will do: an in-memory one stands in for a bucket", async (t) => {
  const objects = new Map<string, { bytes: Buffer; mimeType: string }>();
  const memory: ByteStore = {
    async write(id, bytes, mimeType) {
      objects.set(id, { bytes: Buffer.from(bytes), mimeType });
    },
    async read(id) {
      const o = objects.get(id);
      return o && Readable.from([o.bytes]);
    },
    async remove(id) {
      objects.delete(id);
    },
  };
  const storage = openSqliteStorage(t.testdir());
  t.teardown(() => storage.close());
  let now = 5_000;
  const blobs = blobStore({ bytes: memory, files: storage.files, now: () => now });

  const rec = await blobs.put(new Uint8Array([1, 2, 3]), { mimeType: "image/png", kind: "upload", ttlMs: 10, ownerKeyId: "key_a" });
  t.same(objects.get(rec.id), { bytes: Buffer.from([1, 2, 3]), mimeType: "image/png" }, "the bytes went to the ByteStore with their type");
  t.match(await blobs.stat(rec.id), { size: 3, mimeType: "image/png", expireTime: 5_010, ownerKeyId: "key_a" });
  t.same(await buffer((await blobs.open(rec.id))!.stream), Buffer.from([1, 2, 3]));
  t.equal(await blobs.stat("../etc/passwd"), undefined, "ids that are not file ids are never looked up");

  objects.delete(rec.id);
  t.equal(await blobs.open(rec.id), undefined, "metadata without bytes opens as gone...");
  now += 10;
  t.equal(await blobs.sweep(now), 1, "...and is swept at expiry");
  t.equal(await blobs.stat(rec.id), undefined);

  const failing = blobStore({ bytes: memory, files: { ...storage.files, insert: () => Promise.reject(new Error("db down")) }, now: () => now });
  await t.rejects(failing.put(Buffer.from("x"), { mimeType: "text/plain", kind: "image" }), { message: "db down" });
  t.equal(objects.size, 0, "bytes whose metadata could not be stored are removed");
});

t.test("instances sharing a directory share its URL secret", async (t) => {
  const dir = t.testdir();
  const secrets = Array.from({ length: 5 }, () => resolveUrlSecret("", dir));
  t.equal(new Set(secrets).size, 1, "the first instance creates it, the others read it");
  t.match(secrets[0], /^[0-9a-f]{64}$/);
});
