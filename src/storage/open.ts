// Picks the storage from the config: PostgreSQL when databaseUrl is set
// (several instances share it), else the embedded SQLite file in dataDir.
import type { Config } from "../config.js";
import { openSqliteStorage } from "./sqlite/sqlite-storage.js";
import type { Storage } from "./types.js";

export type StorageConfig = Pick<Config, "dataDir" | "databaseUrl" | "databaseSchema" | "databasePoolSize"> & Partial<Pick<Config, "sqliteCheckpoint">>;

/** Opens (and migrates) the configured storage; throws StorageError naming the setting when it cannot. */
export async function openStorage(config: StorageConfig, opts: { onError?: (err: unknown) => void; connectTimeoutMs?: number } = {}): Promise<Storage> {
  if (!config.databaseUrl) {
    return openSqliteStorage(config.dataDir, {
      checkpoint: config.sqliteCheckpoint ?? "inline",
      ...(opts.onError ? { onError: opts.onError } : {}),
    });
  }
  // The PostgreSQL client (pg) is loaded only when it is configured: heap otherwise held for nothing.
  const { openPostgresStorage } = await import("./postgres/pg-storage.js");
  return openPostgresStorage({
    url: config.databaseUrl,
    schema: config.databaseSchema,
    poolSize: config.databasePoolSize,
    ...(opts.connectTimeoutMs !== undefined ? { connectTimeoutMs: opts.connectTimeoutMs } : {}),
    onError: opts.onError ?? ((err) => process.stderr.write(`omnigate: storage: ${(err as Error).message}\n`)),
  });
}
