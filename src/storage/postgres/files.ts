import type { FileStore } from "../types.js";
import type { Db } from "./db.js";
import { fileFromRow as fromRow, type FileRow as Row } from "../rows.js";

export function pgFileStore(db: Db): FileStore {
  return {
    async insert(f) {
      await db.query("INSERT INTO files (id, mime_type, size, create_time, expire_time, owner_key_id, kind) VALUES ($1, $2, $3, $4, $5, $6, $7)", [
        f.id,
        f.mimeType,
        f.size,
        f.createTime,
        f.expireTime ?? null,
        f.ownerKeyId ?? null,
        f.kind,
      ]);
    },
    async get(id) {
      const r = (await db.query<Row>("SELECT * FROM files WHERE id = $1", [id])).rows[0];
      return r && fromRow(r);
    },
    async delete(id) {
      return ((await db.query("DELETE FROM files WHERE id = $1", [id])).rowCount ?? 0) > 0;
    },
    async listExpired(now, limit) {
      const r = await db.query<Row>("SELECT * FROM files WHERE expire_time IS NOT NULL AND expire_time <= $1 ORDER BY expire_time, id LIMIT $2", [now, limit]);
      return r.rows.map(fromRow);
    },
    async existing(ids) {
      if (!ids.length) return new Set();
      const r = await db.query<{ id: string }>("SELECT id FROM files WHERE id = ANY($1::text[])", [ids]);
      return new Set(r.rows.map((x) => x.id));
    },
  };
}
