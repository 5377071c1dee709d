import type { StoredResponseStore } from "../types.js";
import type { Db } from "./db.js";
import { storedResponseColumns, storedResponseFromRow as fromRow, type StoredResponseRow as Row } from "../rows.js";

export function pgStoredResponseStore(db: Db): StoredResponseStore {
  return {
    async put(rec) {
      // A row of another key is never replaced: the update's condition fails and nothing changes.
      const r = await db.query(
        "INSERT INTO stored_responses (id, owner_key_id, model, status, previous_response_id, create_time, expire_time, response, input, context) " +
          "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) " +
          "ON CONFLICT (id) DO UPDATE SET model = EXCLUDED.model, status = EXCLUDED.status, previous_response_id = EXCLUDED.previous_response_id, create_time = EXCLUDED.create_time, " +
          "expire_time = EXCLUDED.expire_time, response = EXCLUDED.response, input = EXCLUDED.input, context = EXCLUDED.context WHERE stored_responses.owner_key_id = EXCLUDED.owner_key_id",
        [rec.id, rec.ownerKeyId, rec.model, rec.status, rec.previousResponseId, rec.createTime, rec.expireTime, rec.response, rec.input, rec.context],
      );
      return (r.rowCount ?? 0) > 0;
    },
    async get(k, docs) {
      const r = await db.query<Row>(`SELECT ${storedResponseColumns(docs)} FROM stored_responses WHERE id = $1 AND owner_key_id = $2 AND expire_time > $3`, [k.id, k.ownerKeyId, k.now]);
      return r.rows[0] && fromRow(r.rows[0]);
    },
    async delete(k) {
      const r = await db.query("DELETE FROM stored_responses WHERE id = $1 AND owner_key_id = $2 AND expire_time > $3", [k.id, k.ownerKeyId, k.now]);
      return (r.rowCount ?? 0) > 0;
    },
    async deleteExpired(now, limit) {
      const r = await db.query("DELETE FROM stored_responses WHERE id IN (SELECT id FROM stored_responses WHERE expire_time <= $1 ORDER BY expire_time LIMIT $2)", [now, limit]);
      return r.rowCount ?? 0;
    },
  };
}
