// The storage settings: database URL, schema and pool size, and the files directory.
import t from "tap";
import path from "node:path";
import { ConfigError, loadConfig } from "../../src/config.js";

t.test("defaults: SQLite in the data dir, files under it", async (t) => {
  const c = loadConfig({ OMNIGATE_DATA_DIR: "/tmp/og-data" });
  t.equal(c.databaseUrl, undefined);
  t.equal(c.databaseSchema, "public");
  t.equal(c.databasePoolSize, 10);
  t.equal(c.filesDir, undefined, "the blob store then uses <dataDir>/files");
});

t.test("from the environment", async (t) => {
  const c = loadConfig({
    OMNIGATE_DATABASE_URL: "postgresql://og:pw@db.internal:5432/omnigate?sslmode=require",
    OMNIGATE_DATABASE_SCHEMA: "omnigate_prod",
    OMNIGATE_DATABASE_POOL_SIZE: "25",
    OMNIGATE_FILES_DIR: "relative/files",
  });
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
});
