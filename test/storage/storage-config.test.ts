// The storage settings: database URL, schema and pool size, SQLite's checkpoints, and the files directory.
import t from "tap";
import path from "node:path";
import { statSync } from "node:fs";
import { ConfigError, loadConfig } from "../../src/config.js";
import { openStorage } from "../../src/storage/open.js";
import { DB_FILE } from "../../src/storage/sqlite/sqlite-storage.js";
import { tempDir } from "../helpers/app.js";
import { usage } from "./conformance.js";

t.test("defaults: SQLite in the data dir, files under it", async (t) => {
  const c = loadConfig({ OMNIGATE_DATA_DIR: "/tmp/og-data" });
  t.equal(c.databaseUrl, undefined);
  t.equal(c.databaseSchema, "public");
  t.equal(c.databasePoolSize, 10);
  t.equal(c.sqliteCheckpoint, "inline", "SQLite's own way");
  t.equal(c.filesDir, undefined, "the blob store then uses <dataDir>/files");
});

t.test("from the environment", async (t) => {
  const c = loadConfig({
    OMNIGATE_DATABASE_URL: "postgresql://og:pw@db.internal:5432/omnigate?sslmode=require",
    OMNIGATE_DATABASE_SCHEMA: "omnigate_prod",
    OMNIGATE_DATABASE_POOL_SIZE: "25",
    OMNIGATE_FILES_DIR: "relative/files",
    OMNIGATE_SQLITE_CHECKPOINT: "worker",
  });
  t.equal(c.sqliteCheckpoint, "worker");
  t.equal(c.databaseUrl, "postgresql://og:pw@db.internal:5432/omnigate?sslmode=require");
  t.equal(c.databaseSchema, "omnigate_prod");
  t.equal(c.databasePoolSize, 25);
  t.equal(c.filesDir, path.resolve("relative/files"), "made absolute");
});

t.test("bad values name the setting", async (t) => {
  t.throws(() => loadConfig({ OMNIGATE_DATABASE_URL: "sqlite:///x.db" }), new ConfigError(""));
  t.throws(() => loadConfig({ OMNIGATE_DATABASE_URL: "sqlite:///x.db" }), { message: /OMNIGATE_DATABASE_URL \("sqlite:\/\/\/x.db"\): expected a postgres/ });
  t.throws(() => loadConfig({ OMNIGATE_DATABASE_SCHEMA: "public; DROP" }), { message: /OMNIGATE_DATABASE_SCHEMA .*lower-case identifier/ });
  t.throws(() => loadConfig({ OMNIGATE_DATABASE_POOL_SIZE: "0" }), { message: /OMNIGATE_DATABASE_POOL_SIZE \("0"\): expected at least 1/ });
  t.throws(() => loadConfig({ OMNIGATE_SQLITE_CHECKPOINT: "thread" }), { message: /OMNIGATE_SQLITE_CHECKPOINT \("thread"\)/ });
});

t.test("sqliteCheckpoint reaches the SQLite storage: only the worker copies a short WAL into the database file", async (t) => {
  for (const sqliteCheckpoint of ["inline", "worker"] as const) {
    const config = loadConfig({ OMNIGATE_DATA_DIR: tempDir(), OMNIGATE_SQLITE_CHECKPOINT: sqliteCheckpoint });
    const storage = await openStorage(config);
    const file = path.join(config.dataDir, DB_FILE);
    const before = statSync(file).size;
    for (let i = 0; i < 2000; i++) {
      storage.usage.record(usage({ time: i, keyId: "k", model: "m".repeat(100), requestId: `r${i}` }));
    }
    await storage.usage.query({});
    // Well under SQLite's 1,000-page threshold, so only the worker's pass writes the file.
    await new Promise((r) => setTimeout(r, 1500));
    t.equal(statSync(file).size > before, sqliteCheckpoint === "worker", sqliteCheckpoint);
    await storage.close();
  }
});
