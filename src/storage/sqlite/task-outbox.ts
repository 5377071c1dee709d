// The task runner's transactional outbox: a task write and the callbacks it
// causes commit together, so a crash never loses a callback nor sends one for
// a change that was not stored.
import type Database from "better-sqlite3";
import type { OutboxMessage, QueueRoom, TaskOutboxStore, TaskPatch, TaskRecord } from "../types.js";
import { taskWrites } from "./tasks.js";
import { outboxFromRow as fromRow, type OutboxRow as Row } from "../rows.js";

export function sqliteTaskOutboxStore(db: Database.Database): TaskOutboxStore {
  const tasks = taskWrites(db);
  const insertMsg = db.prepare(
    "INSERT INTO task_outbox (id, task_id, seq, url, body, status, attempts, next_attempt_time, last_error, create_time, update_time) " +
      "VALUES (@id, @taskId, @seq, @url, @body, @status, @attempts, @nextAttemptTime, @lastError, @createTime, @updateTime)",
  );
  const dueSql = (claimable: string) =>
    `SELECT o.* FROM task_outbox o WHERE o.status = 'pending' AND o.next_attempt_time <= @now ${claimable}` +
    "AND NOT EXISTS (SELECT 1 FROM task_outbox p WHERE p.task_id = o.task_id AND p.status = 'pending' AND p.seq < o.seq) " +
    "ORDER BY o.next_attempt_time, o.seq LIMIT @limit";
  const due = db.prepare(dueSql(""));
  const claimable = db.prepare(dueSql("AND (o.claim_until <= @now OR o.claim_owner = @owner) "));
  const claimOne = db.prepare("UPDATE task_outbox SET claim_owner = ?, claim_until = ? WHERE id = ?");
  const settle = db.prepare(
    "UPDATE task_outbox SET status = @status, attempts = @attempts, next_attempt_time = @nextAttemptTime, last_error = @lastError, update_time = @updateTime, " +
      "claim_owner = NULL, claim_until = 0 WHERE id = @id AND (@owner IS NULL OR claim_owner = @owner)",
  );
  const forTask = db.prepare("SELECT * FROM task_outbox WHERE task_id = ? ORDER BY seq");
  const deleteSettled = db.prepare("DELETE FROM task_outbox WHERE rowid IN (SELECT rowid FROM task_outbox WHERE status IN ('delivered', 'dead') AND update_time < ? LIMIT ?)");

  const addMessages = (messages: OutboxMessage[]) => {
    for (const m of messages) insertMsg.run({ ...m, lastError: m.lastError ?? null });
  };
  const insertTx = db.transaction((t: TaskRecord, messages: OutboxMessage[], room?: QueueRoom) => {
    tasks.insert(t, room);
    addMessages(messages);
  });
  const updateTx = db.transaction((id: string, version: number, patch: TaskPatch, messages: OutboxMessage[], room?: QueueRoom): TaskRecord | undefined => {
    const updated = tasks.update(id, version, patch, room);
    if (updated) addMessages(messages);
    return updated;
  });
  const claimTx = db.transaction((owner: string, now: number, limit: number, claimMs: number) => {
    const rows = claimable.all({ now, limit, owner }) as Row[];
    for (const r of rows) claimOne.run(owner, now + claimMs, r.id);
    return rows.map(fromRow);
  });

  return {
    async insertTask(task, messages, room) {
      // An admission (room) counts the queue and writes in one IMMEDIATE transaction.
      if (room) insertTx.immediate(task, messages, room);
      else insertTx(task, messages);
    },
    async updateTask(id, expectedVersion, patch, messages, room) {
      return room ? updateTx.immediate(id, expectedVersion, patch, messages, room) : updateTx(id, expectedVersion, patch, messages);
    },
    async due(now, limit) {
      return (due.all({ now, limit }) as Row[]).map(fromRow);
    },
    async claimDue(owner, now, limit, claimMs) {
      return claimTx.immediate(owner, now, limit, claimMs);
    },
    async settle(id, p) {
      settle.run({ id, status: p.status, attempts: p.attempts, nextAttemptTime: p.nextAttemptTime, lastError: p.lastError ?? null, updateTime: p.updateTime, owner: p.owner ?? null });
    },
    async listForTask(taskId) {
      return (forTask.all(taskId) as Row[]).map(fromRow);
    },
    async deleteSettledBefore(time, limit) {
      return deleteSettled.run(time, limit).changes;
    },
  };
}
