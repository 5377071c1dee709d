// PostgreSQL storage as several instances meet it: concurrent first starts
// (migrations, schema creation, the first admin key), schema isolation, and
// the errors of a bad or unreachable database.
import t, { type Test } from "tap";
import { createServer, type Socket } from "node:net";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openPostgresStorage } from "../../src/storage/postgres/pg-storage.js";
import { migrations } from "../../src/storage/postgres/migrations.js";
import { openStorage } from "../../src/storage/open.js";
import { StorageError, type Storage } from "../../src/storage/types.js";
import { ensureKeys } from "../../src/core/auth/bootstrap.js";
import { hashSecret } from "../../src/core/auth/secrets.js";
import { PG_URL, pgSchema } from "../helpers/pg.js";
import { key } from "./conformance.js";

const ALL = migrations.map((m) => m.version);

async function sql<R extends pg.QueryResultRow>(text: string, args: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return (await c.query<R>(text, args)).rows;
  } finally {
    await c.end();
  }
}

/** Opens `n` storages on one schema at the same moment; closes them on teardown. */
async function openMany(t: Test, n: number, schema: string): Promise<Storage[]> {
  const handles = await Promise.all(Array.from({ length: n }, () => openPostgresStorage({ url: PG_URL, schema, poolSize: 3 })));
  t.teardown(() => Promise.all(handles.map((h) => h.close())));
  return handles;
}

t.test("three instances starting on a schema that does not exist yet", async (t) => {
  const schema = `og_t_${randomBytes(6).toString("hex")}`;
  t.teardown(() => sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
  const [a, b, c] = await openMany(t, 3, schema);
  for (const s of [a!, b!, c!]) t.same(await s.migrations(), ALL, "every instance sees every version");
  const rows = await sql<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
  t.same(
    rows.map((r) => r.version),
    ALL,
    "each version applied exactly once",
  );
  t.equal((await sql(`SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'api_keys'`, [schema])).length, 1, "tables live in the schema");

  const results = await Promise.all([a!, b!, c!].map((s) => ensureKeys(s.keys, {})));
  const generated = results.filter((r) => r.generatedSecret);
  t.equal(generated.length, 1, "exactly one instance creates the first admin key");
  t.equal(await a!.keys.count(), 1);
  const admin = (await c!.keys.findByHash(hashSecret(generated[0]!.generatedSecret!)))!;
  t.match(admin, { id: generated[0]!.generatedKeyId, admin: true });
  t.same(await ensureKeys(b!.keys, {}), {}, "a restart creates nothing");
});

t.test("three instances with the same bootstrap key", async (t) => {
  const { schema } = await pgSchema(t);
  const handles = await openMany(t, 3, schema);
  for (let round = 0; round < 3; round++) {
    const results = await Promise.all(handles.map((s) => ensureKeys(s.keys, { bootstrapKey: "sk-shared-bootstrap-key" })));
    t.same(results, [{}, {}, {}], `round ${round}: none generates a key, none fails`);
  }
  const keys = await handles[0]!.keys.list({ includeRevoked: true });
  t.equal(keys.length, 1);
  t.match(keys[0], { id: "key_bootstrap", admin: true, hash: hashSecret("sk-shared-bootstrap-key") });
});

t.test("upsert of one new id by many at once neither fails nor duplicates", async (t) => {
  const { schema } = await pgSchema(t);
  const handles = await openMany(t, 3, schema);
  for (let round = 0; round < 5; round++) {
    await Promise.all(handles.flatMap((s) => [s.keys.upsert(key(`key_${round}`)), s.keys.upsert(key(`key_${round}`, { name: "same" }))]));
  }
  t.equal(await handles[0]!.keys.count(), 5);
});

t.test("schemas are isolated; later migrations apply on top of earlier ones", async (t) => {
  const one = await pgSchema(t);
  const two = await pgSchema(t);
  const old = await openPostgresStorage({ url: PG_URL, schema: one.schema, migrations: migrations.slice(0, 1) });
  t.same(await old.migrations(), ALL.slice(0, 1));
  await old.keys.insert(key("key_a"));
  await old.close();
  const [upgraded] = await openMany(t, 1, one.schema);
  t.same(await upgraded!.migrations(), ALL, "the missing versions are applied");
  t.ok(await upgraded!.keys.get("key_a"), "data survives the upgrade");
  const [other] = await openMany(t, 1, two.schema);
  t.equal(await other!.keys.get("key_a"), undefined, "another schema sees none of it");
  t.equal(await other!.keys.count(), 0);
});

t.test("openStorage picks PostgreSQL when a database URL is set", async (t) => {
  const { schema } = await pgSchema(t);
  const s = await openStorage({ dataDir: "/nonexistent/never-used", databaseUrl: PG_URL, databaseSchema: schema, databasePoolSize: 2 });
  t.teardown(() => s.close());
  t.equal(s.kind, "postgres");
  t.same(await s.migrations(), ALL);
});

t.test("a bad or unreachable database fails fast with a message naming the setting", async (t) => {
  await t.rejects(openPostgresStorage({ url: "mysql://x@127.0.0.1/db" }), { name: "StorageError", message: /^OMNIGATE_DATABASE_URL: must be a postgres/ });
  await t.rejects(openPostgresStorage({ url: PG_URL, schema: "Bad-Name" }), { name: "StorageError", message: /^OMNIGATE_DATABASE_SCHEMA: "Bad-Name"/ });

  const refused = openPostgresStorage({ url: "postgres://postgres:s3cret@127.0.0.1:1/test", connectTimeoutMs: 2000 });
  await t.rejects(refused, new StorageError(""));
  const err = (await refused.catch((e: unknown) => e)) as Error;
  t.match(err.message, /^OMNIGATE_DATABASE_URL: cannot connect to postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/test: /);
  t.notMatch(err.message, /s3cret/, "the password is never shown");

  await t.rejects(openPostgresStorage({ url: "postgres://postgres@127.0.0.1:5432/og_no_such_database" }), { message: /OMNIGATE_DATABASE_URL: .*og_no_such_database/ });

  // A server that accepts the connection and never answers: the connect timeout ends the wait.
  const sockets = new Set<Socket>();
  const silent = createServer((s) => sockets.add(s));
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const port = (silent.address() as { port: number }).port;
  const started = Date.now();
  await t.rejects(openPostgresStorage({ url: `postgres://postgres@127.0.0.1:${port}/test`, connectTimeoutMs: 300 }), { message: /^OMNIGATE_DATABASE_URL: cannot connect/ });
  t.ok(Date.now() - started < 10_000, "it gives up instead of hanging");
});

t.test("usage records wait out a failing database write and are written once", async (t) => {
  const { schema } = await pgSchema(t);
  const errors: unknown[] = [];
  const s = await openPostgresStorage({ url: PG_URL, schema, onError: (e) => errors.push(e) });
  t.teardown(() => s.close());
  const rec = (i: number) => ({
    time: i,
    keyId: "key_a",
    format: "messages",
    model: "m",
    channel: "local",
    inputTokens: 1,
    outputTokens: 1,
    images: 0,
    seconds: 0,
    credits: 1,
    status: "ok",
    latencyMs: 1,
    requestId: `r${i}`,
  });
  await sql(`ALTER TABLE ${schema}.usage_records RENAME TO usage_records_away`);
  for (let i = 0; i < 300; i++) await s.usage.record(rec(i));
  for (let i = 0; i < 100 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.match(errors[0], { message: /usage_records/ }, "the failed background write is reported");
  await t.rejects(s.usage.query({}), { message: /usage_records/ }, "a query fails while the table is away");
  await sql(`ALTER TABLE ${schema}.usage_records_away RENAME TO usage_records`);
  for (let i = 300; i < 310; i++) await s.usage.record(rec(i));
  const after = await s.usage.query({ limit: 1000 });
  t.equal(after.totals.requests, 310, "every record is written after all");
  t.equal(new Set(after.rows.map((r) => r.requestId)).size, 310, "none twice");
});
