// The task runner's transactional outbox on PostgreSQL: a task write and the
// callbacks it causes commit in one transaction.
import type { OutboxMessage, TaskOutboxStore } from "../types.js";
import { withTx, Rollback, type Db, type Queryable } from "./db.js";
import { checkRoom, insertTask, lockQueue, updateTask } from "./tasks.js";
import { outboxFromRow as fromRow, type OutboxRow as Row } from "../rows.js";

async function addMessages(q: Queryable, messages: OutboxMessage[]): Promise<void> {
  if (!messages.length) return;
  const col = <K extends keyof OutboxMessage>(k: K) => messages.map((m) => m[k] ?? null);
  await q.query(
    "INSERT INTO task_outbox (id, task_id, seq, url, body, status, attempts, next_attempt_time, last_error, create_time, update_time) " +
      "SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int8[], $9::text[], $10::int8[], $11::int8[])",
    [col("id"), col("taskId"), col("seq"), col("url"), col("body"), col("status"), col("attempts"), col("nextAttemptTime"), col("lastError"), col("createTime"), col("updateTime")],
  );
}

export function pgTaskOutboxStore(db: Db): TaskOutboxStore {
  return {
    async insertTask(task, messages, room) {
      await withTx(db, async (c) => {
        if (room) {
          // An admission: counted and written under the queue's lock, so instances cannot overfill it together.
          await lockQueue(c, task.queue ?? "");
          await checkRoom(c, task.queue ?? "", room);
        }
        await insertTask(c, task);
        await addMessages(c, messages);
      });
    },
    async updateTask(id, expectedVersion, patch, messages, room) {
      // Nothing else to write: one statement, no transaction.
      if (!room && messages.length === 0) return updateTask(db, id, expectedVersion, patch);
      try {
        return await withTx(db, async (c) => {
          if (room) {
            const queue = patch.queue ?? (await c.query<{ queue: string }>("SELECT queue FROM tasks WHERE id = $1", [id])).rows[0]?.queue;
            if (queue === undefined) throw new Rollback();
            await lockQueue(c, queue);
            await checkRoom(c, queue, room);
          }
          const updated = await updateTask(c, id, expectedVersion, patch);
          if (!updated) throw new Rollback();
          await addMessages(c, messages);
          return updated;
        });
      } catch (err) {
        if (err instanceof Rollback) return undefined;
        throw err;
      }
    },
    async due(now, limit) {
      const r = await db.query<Row>(
        "SELECT o.* FROM task_outbox o WHERE o.status = 'pending' AND o.next_attempt_time <= $1 " +
          "AND NOT EXISTS (SELECT 1 FROM task_outbox p WHERE p.task_id = o.task_id AND p.status = 'pending' AND p.seq < o.seq) " +
          "ORDER BY o.next_attempt_time, o.seq, o.id LIMIT $2",
        [now, limit],
      );
      return r.rows.map(fromRow);
    },
    async claimDue(owner, now, limit, claimMs) {
      // SKIP LOCKED: a message another worker is claiming right now is left to it.
      const r = await db.query<Row>(
        "UPDATE task_outbox t SET claim_owner = $2, claim_until = $4 FROM (" +
          "SELECT o.id FROM task_outbox o WHERE o.status = 'pending' AND o.next_attempt_time <= $1 AND (o.claim_until <= $1 OR o.claim_owner = $2) " +
          "AND NOT EXISTS (SELECT 1 FROM task_outbox p WHERE p.task_id = o.task_id AND p.status = 'pending' AND p.seq < o.seq) " +
          "ORDER BY o.next_attempt_time, o.seq, o.id LIMIT $3 FOR UPDATE SKIP LOCKED" +
          ") picked WHERE t.id = picked.id RETURNING t.*",
        [now, owner, limit, now + claimMs],
      );
      return r.rows.sort((a, b) => a.next_attempt_time - b.next_attempt_time || a.seq - b.seq || (a.id < b.id ? -1 : 1)).map(fromRow);
    },
    async settle(id, p) {
      await db.query(
        "UPDATE task_outbox SET status = $2, attempts = $3, next_attempt_time = $4, last_error = $5, update_time = $6, claim_owner = NULL, claim_until = 0 " +
          "WHERE id = $1 AND ($7::text IS NULL OR claim_owner = $7)",
        [id, p.status, p.attempts, p.nextAttemptTime, p.lastError ?? null, p.updateTime, p.owner ?? null],
      );
    },
    async listForTask(taskId) {
      return (await db.query<Row>("SELECT * FROM task_outbox WHERE task_id = $1 ORDER BY seq", [taskId])).rows.map(fromRow);
    },
    async deleteSettledBefore(time, limit) {
      const r = await db.query("DELETE FROM task_outbox WHERE id IN (SELECT id FROM task_outbox WHERE status IN ('delivered', 'dead') AND update_time < $1 ORDER BY update_time LIMIT $2)", [
        time,
        limit,
      ]);
      return r.rowCount ?? 0;
    },
  };
}
