import type Database from "better-sqlite3";
import type { FileStore } from "../types.js";
import { fileFromRow as fromRow, type FileRow as Row } from "../rows.js";

export function sqliteFileStore(db: Database.Database): FileStore {
  const insert = db.prepare(
    "INSERT INTO files (id, mime_type, size, create_time, expire_time, owner_key_id, kind, filename) VALUES (@id, @mimeType, @size, @createTime, @expireTime, @ownerKeyId, @kind, @filename)",
  );
  // Newest first (create_time, then id, descending); `after` resumes past a
  // file, `before` reads the files just newer than one (ascending, then reversed).
  const page = (owner: boolean, cursor: "" | "after" | "before") =>
    db.prepare(
      `SELECT * FROM files WHERE kind = @kind${owner ? " AND owner_key_id = @ownerKeyId" : ""}` +
        (cursor === "after" ? " AND (create_time < @t OR (create_time = @t AND id < @id))" : cursor === "before" ? " AND (create_time > @t OR (create_time = @t AND id > @id))" : "") +
        (cursor === "before" ? " ORDER BY create_time ASC, id ASC" : " ORDER BY create_time DESC, id DESC") +
        " LIMIT @limit",
    );
  const total = db.prepare("SELECT COALESCE(SUM(size), 0) AS n FROM files WHERE kind = ? AND owner_key_id = ? AND (expire_time IS NULL OR expire_time > ?)");
  const pages = new Map<string, Database.Statement>();
  for (const owner of [false, true]) for (const c of ["", "after", "before"] as const) pages.set(`${owner}${c}`, page(owner, c));
  const byId = db.prepare("SELECT * FROM files WHERE id = ?");
  const del = db.prepare("DELETE FROM files WHERE id = ?");
  const known = db.prepare("SELECT id FROM files WHERE id IN (SELECT value FROM json_each(?))");
  const expired = db.prepare("SELECT * FROM files WHERE expire_time IS NOT NULL AND expire_time <= ? ORDER BY expire_time LIMIT ?");
  return {
    async insert(f) {
      insert.run({ ...f, expireTime: f.expireTime ?? null, ownerKeyId: f.ownerKeyId ?? null, filename: f.filename ?? null });
    },
    async get(id) {
      const r = byId.get(id) as Row | undefined;
      return r && fromRow(r);
    },
    async delete(id) {
      return del.run(id).changes > 0;
    },
    async list(q) {
      const cursor = q.before ? "before" : q.after ? "after" : "";
      const at = q.before ?? q.after;
      const stmt = pages.get(`${q.ownerKeyId !== undefined}${cursor}`)!;
      const rows = stmt.all({ kind: q.kind, limit: q.limit, ...(q.ownerKeyId !== undefined ? { ownerKeyId: q.ownerKeyId } : {}), ...(at ? { t: at.createTime, id: at.id } : {}) }) as Row[];
      if (q.before) rows.reverse();
      return rows.map(fromRow);
    },
    async totalSize(q) {
      return Number((total.get(q.kind, q.ownerKeyId, q.now) as { n: number }).n);
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
