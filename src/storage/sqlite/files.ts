import type Database from "better-sqlite3";
import type { FileRecord, FileStore } from "../types.js";

interface Row {
  id: string;
  mime_type: string;
  size: number;
  create_time: number;
  expire_time: number | null;
  owner_key_id: string | null;
  kind: string;
}

function fromRow(r: Row): FileRecord {
  return {
    id: r.id,
    mimeType: r.mime_type,
    size: r.size,
    createTime: r.create_time,
    expireTime: r.expire_time ?? undefined,
    ownerKeyId: r.owner_key_id ?? undefined,
    kind: r.kind,
  };
}

export function sqliteFileStore(db: Database.Database): FileStore {
  const insert = db.prepare(
    "INSERT INTO files (id, mime_type, size, create_time, expire_time, owner_key_id, kind) VALUES (@id, @mimeType, @size, @createTime, @expireTime, @ownerKeyId, @kind)",
  );
  const byId = db.prepare("SELECT * FROM files WHERE id = ?");
  const del = db.prepare("DELETE FROM files WHERE id = ?");
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
  };
}
