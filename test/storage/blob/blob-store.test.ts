import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { text } from "node:stream/consumers";
import t, { type Test } from "tap";
import { fsBlobStore, fsByteStore } from "../../../src/storage/blob/fs-blob-store.js";
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

// What a crash between a put's two steps leaves: the bytes written (or a
// temporary file mid-write) and no record. The orphan sweep deletes those
// once they are older than the grace it is given, and nothing else.
t.test("orphan sweep: bytes without a record, older than the cutoff, and nothing else", async (t) => {
  const { dir, blobs, storage } = setup(t);
  const files = path.join(dir, "files");
  const hourAgo = Date.now() - 60 * 60 * 1000;
  const age = (name: string, ms: number) => utimesSync(path.join(files, name), new Date(ms), new Date(ms));
  const kept = await Promise.all([1, 2, 3].map((i) => blobs.put(Buffer.from(`kept ${i}`), { mimeType: "text/plain", kind: "image" })));
  for (const k of kept) age(k.id, hourAgo - 5000);
  const bytes = fsByteStore(files);
  const orphanId = (c: string) => "file_" + c.repeat(32);
  // Three old orphans (over two batches of 2 with the records), one fresh one (a put that may still record it).
  for (const c of ["a", "b", "c", "d"]) await bytes.write(orphanId(c), Buffer.from(c), "text/plain");
  for (const c of ["a", "b", "c"]) age(orphanId(c), hourAgo - 1000);
  const oldTemp = `.${orphanId("e")}.0123abcd.tmp`;
  const newTemp = `.${orphanId("f")}.0123abcd.tmp`;
  writeFileSync(path.join(files, oldTemp), "half");
  writeFileSync(path.join(files, newTemp), "half");
  age(oldTemp, hourAgo - 1000);
  // Not ours: never touched, however old.
  writeFileSync(path.join(files, "url-secret"), "s");
  writeFileSync(path.join(files, "notes.txt"), "n");
  mkdirSync(path.join(files, orphanId("9")));
  for (const n of ["url-secret", "notes.txt", orphanId("9")]) age(n, hourAgo - 1000);

  t.equal(await blobs.sweepOrphans(hourAgo), 4, "three orphaned files and one unfinished write");
  t.same(readdirSync(files).sort(), [newTemp, orphanId("9"), orphanId("d"), "notes.txt", "url-secret", ...kept.map((k) => k.id)].sort());
  for (const k of kept) t.equal(await text((await blobs.open(k.id))!.stream), readFileSync(path.join(files, k.id), "utf8"), "recorded files stay, however old");
  t.equal(await blobs.sweepOrphans(hourAgo), 0, "a second sweep finds nothing");
  age(orphanId("d"), hourAgo - 1);
  t.equal(await blobs.sweepOrphans(hourAgo), 1, "the fresh one goes once it is past the cutoff");
  t.equal((await storage.files.existing(kept.map((k) => k.id))).size, 3);
  t.equal(await fsBlobStore({ dir: path.join(dir, "never-made"), files: storage.files, now: Date.now }).sweepOrphans(Date.now()), 0, "a directory not made yet holds nothing");
});

t.test("sweeper: looks for orphans soon after start and then every grace period; errors reported", async (t) => {
  const { dir, blobs } = setup(t);
  const files = path.join(dir, "files");
  await fsByteStore(files).write("file_" + "a".repeat(32), Buffer.from("x"), "text/plain");
  utimesSync(path.join(files, "file_" + "a".repeat(32)), new Date(Date.now() - 1000), new Date(Date.now() - 1000));
  const sw = startSweeper(blobs, { intervalMs: 60_000, orphanGraceMs: 200, now: Date.now });
  t.teardown(() => sw.stop());
  for (let i = 0; i < 200 && existsSync(path.join(files, "file_" + "a".repeat(32))); i++) await new Promise((r) => setTimeout(r, 10));
  t.notOk(existsSync(path.join(files, "file_" + "a".repeat(32))), "swept by the timer");
  // The file is gone before the timer's run has counted it: let that run end first.
  await sw.runOrphans();
  await fsByteStore(files).write("file_" + "b".repeat(32), Buffer.from("y"), "text/plain");
  utimesSync(path.join(files, "file_" + "b".repeat(32)), new Date(Date.now() - 1000), new Date(Date.now() - 1000));
  const [p1, p2] = [sw.runOrphans(), sw.runOrphans()];
  t.equal(p1, p2, "a concurrent call joins the running sweep");
  t.same(await Promise.all([p1, p2]), [1, 1], "and gets its count");
  t.same(await sw.runOrphans(), 0, "a later call runs a new sweep");
  const errors: unknown[] = [];
  const failing = startSweeper(
    { ...blobs, sweepOrphans: async () => Promise.reject(new Error("listing failed")) },
    { intervalMs: 60_000, orphanGraceMs: 20, now: Date.now, onError: (e) => errors.push(e) },
  );
  for (let i = 0; i < 200 && !errors.length; i++) await new Promise((r) => setTimeout(r, 5));
  failing.stop();
  t.match((errors[0] as Error).message, "listing failed");
  const off = startSweeper({ ...blobs, sweepOrphans: async () => Promise.reject(new Error("must not run")) }, { intervalMs: 60_000, orphanGraceMs: 0, now: Date.now, onError: (e) => errors.push(e) });
  await new Promise((r) => setTimeout(r, 50));
  off.stop();
  t.equal(errors.length, 1, "orphanGraceMs 0 turns the orphan sweep off");
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
