import type { FileStore } from "../types.js";
import type { Db } from "./db.js";
import { fileFromRow as fromRow, type FileRow as Row } from "../rows.js";

export function pgFileStore(db: Db): FileStore {
  return {
    async insert(f) {
      await db.query("INSERT INTO files (id, mime_type, size, create_time, expire_time, owner_key_id, kind, filename) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", [
        f.id,
        f.mimeType,
        f.size,
        f.createTime,
        f.expireTime ?? null,
        f.ownerKeyId ?? null,
        f.kind,
        f.filename ?? null,
      ]);
    },
    async get(id) {
      const r = (await db.query<Row>("SELECT * FROM files WHERE id = $1", [id])).rows[0];
      return r && fromRow(r);
    },
    async delete(id) {
      return ((await db.query("DELETE FROM files WHERE id = $1", [id])).rowCount ?? 0) > 0;
    },
    async list(q) {
      // Newest first; the cursor is the last file of the page before (create_time, then id, descending).
      const params: unknown[] = [q.kind, q.limit];
      let where = "kind = $1";
      if (q.ownerKeyId !== undefined) {
        params.push(q.ownerKeyId);
        where += ` AND owner_key_id = $${params.length}`;
      }
      const at = q.before ?? q.after;
      if (at) {
        params.push(at.createTime, at.id);
        where += ` AND (create_time, id) ${q.before ? ">" : "<"} ($${params.length - 1}, $${params.length})`;
      }
      const order = q.before ? "ASC" : "DESC";
      const r = await db.query<Row>(`SELECT * FROM files WHERE ${where} ORDER BY create_time ${order}, id ${order} LIMIT $2`, params);
      if (q.before) r.rows.reverse();
      return r.rows.map(fromRow);
    },
    async totalSize(q) {
      const r = await db.query<{ n: string | number }>("SELECT COALESCE(SUM(size), 0) AS n FROM files WHERE kind = $1 AND owner_key_id = $2 AND (expire_time IS NULL OR expire_time > $3)", [
        q.kind,
        q.ownerKeyId,
        q.now,
      ]);
      return Number(r.rows[0]!.n);
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
