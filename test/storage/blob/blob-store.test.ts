import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { text } from "node:stream/consumers";
import t, { type Test } from "tap";
import { fsBlobStore } from "../../../src/storage/blob/fs-blob-store.js";
import { resolveUrlSecret, signFileUrl, URL_SECRET_FILE, verifyFileUrl } from "../../../src/storage/blob/signed-url.js";
import { startSweeper } from "../../../src/storage/blob/sweeper.js";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import { tempDir } from "../../helpers/app.js";

function setup(t: Test) {
  const dir = t.testdir();
  const storage = openSqliteStorage(dir);
  t.teardown(() => storage.close());
  let now = 1_000_000;
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const blobs = fsBlobStore({ dir: path.join(dir, "files"), files: storage.files, now: clock.now, sweepBatch: 2 });
  return { dir, storage, blobs, clock };
}

t.test("put, open, delete", async (t) => {
  const { dir, storage, blobs } = setup(t);
  const rec = await blobs.put(Buffer.from("hello"), { mimeType: "text/plain", kind: "upload", ttlMs: 5000, ownerKeyId: "key_1" });
  t.match(rec.id, /^file_[0-9a-f]{32}$/);
  t.same({ ...rec, id: "" }, { id: "", mimeType: "text/plain", size: 5, createTime: 1_000_000, expireTime: 1_005_000, ownerKeyId: "key_1", kind: "upload" });
  t.same(await storage.files.get(rec.id), rec, "metadata in storage.files");
  t.equal(readFileSync(path.join(dir, "files", rec.id), "utf8"), "hello");
  const opened = await blobs.open(rec.id);
  t.same(opened?.record, rec);
  t.equal(await text(opened!.stream), "hello");
  t.equal(await blobs.delete(rec.id), true);
  t.equal(await blobs.delete(rec.id), false);
  t.equal(await blobs.open(rec.id), undefined);
  t.notOk(existsSync(path.join(dir, "files", rec.id)));
  const forever = await blobs.put(new Uint8Array([1, 2, 3]), { mimeType: "application/octet-stream", kind: "image" });
  t.equal(forever.expireTime, undefined, "no ttl, no expiry");
});

t.test("ids that are not file ids never touch the filesystem", async (t) => {
  const { blobs } = setup(t);
  t.equal(await blobs.open("../omnigate.db"), undefined);
  t.equal(await blobs.delete("../../etc/passwd"), false);
});

t.test("a record whose bytes vanished opens as gone", async (t) => {
  const { dir, blobs } = setup(t);
  const rec = await blobs.put(Buffer.from("x"), { mimeType: "text/plain", kind: "image", ttlMs: 10 });
  const { rmSync } = await import("node:fs");
  rmSync(path.join(dir, "files", rec.id));
  t.equal(await blobs.open(rec.id), undefined);
});

t.test("sweep deletes exactly the expired files, in batches", async (t) => {
  const { blobs, clock, storage } = setup(t);
  const short = await Promise.all([1, 2, 3].map(() => blobs.put(Buffer.from("s"), { mimeType: "text/plain", kind: "image", ttlMs: 1000 })));
  const long = await blobs.put(Buffer.from("l"), { mimeType: "text/plain", kind: "image", ttlMs: 10_000 });
  const keep = await blobs.put(Buffer.from("k"), { mimeType: "text/plain", kind: "image" });
  t.equal(await blobs.sweep(clock.now()), 0);
  clock.advance(1000);
  t.equal(await blobs.sweep(clock.now()), 3, "three expired, swept over two batches");
  for (const s of short) t.notOk(await storage.files.get(s.id));
  t.ok(await storage.files.get(long.id));
  clock.advance(9000);
  t.equal(await blobs.sweep(clock.now()), 1);
  t.ok(await blobs.open(keep.id), "files without expiry stay");
});

t.test("sweeper: runOnce, shared in-flight runs, errors reported, stop", async (t) => {
  const { blobs, clock } = setup(t);
  await blobs.put(Buffer.from("s"), { mimeType: "text/plain", kind: "image", ttlMs: 1 });
  clock.advance(5);
  const sw = startSweeper(blobs, { intervalMs: 0, now: clock.now });
  const [a, b] = await Promise.all([sw.runOnce(), sw.runOnce()]);
  t.equal(a, 1);
  t.equal(b, 1, "a concurrent call joins the running sweep");
  sw.stop();
  const errors: unknown[] = [];
  const failing = startSweeper({ ...blobs, sweep: async () => Promise.reject(new Error("disk gone")) }, { intervalMs: 5, now: clock.now, onError: (e) => errors.push(e) });
  for (let i = 0; i < 200 && !errors.length; i++) await new Promise((r) => setTimeout(r, 5));
  failing.stop();
  t.match((errors[0] as Error).message, "disk gone");
});

t.test("signed URLs", async (t) => {
  const url = signFileUrl("http://h:1/", "file_" + "a".repeat(32), 1_700_000_000_999, "s3cret");
  t.match(url, /^http:\/\/h:1\/files\/file_a{32}\?exp=1700000000&sig=[0-9a-f]{64}$/);
  const u = new URL(url);
  const [exp, sig] = [u.searchParams.get("exp"), u.searchParams.get("sig")];
  const id = "file_" + "a".repeat(32);
  t.equal(verifyFileUrl(id, exp, sig, "s3cret", 1_699_999_999_000), "ok");
  t.equal(verifyFileUrl(id, exp, sig, "s3cret", 1_700_000_000_000), "expired");
  t.equal(verifyFileUrl(id, exp, sig, "other", 0), "bad_signature");
  t.equal(verifyFileUrl("file_" + "b".repeat(32), exp, sig, "s3cret", 0), "bad_signature");
  t.equal(verifyFileUrl(id, "1700000001", sig, "s3cret", 0), "bad_signature");
  t.equal(verifyFileUrl(id, undefined, sig, "s3cret", 0), "bad_signature");
  t.equal(verifyFileUrl(id, exp, "zz", "s3cret", 0), "bad_signature");
  t.equal(verifyFileUrl(id, ["1", "2"], sig, "s3cret", 0), "bad_signature");
  t.equal(signFileUrl("", id, 0, "k").startsWith("/files/"), true, "relative without a base");
});

t.test("URL secret: configured, else created once in the data dir", async (t) => {
  const dir = tempDir();
  t.equal(resolveUrlSecret("configured", dir), "configured");
  t.notOk(existsSync(path.join(dir, URL_SECRET_FILE)));
  const a = resolveUrlSecret("", dir);
  t.match(a, /^[0-9a-f]{64}$/);
  t.equal(statSync(path.join(dir, URL_SECRET_FILE)).mode & 0o777, 0o600);
  t.equal(resolveUrlSecret("", dir), a, "stable across restarts");
});
