// Tasks on SQLite, with the scheduling columns of the task runner: the queue,
// the place in its waiting line (queue_order, from one increasing counter),
// and the lease of the instance running it. Claims and admissions run in
// IMMEDIATE transactions, so they are serialized even between processes
// sharing the file.
import type Database from "better-sqlite3";
import { NoRoomError, TASK_RUNNING, TASK_WAITING, type QueueRoom, type TaskPatch, type TaskRecord, type TaskStore } from "../types.js";
import { taskFromRow, type TaskRow } from "../rows.js";

const list = (xs: readonly string[]) => xs.map((x) => `'${x}'`).join(", ");
/** Unfinished statuses that take room in a queue (MODAL does not). */
const QUEUED = list([TASK_WAITING, ...TASK_RUNNING]);
const NEXT_ORDER = "(SELECT COALESCE(MAX(queue_order), 0) + 1 FROM tasks)";

/** The task writes both stores share (the outbox store wraps them in a transaction with its messages). */
export function taskWrites(db: Database.Database) {
  const insert = db.prepare(
    "INSERT INTO tasks (id, kind, status, owner_key_id, data, create_time, update_time, version, queue, queue_order) " +
      `VALUES (@id, @kind, @status, @owner, @data, @create_time, @update_time, @version, @queue, ${NEXT_ORDER})`,
  );
  const update = db.prepare(
    "UPDATE tasks SET status = @status, data = @data, update_time = @now, version = version + 1, " +
      `queue = COALESCE(@queue, queue), queue_order = CASE WHEN @queue IS NULL THEN queue_order ELSE ${NEXT_ORDER} END, ` +
      "lease_owner = CASE WHEN @release THEN NULL ELSE lease_owner END, lease_until = CASE WHEN @release THEN 0 ELSE lease_until END " +
      "WHERE id = @id AND version = @version",
  );
  const byId = db.prepare("SELECT * FROM tasks WHERE id = ?");
  const queueOf = db.prepare("SELECT queue FROM tasks WHERE id = ?").pluck();
  const occupied = db
    .prepare(
      `SELECT (SELECT count(*) FROM tasks WHERE queue = @queue AND status IN (${QUEUED})) + ` +
        `(SELECT count(*) FROM tasks WHERE queue = @queue AND lease_until > @now AND status NOT IN (${QUEUED}))`,
    )
    .pluck();
  const checkRoom = (queue: string, room: QueueRoom) => {
    if ((occupied.get({ queue, now: room.now }) as number) >= room.concurrency + room.queueSize) throw new NoRoomError(`queue ${queue} is full`);
  };
  return {
    get: (id: string) => byId.get(id) as TaskRow | undefined,
    insert(t: TaskRecord, room?: QueueRoom) {
      if (room) checkRoom(t.queue ?? "", room);
      insert.run({
        id: t.id,
        kind: t.kind,
        status: t.status,
        owner: t.ownerKeyId ?? null,
        data: JSON.stringify(t.data),
        create_time: t.createTime,
        update_time: t.updateTime,
        version: t.version,
        queue: t.queue ?? "",
      });
    },
    update(id: string, version: number, patch: TaskPatch, room?: QueueRoom): TaskRecord | undefined {
      if (room) {
        const queue = patch.queue ?? (queueOf.get(id) as string | undefined);
        if (queue === undefined) return undefined;
        checkRoom(queue, room);
      }
      const info = update.run({ id, version, status: patch.status, data: JSON.stringify(patch.data), now: Date.now(), queue: patch.queue ?? null, release: patch.releaseLease ? 1 : 0 });
      if (info.changes === 0) return undefined;
      return taskFromRow(byId.get(id) as TaskRow);
    },
  };
}

export function sqliteTaskStore(db: Database.Database): TaskStore {
  const w = taskWrites(db);
  const byId = db.prepare("SELECT * FROM tasks WHERE id = ?");
  const del = db.prepare("DELETE FROM tasks WHERE id = ?");
  const holders = db.prepare("SELECT count(*) FROM tasks WHERE queue = ? AND lease_until > ?").pluck();
  const candidates = db.prepare(`SELECT id FROM tasks WHERE queue = ? AND status IN (${QUEUED}) AND lease_until <= ? ORDER BY status = '${TASK_WAITING}', queue_order LIMIT ?`).pluck();
  const lease = db.prepare("UPDATE tasks SET lease_owner = ?, lease_until = ?, version = version + 1 WHERE id = ?");
  const unleased = db.prepare(`SELECT count(*) FROM tasks WHERE queue = ? AND status IN (${QUEUED}) AND lease_until <= ?`).pluck();
  const ahead = db.prepare(`SELECT count(*) FROM tasks WHERE queue = ? AND status = '${TASK_WAITING}' AND lease_until <= ? AND queue_order < ?`).pluck();
  const releaseAll = db.prepare("UPDATE tasks SET lease_owner = NULL, lease_until = 0 WHERE lease_owner = ?");

  const claimTx = db.transaction((queue: string, o: { owner: string; now: number; leaseMs: number; concurrency: number }) => {
    const held = holders.get(queue, o.now) as number;
    const free = Math.max(0, o.concurrency - held);
    const ids = free > 0 ? (candidates.all(queue, o.now, free) as string[]) : [];
    for (const id of ids) lease.run(o.owner, o.now + o.leaseMs, id);
    const claimed = ids.map((id) => taskFromRow(byId.get(id) as TaskRow));
    return { claimed, running: held + claimed.length, waiting: unleased.get(queue, o.now) as number };
  });

  return {
    async insert(t) {
      w.insert(t);
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
      return w.update(id, expectedVersion, patch);
    },
    async listByStatus(kind, statuses, limit = 1000) {
      if (statuses.length === 0) return [];
      const rows = db.prepare(`SELECT * FROM tasks WHERE kind = ? AND status IN (${statuses.map(() => "?").join(",")}) ORDER BY create_time LIMIT ?`).all(kind, ...statuses, limit) as TaskRow[];
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
    async claim(queue, opts) {
      return claimTx.immediate(queue, opts);
    },
    async renewLeases(owner, ids, now, leaseMs) {
      if (ids.length === 0) return [];
      return db
        .prepare(`UPDATE tasks SET lease_until = ? WHERE lease_owner = ? AND lease_until > ? AND status IN (${QUEUED}) AND id IN (${ids.map(() => "?").join(",")}) RETURNING id`)
        .pluck()
        .all(now + leaseMs, owner, now, ...ids) as string[];
    },
    async releaseLeases(owner, ids) {
      if (!ids) return releaseAll.run(owner).changes;
      if (ids.length === 0) return 0;
      return db.prepare(`UPDATE tasks SET lease_owner = NULL, lease_until = 0 WHERE lease_owner = ? AND id IN (${ids.map(() => "?").join(",")})`).run(owner, ...ids).changes;
    },
    async queuePosition(id, now) {
      const r = byId.get(id) as TaskRow | undefined;
      if (!r || r.status !== TASK_WAITING || r.lease_until > now) return 0;
      return (ahead.get(r.queue, now, r.queue_order) as number) + 1;
    },
  };
}
