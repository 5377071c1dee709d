// The embedded default storage: one SQLite file (WAL) under the data dir.
// better-sqlite3 is synchronous; each call is short, so the async interface
// simply wraps it.
import { mkdirSync, accessSync, constants } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { Storage } from "../types.js";
import { StorageError } from "../types.js";
import { migrations as allMigrations, type Migration } from "./migrations.js";
import { sqliteKeyStore } from "./keys.js";
import { sqliteTaskStore } from "./tasks.js";
import { sqliteUsageStore } from "./usage.js";
import { sqliteFileStore } from "./files.js";
import { sqliteCachedContentStore } from "./cached-contents.js";
import { sqliteStoredResponseStore } from "./stored-responses.js";
import { sqliteTaskOutboxStore } from "./task-outbox.js";
import { sqliteTaskAccountStore } from "./task-accounts.js";
import { startCheckpointer, type Checkpointer } from "./checkpointer.js";

export const DB_FILE = "omnigate.db";

/** Makes sure the data dir exists and is writable; throws StorageError naming it. */
export function prepareDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, constants.W_OK);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new StorageError(`OMNIGATE_DATA_DIR: ${dataDir} is not a writable directory (${e.code ?? e.message})`);
  }
}

function migrate(db: Database.Database, list: Migration[]): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_time INTEGER NOT NULL)");
  const applied = new Set((db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map((r) => r.version));
  const insert = db.prepare("INSERT INTO schema_migrations (version, name, applied_time) VALUES (?, ?, ?)");
  for (const m of [...list].sort((a, b) => a.version - b.version)) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      insert.run(m.version, m.name, Date.now());
    })();
  }
}

/**
 * SQLite's page cache for the gateway's connection, in KiB: SQLite's own
 * default. better-sqlite3 is built with 16 MB (SQLITE_DEFAULT_CACHE_SIZE=-16000),
 * which every chat request's usage row fills under load, for no gain per row;
 * the hot rows (keys, running tasks) fit in this many times over, and larger
 * reads go to the OS's page cache.
 */
export const PAGE_CACHE_KIB = 2000;

/** The settings every gateway connection runs with. */
export function configureConnection(db: Database.Database): void {
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
}

/** SQLite's own threshold (WAL pages) for the automatic checkpoint, used when the worker cannot run. */
const AUTOCHECKPOINT_PAGES = 1000;

export interface SqliteOptions {
  migrations?: Migration[];
  /** In the writing connection's commits, as SQLite does (default), or on a worker thread (src/storage/sqlite/checkpointer.ts). */
  checkpoint?: "worker" | "inline";
  /** Told when the checkpoint worker fails and checkpoints go back inline. */
  onError?: (err: Error) => void;
  /** Starts the worker (tests replace it). */
  startCheckpointer?: typeof startCheckpointer;
}

export function openSqliteStorage(dataDir: string, opts: SqliteOptions = {}): Storage {
  prepareDataDir(dataDir);
  const file = path.join(dataDir, DB_FILE);
  let db: Database.Database;
  try {
    db = new Database(file);
    configureConnection(db);
    migrate(db, opts.migrations ?? allMigrations);
  } catch (err) {
    throw new StorageError(`OMNIGATE_DATA_DIR: cannot open ${file}: ${(err as Error).message}`);
  }
  let checkpointer: Checkpointer | undefined;
  if (opts.checkpoint === "worker") {
    db.pragma("wal_autocheckpoint = 0");
    checkpointer = (opts.startCheckpointer ?? startCheckpointer)(file, {
      onFail: (err) => {
        if (db.open) db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
        (opts.onError ?? ((e) => process.stderr.write(`omnigate: storage: ${e.message}; checkpoints run inline\n`)))(err);
      },
    });
  }
  const usage = sqliteUsageStore(db);
  let closed = false;
  return {
    kind: "sqlite",
    keys: sqliteKeyStore(db),
    tasks: sqliteTaskStore(db),
    usage,
    files: sqliteFileStore(db),
    cachedContents: sqliteCachedContentStore(db),
    responses: sqliteStoredResponseStore(db),
    outbox: sqliteTaskOutboxStore(db),
    taskAccounts: sqliteTaskAccountStore(db),
    async migrations() {
      return (db.prepare("SELECT version FROM schema_migrations ORDER BY version").all() as { version: number }[]).map((r) => r.version);
    },
    async close() {
      if (closed) return;
      closed = true;
      usage.flush();
      // The worker's connection first, so that the main one closes last and removes the WAL.
      await checkpointer?.close();
      db.close();
    },
  };
}
