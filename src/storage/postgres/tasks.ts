import { NoRoomError, TASK_RUNNING, TASK_WAITING, type QueueRoom, type TaskPatch, type TaskRecord, type TaskStore } from "../types.js";
import { withTx, type Db, type Queryable } from "./db.js";
import { taskFromRow, type TaskRow } from "../rows.js";

/** Unfinished statuses that take room in a queue (MODAL does not). */
const QUEUED = [TASK_WAITING, ...TASK_RUNNING];
/** First key of the advisory locks that serialize a queue's claims and admissions (the second is hashtext(queue)). */
const QUEUE_LOCK = 0x6f67_7131;

/** Serializes claims and admissions of one queue until the transaction ends. */
export async function lockQueue(c: Queryable, queue: string): Promise<void> {
  await c.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [QUEUE_LOCK, queue]);
}

/** Under lockQueue: NoRoomError unless the queue holds fewer than concurrency + queueSize unfinished or leased tasks. */
export async function checkRoom(c: Queryable, queue: string, room: QueueRoom): Promise<void> {
  const r = await c.query<{ n: number }>(
    "SELECT (SELECT count(*) FROM tasks WHERE queue = $1 AND status = ANY($2::text[])) + " +
      "(SELECT count(*) FROM tasks WHERE queue = $1 AND lease_until > $3 AND NOT (status = ANY($2::text[]))) AS n",
    [queue, QUEUED, room.now],
  );
  if (r.rows[0]!.n >= room.concurrency + room.queueSize) throw new NoRoomError(`queue ${queue} is full`);
}

/** Inserts a task (used by the task store and the outbox store). */
export async function insertTask(q: Queryable, t: TaskRecord): Promise<void> {
  // queue_order (the place in the waiting line) comes from a sequence.
  await q.query("INSERT INTO tasks (id, kind, status, owner_key_id, data, create_time, update_time, version, queue) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", [
    t.id,
    t.kind,
    t.status,
    t.ownerKeyId ?? null,
    JSON.stringify(t.data),
    t.createTime,
    t.updateTime,
    t.version,
    t.queue ?? "",
  ]);
}

/** The optimistic-concurrency update; undefined when the version did not match. */
export async function updateTask(q: Queryable, id: string, expectedVersion: number, patch: TaskPatch): Promise<TaskRecord | undefined> {
  const r = await q.query<TaskRow>(
    "UPDATE tasks SET status = $3, data = $4, update_time = $5, version = version + 1, " +
      "queue = COALESCE($6, queue), queue_order = CASE WHEN $6::text IS NULL THEN queue_order ELSE nextval('tasks_queue_order') END, " +
      "lease_owner = CASE WHEN $7 THEN NULL ELSE lease_owner END, lease_until = CASE WHEN $7 THEN 0 ELSE lease_until END " +
      "WHERE id = $1 AND version = $2 RETURNING *",
    [id, expectedVersion, patch.status, JSON.stringify(patch.data), Date.now(), patch.queue ?? null, !!patch.releaseLease],
  );
  return r.rows[0] && taskFromRow(r.rows[0]);
}

export function pgTaskStore(db: Db): TaskStore {
  const byId = async (id: string) => (await db.query<TaskRow>("SELECT * FROM tasks WHERE id = $1", [id])).rows[0];
  return {
    insert(t) {
      return insertTask(db, t);
    },
    async get(id) {
      const r = await byId(id);
      return r && taskFromRow(r);
    },
    async getMany(ids) {
      if (ids.length === 0) return [];
      const rows = (await db.query<TaskRow>("SELECT * FROM tasks WHERE id = ANY($1::text[])", [ids])).rows;
      const byKey = new Map(rows.map((r) => [r.id, taskFromRow(r)]));
      return ids.flatMap((id) => {
        const t = byKey.get(id);
        return t ? [t] : [];
      });
    },
    update(id, expectedVersion, patch) {
      return updateTask(db, id, expectedVersion, patch);
    },
    async listByStatus(kind, statuses, limit = 1000) {
      if (statuses.length === 0) return [];
      const r = await db.query<TaskRow>("SELECT * FROM tasks WHERE kind = $1 AND status = ANY($2::text[]) ORDER BY create_time, id LIMIT $3", [kind, statuses, limit]);
      return r.rows.map(taskFromRow);
    },
    async list(kind, opts = {}) {
      const desc = opts.order !== "asc";
      const where = ["kind = $1"];
      const args: unknown[] = [kind];
      if (opts.ownerKeyId) {
        args.push(opts.ownerKeyId);
        where.push(`owner_key_id = $${args.length}`);
      }
      if (opts.after) {
        // An unknown cursor is ignored, as in SQLite.
        const anchor = await byId(opts.after);
        if (anchor) {
          args.push(anchor.create_time, anchor.id);
          where.push(`(create_time, id) ${desc ? "<" : ">"} ($${args.length - 1}, $${args.length})`);
        }
      }
      args.push(opts.limit ?? 100);
      const dir = desc ? "DESC" : "ASC";
      const r = await db.query<TaskRow>(`SELECT * FROM tasks WHERE ${where.join(" AND ")} ORDER BY create_time ${dir}, id ${dir} LIMIT $${args.length}`, args);
      return r.rows.map(taskFromRow);
    },
    async delete(id) {
      return ((await db.query("DELETE FROM tasks WHERE id = $1", [id])).rowCount ?? 0) > 0;
    },
    claim(queue, o) {
      return withTx(db, async (c) => {
        // The lock first: the statement's snapshot must see every claim committed before it.
        await lockQueue(c, queue);
        // One statement: slots held, the free slots' worth leased, and the unleased count before the lease
        // (the sub-statements share one snapshot). It yields one row without task columns when nothing is claimed.
        const r = await c.query<TaskRow & { held_n: number; unleased_n: number }>(
          "WITH held AS (SELECT count(*) AS n FROM tasks WHERE queue = $3 AND lease_until > $5), " +
            "unleased AS (SELECT count(*) AS n FROM tasks WHERE queue = $3 AND status = ANY($4::text[]) AND lease_until <= $5), " +
            "picked AS (SELECT id FROM tasks WHERE queue = $3 AND status = ANY($4::text[]) AND lease_until <= $5 " +
            `ORDER BY status = '${TASK_WAITING}', queue_order LIMIT GREATEST(0, $6::int - (SELECT n FROM held)) FOR UPDATE SKIP LOCKED), ` +
            "claimed AS (UPDATE tasks SET lease_owner = $1, lease_until = $2, version = version + 1 WHERE id IN (SELECT id FROM picked) RETURNING *) " +
            "SELECT held.n AS held_n, unleased.n AS unleased_n, claimed.* FROM held CROSS JOIN unleased LEFT JOIN claimed ON TRUE",
          [o.owner, o.now + o.leaseMs, queue, QUEUED, o.now, o.concurrency],
        );
        const first = r.rows[0]!;
        const rank = (t: TaskRow) => (t.status === TASK_WAITING ? 1 : 0);
        const claimed = r.rows
          .filter((x) => x.id !== null)
          .sort((a, b) => rank(a) - rank(b) || a.queue_order - b.queue_order)
          .map(taskFromRow);
        return { claimed, running: first.held_n + claimed.length, waiting: first.unleased_n - claimed.length };
      });
    },
    async renewLeases(owner, ids, now, leaseMs) {
      if (ids.length === 0) return [];
      const r = await db.query<{ id: string }>("UPDATE tasks SET lease_until = $1 WHERE lease_owner = $2 AND lease_until > $3 AND status = ANY($4::text[]) AND id = ANY($5::text[]) RETURNING id", [
        now + leaseMs,
        owner,
        now,
        QUEUED,
        ids,
      ]);
      return r.rows.map((x) => x.id);
    },
    async releaseLeases(owner, ids) {
      if (ids && ids.length === 0) return 0;
      const r = ids
        ? await db.query("UPDATE tasks SET lease_owner = NULL, lease_until = 0 WHERE lease_owner = $1 AND id = ANY($2::text[])", [owner, ids])
        : await db.query("UPDATE tasks SET lease_owner = NULL, lease_until = 0 WHERE lease_owner = $1", [owner]);
      return r.rowCount ?? 0;
    },
    async queuePosition(id, now) {
      const t = await byId(id);
      if (!t || t.status !== TASK_WAITING || t.lease_until > now) return 0;
      const r = await db.query<{ n: number }>("SELECT count(*) AS n FROM tasks WHERE queue = $1 AND status = $2 AND lease_until <= $3 AND queue_order < $4", [
        t.queue,
        TASK_WAITING,
        now,
        t.queue_order,
      ]);
      return r.rows[0]!.n + 1;
    },
  };
}
