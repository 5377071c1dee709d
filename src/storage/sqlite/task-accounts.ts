// Mutable state of task-runner accounts (admin overrides, last error), keyed by kind and id.
import type Database from "better-sqlite3";
import type { TaskAccountStore } from "../types.js";
import { taskAccountFromRow as fromRow, type TaskAccountRow as Row } from "../rows.js";

export function sqliteTaskAccountStore(db: Database.Database): TaskAccountStore {
  const list = db.prepare("SELECT * FROM task_accounts WHERE kind = ? ORDER BY id");
  const get = db.prepare("SELECT * FROM task_accounts WHERE kind = ? AND id = ?");
  const put = db.prepare(
    "INSERT INTO task_accounts (kind, id, data, update_time) VALUES (@kind, @id, @data, @updateTime) " +
      "ON CONFLICT (kind, id) DO UPDATE SET data = excluded.data, update_time = excluded.update_time",
  );
  return {
    async list(kind) {
      return (list.all(kind) as Row[]).map(fromRow);
    },
    async get(kind, id) {
      const r = get.get(kind, id) as Row | undefined;
      return r && fromRow(r);
    },
    async put(rec) {
      put.run({ kind: rec.kind, id: rec.id, data: JSON.stringify(rec.data), updateTime: rec.updateTime });
    },
  };
}
