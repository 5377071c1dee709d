import t from "tap";
import { existsSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { startCheckpointer } from "../../../src/storage/sqlite/checkpointer.js";
import { configureConnection, DB_FILE, openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import { tempDir } from "../../helpers/app.js";
import { usage } from "../conformance.js";

/** A WAL database whose connection never checkpoints by itself, with `rows` rows committed. */
function writer(rows: number) {
  const file = path.join(tempDir(), "w.db");
  const db = new Database(file);
  configureConnection(db);
  db.pragma("wal_autocheckpoint = 0");
  db.exec("CREATE TABLE r (v TEXT)");
  const insert = db.prepare("INSERT INTO r (v) VALUES (?)");
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(`row ${i} `.repeat(20));
  })();
  return { file, db };
}

const until = async (what: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
};

t.test("the worker copies the WAL into the database file while the writer only commits", async (t) => {
  const { file, db } = writer(5000);
  t.teardown(() => db.close());
  const before = statSync(file).size;
  await new Promise((r) => setTimeout(r, 100));
  t.equal(statSync(file).size, before, "without the worker nothing reaches the database file");
  const failures: Error[] = [];
  const cp = startCheckpointer(file, { intervalMs: 20, onFail: (e) => failures.push(e) });
  t.equal(await cp.ready, true);
  t.ok(await until(() => statSync(file).size > before + 500_000), "the rows' pages were written to the database file");
  await cp.close();
  await cp.close();
  t.same(failures, [], "closing is not a failure");
  t.equal((db.prepare("SELECT count(*) AS n FROM r").get() as { n: number }).n, 5000);
});

t.test("a worker that cannot open the database reports a failure once", async (t) => {
  const dir = path.join(tempDir(), "a-directory.db");
  mkdirSync(dir);
  const failures: Error[] = [];
  // The worker is unref'd: something must keep this process alive while it starts.
  const alive = setInterval(() => undefined, 1000);
  t.teardown(() => clearInterval(alive));
  const cp = startCheckpointer(dir, { intervalMs: 20, onFail: (e) => failures.push(e) });
  t.equal(await cp.ready, false);
  t.ok(await until(() => failures.length > 0));
  await new Promise((r) => setTimeout(r, 50));
  t.equal(failures.length, 1);
  await cp.close();
});

const usageRow = (i: number, modelChars = 200) => usage({ time: i, keyId: "k", model: "m".repeat(modelChars), requestId: `req_${i}` });

t.test("the storage checkpoints off its own connection and removes the WAL when it closes", async (t) => {
  const dir = tempDir();
  const file = path.join(dir, DB_FILE);
  const s = openSqliteStorage(dir, { checkpoint: "worker" });
  const before = statSync(file).size;
  for (let i = 0; i < 3000; i++) s.usage.record(usageRow(i));
  t.equal((await s.usage.query({ keyId: "k" })).totals.requests, 3000);
  t.ok(await until(() => statSync(file).size > before + 200_000), "the worker checkpointed the usage rows");
  await s.close();
  t.notOk(existsSync(`${file}-wal`), "the main connection closed last");
  const again = openSqliteStorage(dir, { checkpoint: "inline" });
  t.equal((await again.usage.query({ keyId: "k" })).totals.requests, 3000);
  await again.close();
});

t.test("when the worker fails, the writing connection checkpoints by itself again", async (t) => {
  for (const failing of [false, true]) {
    const dir = tempDir();
    const file = path.join(dir, DB_FILE);
    const errors: Error[] = [];
    const s = openSqliteStorage(dir, {
      checkpoint: "worker",
      onError: (e) => errors.push(e),
      // A worker that never checkpoints, and that fails at once in the second pass.
      startCheckpointer: (_file, o) => {
        if (failing) o.onFail(new Error("worker gone"));
        return { ready: Promise.resolve(!failing), close: async () => undefined };
      },
    });
    const before = statSync(file).size;
    // Over SQLite's threshold of 1,000 WAL pages.
    for (let i = 0; i < 5000; i++) s.usage.record(usageRow(i, 1000));
    await s.usage.query({});
    const grew = statSync(file).size > before + 200_000;
    t.equal(grew, failing, failing ? "SQLite's automatic checkpoint is back" : "the writing connection does not checkpoint");
    t.same(
      errors.map((e) => e.message),
      failing ? ["worker gone"] : [],
    );
    await s.close();
  }
});
