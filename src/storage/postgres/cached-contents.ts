import type { CachedContentStore } from "../types.js";
import type { Db } from "./db.js";
import { cachedContentFromRow as fromRow, type CachedContentRow as Row } from "../rows.js";

export function pgCachedContentStore(db: Db): CachedContentStore {
  const byId = async (id: string) => (await db.query<Row>("SELECT * FROM cached_contents WHERE id = $1", [id])).rows[0];
  return {
    async insert(rec) {
      await db.query("INSERT INTO cached_contents (id, owner_key_id, model, display_name, content, total_tokens, create_time, update_time, expire_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", [
        rec.id,
        rec.ownerKeyId,
        rec.model,
        rec.displayName,
        Buffer.from(rec.content),
        rec.totalTokens,
        rec.createTime,
        rec.updateTime,
        rec.expireTime,
      ]);
    },
    async get(id) {
      const r = await byId(id);
      return r && fromRow(r);
    },
    async list(ownerKeyId, now, page = {}) {
      const r = await db.query<Row>("SELECT * FROM cached_contents WHERE owner_key_id = $1 AND expire_time > $2 AND id > $3 ORDER BY id LIMIT $4", [
        ownerKeyId,
        now,
        page.after ?? "",
        page.limit ?? 1000,
      ]);
      return r.rows.map(fromRow);
    },
    async update(id, patch) {
      const r = await db.query<Row>("UPDATE cached_contents SET expire_time = $2, update_time = $3 WHERE id = $1 RETURNING *", [id, patch.expireTime, patch.updateTime]);
      return r.rows[0] && fromRow(r.rows[0]);
    },
    async delete(id) {
      return ((await db.query("DELETE FROM cached_contents WHERE id = $1", [id])).rowCount ?? 0) > 0;
    },
    async deleteExpired(now, limit) {
      const r = await db.query("DELETE FROM cached_contents WHERE id IN (SELECT id FROM cached_contents WHERE expire_time <= $1 ORDER BY expire_time LIMIT $2)", [now, limit]);
      return r.rowCount ?? 0;
    },
  };
}
