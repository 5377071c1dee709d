import type { ApiKeyRecord, KeyStore } from "../types.js";
import { isUniqueViolation, withTx, type Db } from "./db.js";
import { keyFromRow as fromRow, type KeyRow as Row } from "../rows.js";

// Column name and how a record field is written to it, in column order.
const FIELDS: [keyof ApiKeyRecord, string, string, (v: unknown) => unknown][] = [
  ["id", "id", "text", (v) => v],
  ["name", "name", "text", (v) => v],
  ["hash", "hash", "text", (v) => v],
  ["prefix", "prefix", "text", (v) => v],
  ["admin", "admin", "boolean", (v) => Boolean(v)],
  ["formats", "formats", "text", (v) => JSON.stringify(v ?? [])],
  ["models", "models", "text", (v) => JSON.stringify(v ?? [])],
  ["budget", "budget", "float8", (v) => v ?? 0],
  ["spent", "spent", "float8", (v) => v ?? 0],
  ["limits", "limits", "text", (v) => JSON.stringify(v ?? {})],
  ["createTime", "create_time", "int8", (v) => v],
  ["expireTime", "expire_time", "int8", (v) => v ?? null],
  ["revokeTime", "revoke_time", "int8", (v) => v ?? null],
];
const COLUMNS = FIELDS.map((f) => f[1]).join(", ");
const VALUES = FIELDS.map((f, i) => `$${i + 1}::${f[2]}`).join(", ");
const values = (k: ApiKeyRecord) => FIELDS.map(([field, , , write]) => write(k[field]));

// Serialises first-start bootstraps of several instances (pg_advisory_xact_lock key).
const BOOTSTRAP_LOCK = 0x6f67_6b31;

export function pgKeyStore(db: Db): KeyStore {
  const one = async (sql: string, args: unknown[]) => {
    const r = await db.query<Row>(sql, args);
    return r.rows[0] && fromRow(r.rows[0]);
  };
  const upsertSql =
    `INSERT INTO api_keys (${COLUMNS}) VALUES (${VALUES}) ON CONFLICT (id) DO UPDATE SET ` +
    FIELDS.slice(1)
      .map(([, col]) => `${col} = excluded.${col}`)
      .join(", ");
  return {
    async insert(k) {
      await db.query(`INSERT INTO api_keys (${COLUMNS}) VALUES (${VALUES})`, values(k));
    },
    async upsert(k) {
      // Two concurrent upserts of one new id can meet on the hash index before the id
      // index; the loser's retry then sees the committed row and takes the UPDATE path.
      for (let attempt = 0; ; attempt++) {
        try {
          await db.query(upsertSql, values(k));
          return;
        } catch (err) {
          if (!isUniqueViolation(err) || attempt >= 2) throw err;
        }
      }
    },
    get(id) {
      return one("SELECT * FROM api_keys WHERE id = $1", [id]);
    },
    findByHash(hash) {
      return one("SELECT * FROM api_keys WHERE hash = $1", [hash]);
    },
    async list(opts = {}) {
      const where: string[] = [];
      const args: unknown[] = [];
      if (!opts.includeRevoked) where.push("revoke_time IS NULL");
      if (opts.after) {
        args.push(opts.after);
        where.push(`id > $${args.length}`);
      }
      args.push(opts.limit ?? 1000);
      const sql = `SELECT * FROM api_keys ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id LIMIT $${args.length}`;
      return (await db.query<Row>(sql, args)).rows.map(fromRow);
    },
    async update(id, patch) {
      // Only the patched columns are written, so a concurrent reserveCredits is never undone.
      const sets: string[] = [];
      const args: unknown[] = [id];
      for (const [field, col, , write] of FIELDS) {
        if (field === "id" || field === "hash" || !(field in patch)) continue;
        args.push(write((patch as Partial<ApiKeyRecord>)[field]));
        sets.push(`${col} = $${args.length}`);
      }
      if (!sets.length) return one("SELECT * FROM api_keys WHERE id = $1", [id]);
      return one(`UPDATE api_keys SET ${sets.join(", ")} WHERE id = $1 RETURNING *`, args);
    },
    async count() {
      return (await db.query<{ n: number }>("SELECT COUNT(*) AS n FROM api_keys")).rows[0]!.n;
    },
    async insertIfEmpty(k) {
      return withTx(db, async (c) => {
        await c.query("SELECT pg_advisory_xact_lock($1)", [BOOTSTRAP_LOCK]);
        const r = await c.query(`INSERT INTO api_keys (${COLUMNS}) SELECT ${VALUES} WHERE NOT EXISTS (SELECT 1 FROM api_keys)`, values(k));
        return r.rowCount === 1;
      });
    },
    async reserveCredits(id, amount) {
      // One conditional UPDATE: concurrent reservations re-check the budget on the locked row.
      const r = await db.query("UPDATE api_keys SET spent = spent + $2 WHERE id = $1 AND (budget <= 0 OR (spent + $2 <= budget + 1e-9 AND spent < budget))", [id, amount]);
      return r.rowCount === 1;
    },
    async adjustSpent(id, delta) {
      await db.query("UPDATE api_keys SET spent = GREATEST(0, spent + $2) WHERE id = $1", [id, delta]);
    },
  };
}
