// The task runner's transactional outbox: a task write and the callbacks it
// causes commit together, so a crash never loses a callback nor sends one for
// a change that was not stored.
import type Database from "better-sqlite3";
import type { OutboxMessage, TaskOutboxStore, TaskRecord } from "../types.js";
import { INSERT_TASK_SQL, UPDATE_TASK_SQL, taskFromRow, type TaskRow } from "./tasks.js";

interface Row {
  id: string;
  task_id: string;
  seq: number;
  url: string;
  body: string;
  status: OutboxMessage["status"];
  attempts: number;
  next_attempt_time: number;
  last_error: string | null;
  create_time: number;
  update_time: number;
}


function fromRow(r: Row): OutboxMessage {
  return {
    id: r.id,
    taskId: r.task_id,
    seq: r.seq,
    url: r.url,
    body: r.body,
    status: r.status,
    attempts: r.attempts,
    nextAttemptTime: r.next_attempt_time,
    lastError: r.last_error ?? undefined,
    createTime: r.create_time,
    updateTime: r.update_time,
  };
}


export function sqliteTaskOutboxStore(db: Database.Database): TaskOutboxStore {
  const insertTask = db.prepare(INSERT_TASK_SQL);
  const updateTask = db.prepare(UPDATE_TASK_SQL);
  const taskById = db.prepare("SELECT * FROM tasks WHERE id = ?");
  const insertMsg = db.prepare(
    "INSERT INTO task_outbox (id, task_id, seq, url, body, status, attempts, next_attempt_time, last_error, create_time, update_time) " +
      "VALUES (@id, @taskId, @seq, @url, @body, @status, @attempts, @nextAttemptTime, @lastError, @createTime, @updateTime)",
  );
  const due = db.prepare(
    "SELECT o.* FROM task_outbox o WHERE o.status = 'pending' AND o.next_attempt_time <= ? " +
      "AND NOT EXISTS (SELECT 1 FROM task_outbox p WHERE p.task_id = o.task_id AND p.status = 'pending' AND p.seq < o.seq) " +
      "ORDER BY o.next_attempt_time, o.seq LIMIT ?",
  );
  const settle = db.prepare(
    "UPDATE task_outbox SET status = @status, attempts = @attempts, next_attempt_time = @nextAttemptTime, last_error = @lastError, update_time = @updateTime WHERE id = @id",
  );
  const forTask = db.prepare("SELECT * FROM task_outbox WHERE task_id = ? ORDER BY seq");
  const deleteSettled = db.prepare("DELETE FROM task_outbox WHERE rowid IN (SELECT rowid FROM task_outbox WHERE status IN ('delivered', 'dead') AND update_time < ? LIMIT ?)");

  const addMessages = (messages: OutboxMessage[]) => {
    for (const m of messages) insertMsg.run({ ...m, lastError: m.lastError ?? null });
  };
  const insertTx = db.transaction((t: TaskRecord, messages: OutboxMessage[]) => {
    insertTask.run({ id: t.id, kind: t.kind, status: t.status, owner: t.ownerKeyId ?? null, data: JSON.stringify(t.data), create_time: t.createTime, update_time: t.updateTime, version: t.version });
    addMessages(messages);
  });
  const updateTx = db.transaction((id: string, version: number, patch: { status: string; data: unknown }, messages: OutboxMessage[]): TaskRecord | undefined => {
    const info = updateTask.run({ id, version, status: patch.status, data: JSON.stringify(patch.data), now: Date.now() });
    if (info.changes === 0) return undefined;
    addMessages(messages);
    return taskFromRow(taskById.get(id) as TaskRow);
  });

  return {
    async insertTask(task, messages) {
      insertTx(task, messages);
    },
    async updateTask(id, expectedVersion, patch, messages) {
      return updateTx(id, expectedVersion, patch, messages);
    },
    async due(now, limit) {
      return (due.all(now, limit) as Row[]).map(fromRow);
    },
    async settle(id, p) {
      settle.run({ id, status: p.status, attempts: p.attempts, nextAttemptTime: p.nextAttemptTime, lastError: p.lastError ?? null, updateTime: p.updateTime });
    },
    async listForTask(taskId) {
      return (forTask.all(taskId) as Row[]).map(fromRow);
    },
    async deleteSettledBefore(time, limit) {
      return deleteSettled.run(time, limit).changes;
    },
  };
}
