// A fresh PostgreSQL schema per test: created here, dropped (CASCADE) on teardown.
// The server is the one on 127.0.0.1:5432 (trust auth), database `test`.
import { randomBytes } from "node:crypto";
import pg from "pg";

export const PG_URL = process.env.OMNIGATE_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function run(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates og_t_<random> and registers its DROP SCHEMA ... CASCADE on `t`'s teardown. */
export async function pgSchema(t: { teardown(fn: () => unknown): void }): Promise<{ url: string; schema: string }> {
  const schema = `og_t_${randomBytes(6).toString("hex")}`;
  await run(`CREATE SCHEMA ${schema}`);
  t.teardown(() => run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
  return { url: PG_URL, schema };
}
