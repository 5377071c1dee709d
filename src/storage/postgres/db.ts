// The PostgreSQL plumbing the stores share: a pool whose connections parse
// int8/numeric to numbers and use the configured schema, and a transaction helper.
import pg from "pg";

export type Db = pg.Pool;
export type Queryable = pg.Pool | pg.PoolClient;

/** Schema names are plain lower-case identifiers, so they never need quoting. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

// Epoch-ms columns are BIGINT and SUM(bigint) is NUMERIC: both fit a double.
const toNumber = (v: string) => Number(v);
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return toNumber;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export interface PoolOptions {
  url: string;
  schema: string;
  poolSize: number;
  connectTimeoutMs: number;
  onError?: (err: Error) => void;
}

export function createPool(o: PoolOptions): Db {
  const pool = new pg.Pool({
    connectionString: o.url,
    max: o.poolSize,
    connectionTimeoutMillis: o.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true,
    // Every pooled connection starts with the schema as its search_path.
    options: `-c search_path=${o.schema}`,
    types,
  });
  // An idle connection dropped by the server is removed from the pool; it must not crash the process.
  pool.on("error", (err) => o.onError?.(err));
  return pool;
}

/** Runs fn in one transaction on one connection; rolls back (and rethrows) when it throws. */
export async function withTx<T>(db: Db, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await db.connect();
  try {
    await c.query("BEGIN");
    const out = await fn(c);
    await c.query("COMMIT");
    return out;
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}

/** Thrown inside withTx to roll back without an error; withTx rethrows it. */
export class Rollback extends Error {}

export const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === "23505";
