// The scale-out storage: PostgreSQL through a pg Pool, every table in one
// schema. Several gateway instances may share a database: migrations run under
// an advisory lock, so instances starting together apply each version once.
import type { Storage } from "../types.js";
import { StorageError } from "../types.js";
import { createPool, SCHEMA_NAME, withTx, type Db } from "./db.js";
import { migrations as allMigrations, type Migration } from "./migrations.js";
import { pgKeyStore } from "./keys.js";
import { pgTaskStore } from "./tasks.js";
import { pgUsageStore } from "./usage.js";
import { pgFileStore } from "./files.js";
import { pgCachedContentStore } from "./cached-contents.js";
import { pgStoredResponseStore } from "./stored-responses.js";
import { pgTaskOutboxStore } from "./task-outbox.js";
import { pgTaskAccountStore } from "./task-accounts.js";

export interface PostgresStorageOptions {
  /** postgres:// or postgresql:// URL. */
  url: string;
  /** Schema holding the tables; created when missing. Default "public". */
  schema?: string;
  /** Most connections this instance opens. Default 10. */
  poolSize?: number;
  /** How long opening a connection may take before it fails. Default 5000. */
  connectTimeoutMs?: number;
  migrations?: Migration[];
  /** Errors with nowhere else to go (a dropped idle connection, a failed background usage write). */
  onError?: (err: unknown) => void;
}

/** The URL with its password masked, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable URL)";
  }
}

async function migrate(db: Db, schema: string, list: Migration[]): Promise<void> {
  await withTx(db, async (c) => {
    // Held until commit: a second instance waits here, then finds everything applied.
    await c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`omnigate.migrate.${schema}`]);
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await c.query("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_time BIGINT NOT NULL)");
    const applied = new Set((await c.query<{ version: number }>("SELECT version FROM schema_migrations")).rows.map((r) => r.version));
    for (const m of [...list].sort((a, b) => a.version - b.version)) {
      if (applied.has(m.version)) continue;
      await c.query(m.sql);
      await c.query("INSERT INTO schema_migrations (version, name, applied_time) VALUES ($1, $2, $3)", [m.version, m.name, Date.now()]);
    }
  });
}

export async function openPostgresStorage(opts: PostgresStorageOptions): Promise<Storage> {
  const schema = opts.schema ?? "public";
  if (!/^postgres(ql)?:\/\//.test(opts.url)) throw new StorageError("OMNIGATE_DATABASE_URL: must be a postgres:// or postgresql:// URL");
  if (!SCHEMA_NAME.test(schema)) throw new StorageError(`OMNIGATE_DATABASE_SCHEMA: ${JSON.stringify(schema)} is not a lower-case identifier ([a-z_][a-z0-9_]*)`);
  const onError = opts.onError ?? (() => undefined);
  const db = createPool({ url: opts.url, schema, poolSize: opts.poolSize ?? 10, connectTimeoutMs: opts.connectTimeoutMs ?? 5000, onError });
  try {
    await db.query("SELECT 1");
  } catch (err) {
    await db.end().catch(() => undefined);
    throw new StorageError(`OMNIGATE_DATABASE_URL: cannot connect to ${redactUrl(opts.url)}: ${(err as Error).message}`);
  }
  try {
    await migrate(db, schema, opts.migrations ?? allMigrations);
  } catch (err) {
    await db.end().catch(() => undefined);
    throw new StorageError(`OMNIGATE_DATABASE_URL: migrating schema ${schema} failed: ${(err as Error).message}`);
  }
  const usage = pgUsageStore(db, onError);
  let closing: Promise<void> | undefined;
  return {
    kind: "postgres",
    keys: pgKeyStore(db),
    tasks: pgTaskStore(db),
    usage,
    files: pgFileStore(db),
    cachedContents: pgCachedContentStore(db),
    responses: pgStoredResponseStore(db),
    outbox: pgTaskOutboxStore(db),
    taskAccounts: pgTaskAccountStore(db),
    async migrations() {
      return (await db.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version")).rows.map((r) => r.version);
    },
    close() {
      closing ??= (async () => {
        await usage.flush().catch(onError);
        await db.end();
      })();
      return closing;
    },
  };
}
