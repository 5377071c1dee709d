import type Database from "better-sqlite3";
import type { ApiKeyRecord, KeyStore } from "../types.js";
import { keyFromRow, type KeyRow } from "../rows.js";

/** SQLite stores admin as 0/1. */
type Row = Omit<KeyRow, "admin"> & { admin: number };
const fromRow = (r: Row) => keyFromRow({ ...r, admin: r.admin === 1 });

function toParams(k: ApiKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    hash: k.hash,
    prefix: k.prefix,
    admin: k.admin ? 1 : 0,
    formats: JSON.stringify(k.formats),
    models: JSON.stringify(k.models),
    budget: k.budget,
    spent: k.spent,
    limits: JSON.stringify(k.limits),
    create_time: k.createTime,
    expire_time: k.expireTime ?? null,
    revoke_time: k.revokeTime ?? null,
  };
}

const COLUMNS = "id, name, hash, prefix, admin, formats, models, budget, spent, limits, create_time, expire_time, revoke_time";
const VALUES = "@id, @name, @hash, @prefix, @admin, @formats, @models, @budget, @spent, @limits, @create_time, @expire_time, @revoke_time";

export function sqliteKeyStore(db: Database.Database): KeyStore {
  const insert = db.prepare(`INSERT INTO api_keys (${COLUMNS}) VALUES (${VALUES})`);
  const upsert = db.prepare(`INSERT OR REPLACE INTO api_keys (${COLUMNS}) VALUES (${VALUES})`);
  const byId = db.prepare("SELECT * FROM api_keys WHERE id = ?");
  const byHash = db.prepare("SELECT * FROM api_keys WHERE hash = ?");
  const count = db.prepare("SELECT COUNT(*) AS n FROM api_keys");
  const insertIfEmpty = db.prepare(`INSERT INTO api_keys (${COLUMNS}) SELECT ${VALUES} WHERE NOT EXISTS (SELECT 1 FROM api_keys)`);
  // IMMEDIATE takes the write lock before the check, so processes sharing the file cannot both insert.
  const insertIfEmptyTx = db.transaction((k: ApiKeyRecord) => insertIfEmpty.run(toParams(k)).changes === 1);
  const reserve = db.prepare("UPDATE api_keys SET spent = spent + @amount WHERE id = @id AND (budget <= 0 OR (spent + @amount <= budget + 1e-9 AND spent < budget))");
  const adjust = db.prepare("UPDATE api_keys SET spent = MAX(0, spent + @delta) WHERE id = @id");
  return {
    async insert(k) {
      insert.run(toParams(k));
    },
    async upsert(k) {
      upsert.run(toParams(k));
    },
    async get(id) {
      const r = byId.get(id) as Row | undefined;
      return r && fromRow(r);
    },
    async findByHash(hash) {
      const r = byHash.get(hash) as Row | undefined;
      return r && fromRow(r);
    },
    async list(opts = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (!opts.includeRevoked) where.push("revoke_time IS NULL");
      if (opts.after) {
        where.push("id > ?");
        params.push(opts.after);
      }
      const sql = `SELECT * FROM api_keys ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id LIMIT ?`;
      params.push(opts.limit ?? 1000);
      return (db.prepare(sql).all(...params) as Row[]).map(fromRow);
    },
    async update(id, patch) {
      const r = byId.get(id) as Row | undefined;
      if (!r) return undefined;
      const next = { ...fromRow(r), ...patch, id: r.id, hash: r.hash };
      upsert.run(toParams(next));
      return next;
    },
    async count() {
      return (count.get() as { n: number }).n;
    },
    async insertIfEmpty(k) {
      return insertIfEmptyTx.immediate(k);
    },
    async reserveCredits(id, amount) {
      return reserve.run({ id, amount }).changes === 1;
    },
    async adjustSpent(id, delta) {
      adjust.run({ id, delta });
    },
  };
}
