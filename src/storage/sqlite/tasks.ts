import type Database from "better-sqlite3";
import type { TaskRecord, TaskStore } from "../types.js";

export interface TaskRow {
  id: string;
  kind: string;
  status: string;
  owner_key_id: string | null;
  data: string;
  create_time: number;
  update_time: number;
  version: number;
}

export function taskFromRow(r: TaskRow): TaskRecord {
  return {
    id: r.id,
    kind: r.kind,
    status: r.status,
    ownerKeyId: r.owner_key_id ?? undefined,
    data: JSON.parse(r.data),
    createTime: r.create_time,
    updateTime: r.update_time,
    version: r.version,
  };
}

export const INSERT_TASK_SQL =
  "INSERT INTO tasks (id, kind, status, owner_key_id, data, create_time, update_time, version) VALUES (@id, @kind, @status, @owner, @data, @create_time, @update_time, @version)";
export const UPDATE_TASK_SQL = "UPDATE tasks SET status = @status, data = @data, update_time = @now, version = version + 1 WHERE id = @id AND version = @version";

export function sqliteTaskStore(db: Database.Database): TaskStore {
  const insert = db.prepare(INSERT_TASK_SQL);
  const byId = db.prepare("SELECT * FROM tasks WHERE id = ?");
  const update = db.prepare(UPDATE_TASK_SQL);
  const del = db.prepare("DELETE FROM tasks WHERE id = ?");
  return {
    async insert(t) {
      insert.run({ id: t.id, kind: t.kind, status: t.status, owner: t.ownerKeyId ?? null, data: JSON.stringify(t.data), create_time: t.createTime, update_time: t.updateTime, version: t.version });
    },
    async get(id) {
      const r = byId.get(id) as TaskRow | undefined;
      return r && taskFromRow(r);
    },
    async getMany(ids) {
      if (ids.length === 0) return [];
      const rows = db.prepare(`SELECT * FROM tasks WHERE id IN (${ids.map(() => "?").join(",")})`).all(...ids) as TaskRow[];
      const byKey = new Map(rows.map((r) => [r.id, taskFromRow(r)]));
      return ids.flatMap((id) => {
        const t = byKey.get(id);
        return t ? [t] : [];
      });
    },
    async update(id, expectedVersion, patch) {
      const info = update.run({ id, version: expectedVersion, status: patch.status, data: JSON.stringify(patch.data), now: Date.now() });
      if (info.changes === 0) return undefined;
      return taskFromRow(byId.get(id) as TaskRow);
    },
    async listByStatus(kind, statuses, limit = 1000) {
      if (statuses.length === 0) return [];
      const rows = db
        .prepare(`SELECT * FROM tasks WHERE kind = ? AND status IN (${statuses.map(() => "?").join(",")}) ORDER BY create_time LIMIT ?`)
        .all(kind, ...statuses, limit) as TaskRow[];
      return rows.map(taskFromRow);
    },
    async list(kind, opts = {}) {
      const desc = opts.order !== "asc";
      const where = ["kind = ?"];
      const params: unknown[] = [kind];
      if (opts.ownerKeyId) {
        where.push("owner_key_id = ?");
        params.push(opts.ownerKeyId);
      }
      if (opts.after) {
        const anchor = byId.get(opts.after) as TaskRow | undefined;
        if (anchor) {
          where.push(desc ? "(create_time < ? OR (create_time = ? AND id < ?))" : "(create_time > ? OR (create_time = ? AND id > ?))");
          params.push(anchor.create_time, anchor.create_time, anchor.id);
        }
      }
      params.push(opts.limit ?? 100);
      const rows = db.prepare(`SELECT * FROM tasks WHERE ${where.join(" AND ")} ORDER BY create_time ${desc ? "DESC" : "ASC"}, id ${desc ? "DESC" : "ASC"} LIMIT ?`).all(...params) as TaskRow[];
      return rows.map(taskFromRow);
    },
    async delete(id) {
      return del.run(id).changes > 0;
    },
  };
}
