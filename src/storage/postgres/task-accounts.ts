// Mutable state of task-runner accounts (admin overrides, last error), keyed by kind and id.
import type { TaskAccountStore } from "../types.js";
import type { Db } from "./db.js";
import { taskAccountFromRow as fromRow, type TaskAccountRow as Row } from "../rows.js";

export function pgTaskAccountStore(db: Db): TaskAccountStore {
  return {
    async list(kind) {
      return (await db.query<Row>("SELECT * FROM task_accounts WHERE kind = $1 ORDER BY id", [kind])).rows.map(fromRow);
    },
    async get(kind, id) {
      const r = (await db.query<Row>("SELECT * FROM task_accounts WHERE kind = $1 AND id = $2", [kind, id])).rows[0];
      return r && fromRow(r);
    },
    async put(rec) {
      await db.query("INSERT INTO task_accounts (kind, id, data, update_time) VALUES ($1, $2, $3, $4) ON CONFLICT (kind, id) DO UPDATE SET data = excluded.data, update_time = excluded.update_time", [
        rec.kind,
        rec.id,
        JSON.stringify(rec.data),
        rec.updateTime,
      ]);
    },
  };
}
