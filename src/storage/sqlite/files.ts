import type Database from "better-sqlite3";
import type { FileStore } from "../types.js";
import { fileFromRow as fromRow, type FileRow as Row } from "../rows.js";

export function sqliteFileStore(db: Database.Database): FileStore {
  const insert = db.prepare(
    "INSERT INTO files (id, mime_type, size, create_time, expire_time, owner_key_id, kind) VALUES (@id, @mimeType, @size, @createTime, @expireTime, @ownerKeyId, @kind)",
  );
  const byId = db.prepare("SELECT * FROM files WHERE id = ?");
  const del = db.prepare("DELETE FROM files WHERE id = ?");
  const known = db.prepare("SELECT id FROM files WHERE id IN (SELECT value FROM json_each(?))");
  const expired = db.prepare("SELECT * FROM files WHERE expire_time IS NOT NULL AND expire_time <= ? ORDER BY expire_time LIMIT ?");
  return {
    async insert(f) {
      insert.run({ ...f, expireTime: f.expireTime ?? null, ownerKeyId: f.ownerKeyId ?? null });
    },
    async get(id) {
      const r = byId.get(id) as Row | undefined;
      return r && fromRow(r);
    },
    async delete(id) {
      return del.run(id).changes > 0;
    },
    async listExpired(now, limit) {
      return (expired.all(now, limit) as Row[]).map(fromRow);
    },
    async existing(ids) {
      // One statement for the whole list (SQLite reads the JSON array itself; no limit on parameters).
      const rows = known.all(JSON.stringify(ids)) as { id: string }[];
      return new Set(rows.map((r) => r.id));
    },
  };
}
