import type Database from "better-sqlite3";
import type { StoredResponseStore } from "../types.js";
import { storedResponseColumns, storedResponseFromRow as fromRow, type StoredResponseRow as Row } from "../rows.js";

export function sqliteStoredResponseStore(db: Database.Database): StoredResponseStore {
  // A row of another key is never replaced: the update's condition fails and nothing changes.
  const put = db.prepare(
    "INSERT INTO stored_responses (id, owner_key_id, model, status, previous_response_id, create_time, expire_time, response, input, context) " +
      "VALUES (@id, @ownerKeyId, @model, @status, @previousResponseId, @createTime, @expireTime, @response, @input, @context) " +
      "ON CONFLICT (id) DO UPDATE SET model = excluded.model, status = excluded.status, previous_response_id = excluded.previous_response_id, create_time = excluded.create_time, " +
      "expire_time = excluded.expire_time, response = excluded.response, input = excluded.input, context = excluded.context WHERE stored_responses.owner_key_id = excluded.owner_key_id",
  );
  const reads = new Map<string, Database.Statement>();
  const read = (docs: readonly string[]) => {
    const cols = storedResponseColumns(docs as never);
    let stmt = reads.get(cols);
    if (!stmt) reads.set(cols, (stmt = db.prepare(`SELECT ${cols} FROM stored_responses WHERE id = ? AND owner_key_id = ? AND expire_time > ?`)));
    return stmt;
  };
  const del = db.prepare("DELETE FROM stored_responses WHERE id = ? AND owner_key_id = ? AND expire_time > ?");
  const delExpired = db.prepare("DELETE FROM stored_responses WHERE id IN (SELECT id FROM stored_responses WHERE expire_time <= ? ORDER BY expire_time LIMIT ?)");
  return {
    async put(rec) {
      return put.run(rec).changes > 0;
    },
    async get(k, docs) {
      const r = read(docs).get(k.id, k.ownerKeyId, k.now) as Row | undefined;
      return r && fromRow(r);
    },
    async delete(k) {
      return del.run(k.id, k.ownerKeyId, k.now).changes > 0;
    },
    async deleteExpired(now, limit) {
      return delExpired.run(now, limit).changes;
    },
  };
}
