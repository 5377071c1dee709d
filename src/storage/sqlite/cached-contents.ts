import type Database from "better-sqlite3";
import type { CachedContentStore } from "../types.js";
import { cachedContentFromRow as fromRow, type CachedContentRow as Row } from "../rows.js";

export function sqliteCachedContentStore(db: Database.Database): CachedContentStore {
  const insert = db.prepare(
    "INSERT INTO cached_contents (id, owner_key_id, model, display_name, content, total_tokens, create_time, update_time, expire_time) VALUES (@id, @ownerKeyId, @model, @displayName, @content, @totalTokens, @createTime, @updateTime, @expireTime)",
  );
  const byId = db.prepare("SELECT * FROM cached_contents WHERE id = ?");
  const list = db.prepare("SELECT * FROM cached_contents WHERE owner_key_id = ? AND expire_time > ? AND id > ? ORDER BY id LIMIT ?");
  const update = db.prepare("UPDATE cached_contents SET expire_time = @expireTime, update_time = @updateTime WHERE id = @id");
  const del = db.prepare("DELETE FROM cached_contents WHERE id = ?");
  const delExpired = db.prepare("DELETE FROM cached_contents WHERE id IN (SELECT id FROM cached_contents WHERE expire_time <= ? LIMIT ?)");
  return {
    async insert(rec) {
      insert.run({ ...rec, content: Buffer.from(rec.content) });
    },
    async get(id) {
      const r = byId.get(id) as Row | undefined;
      return r && fromRow(r);
    },
    async list(ownerKeyId, now, page = {}) {
      return (list.all(ownerKeyId, now, page.after ?? "", page.limit ?? 1000) as Row[]).map(fromRow);
    },
    async update(id, patch) {
      if (update.run({ id, ...patch }).changes === 0) return undefined;
      return fromRow(byId.get(id) as Row);
    },
    async delete(id) {
      return del.run(id).changes > 0;
    },
    async deleteExpired(now, limit) {
      return delExpired.run(now, limit).changes;
    },
  };
}
