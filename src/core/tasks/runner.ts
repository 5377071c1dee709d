// The durable task runner shared by image-bot and video tasks. Storage holds
// every task from the moment it is accepted; this class schedules them on
// named queues, runs them through their kind's handler, writes every change
// (status through transitions.ts only, together with its callback in the
// outbox), fans changes out to watchers, fails tasks past their timeout, and
// on start picks up whatever a previous process left unfinished.
import { randomBytes } from "node:crypto";
import type { OutboxMessage, TaskOutboxStore, TaskRecord, TaskStore } from "../../storage/types.js";
import { TaskEvents } from "./events.js";
import { OutboxWorker, type OutboxOptions } from "./outbox.js";
import { Queues, type QueueLimits, type QueueLoad } from "./queues.js";
import { isNotable, nextRunState, resumedRunState, type TransitionPatch } from "./transitions.js";
import {
  ACTIVE_STATUSES,
  InvalidTransitionError,
  QueueFullError,
  TaskFailure,
  isRunning,
  isTerminal,
  type ExecContext,
  type RunState,
  type StoredTask,
  type TaskHandler,
  type TaskStatus,
} from "./types.js";
import { webhookSender, type SenderOptions, type WebhookSender } from "./webhook-sender.js";

export interface RunnerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface RunnerOptions {
  storage: { tasks: TaskStore; outbox: TaskOutboxStore };
  now: () => number;
  /** A task still not finished this long after it was queued or started fails. */
  timeoutMs: number;
  /** How often the timeout sweep runs (0 = only when sweep() is called). */
  sweepIntervalMs: number;
  callbacks: OutboxOptions & SenderOptions;
  /** Delivered and dead callbacks are deleted after this long. */
  callbackRetentionMs?: number;
  log?: RunnerLog;
  /** Replaces the HTTP sender (tests). */
  sender?: WebhookSender;
  /** Called once when any task reaches a terminal status (after its handler's onFinished): refunds and the like. */
  onFinished?: (task: StoredTask) => void;
}

export interface CreateTask<P> {
  id: string;
  kind: string;
  ownerKeyId?: string | undefined;
  /** NOT_START queues it at once; MODAL waits for confirm(). */
  status: "NOT_START" | "MODAL";
  queue: string;
  notifyHook: string;
  payload: P;
}

export interface Admission<P> {
  task: StoredTask<P>;
  /** 0 when it started at once, else its 1-based place in the waiting line. */
  position: number;
}

const STOP_WAIT_MS = 5_000;

function toStored<P>(r: TaskRecord): StoredTask<P> {
  const data = r.data as { run: RunState; payload: P };
  return { id: r.id, kind: r.kind, ownerKeyId: r.ownerKeyId, run: data.run, payload: data.payload, version: r.version, createTime: r.createTime, updateTime: r.updateTime };
}

export class TaskRunner {
  readonly events = new TaskEvents();
  private readonly handlers = new Map<string, TaskHandler<unknown>>();
  private readonly queues = new Queues();
  private readonly controllers = new Map<string, AbortController>();
  private readonly executions = new Set<Promise<void>>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly outbox: OutboxWorker;
  private sweepTimer: NodeJS.Timeout | undefined;
  private started = false;
  private stopping = false;

  constructor(private readonly opts: RunnerOptions) {
    const sender = opts.sender ?? webhookSender(opts.callbacks);
    this.outbox = new OutboxWorker(opts.storage.outbox, sender, opts.callbacks, opts.now, opts.log);
  }

  /** Where the runner reports trouble (the app's logger, once it exists). */
  useLog(log: RunnerLog): void {
    this.opts.log = log;
    this.outbox.useLog(log);
  }

  register<P>(handler: TaskHandler<P>): void {
    this.handlers.set(handler.kind, handler as TaskHandler<unknown>);
  }

  /** Creates or resizes a queue; waiting tasks start if slots were added. */
  defineQueue(name: string, limits: QueueLimits): void {
    this.queues.define(name, limits);
    if (this.started) this.pump(name);
  }

  hasQueue(name: string): boolean {
    return this.queues.has(name);
  }

  load(name: string): QueueLoad {
    return this.queues.load(name);
  }

  hasRoom(name: string): boolean {
    return this.queues.hasRoom(name);
  }

  position(id: string): number {
    return this.queues.position(id);
  }

  async get<P>(id: string): Promise<StoredTask<P> | undefined> {
    const r = await this.opts.storage.tasks.get(id);
    return r && toStored<P>(r);
  }

  async getMany<P>(ids: string[]): Promise<StoredTask<P>[]> {
    return (await this.opts.storage.tasks.getMany(ids)).map((r) => toStored<P>(r));
  }

  /** Tasks of a kind, newest first: the active ones when `active`, else all (paged by `after`). */
  async list<P>(kind: string, opts: { active?: boolean; ownerKeyId?: string | undefined; limit: number; after?: string | undefined }): Promise<StoredTask<P>[]> {
    if (opts.active) {
      const rows = await this.opts.storage.tasks.listByStatus(kind, [...ACTIVE_STATUSES], 100_000);
      return rows
        .filter((r) => !opts.ownerKeyId || r.ownerKeyId === opts.ownerKeyId)
        .reverse()
        .slice(0, opts.limit)
        .map((r) => toStored<P>(r));
    }
    const rows = await this.opts.storage.tasks.list(kind, { limit: opts.limit, order: "desc", ...(opts.after ? { after: opts.after } : {}), ...(opts.ownerKeyId ? { ownerKeyId: opts.ownerKeyId } : {}) });
    return rows.map((r) => toStored<P>(r));
  }

  /** Accepts a task: stored at once; a NOT_START task is queued (QueueFullError when its queue has no room). */
  async create<P>(init: CreateTask<P>): Promise<Admission<P>> {
    if (!this.handlers.has(init.kind)) throw new Error(`no handler for task kind ${init.kind}`);
    const queued = init.status === "NOT_START";
    if (queued && !this.queues.reserve(init.queue)) throw new QueueFullError(this.queues.has(init.queue) ? `queue ${init.queue} is full` : `queue ${init.queue} does not exist`);
    const t = this.opts.now();
    const run: RunState = { status: init.status, progress: 0, submitTime: t, queue: init.queue, notifyHook: init.notifyHook, seq: 0, runs: 0 };
    if (queued) run.queueTime = t;
    const record: TaskRecord = { id: init.id, kind: init.kind, status: run.status, ownerKeyId: init.ownerKeyId, data: { run, payload: init.payload }, createTime: t, updateTime: t, version: 1 };
    try {
      await this.opts.storage.outbox.insertTask(record, []);
    } finally {
      if (queued) this.queues.release(init.queue);
    }
    const task = toStored<P>(record);
    this.events.emit(task);
    if (queued) this.admit(init.queue, task.id);
    return { task, position: this.queues.position(task.id) };
  }

  /** Moves a MODAL task into a queue (QueueFullError when it has no room; the task then stays MODAL). */
  async confirm<P>(id: string, queue: string, payload: P): Promise<Admission<P>> {
    if (!this.queues.reserve(queue)) throw new QueueFullError(`queue ${queue} is full`);
    let task: StoredTask<P>;
    try {
      task = await this.transition<P>(id, "NOT_START", { queue }, payload);
    } finally {
      this.queues.release(queue);
    }
    this.admit(queue, id);
    return { task, position: this.queues.position(id) };
  }

  /** Cancels a task that has not finished (InvalidTransitionError when it has). */
  async cancel<P>(id: string, reason = "cancelled"): Promise<StoredTask<P>> {
    const task = await this.transition<P>(id, "CANCEL", { failReason: reason });
    this.release(id);
    return task;
  }

  /** Fails a task that has not finished. */
  async fail<P>(id: string, reason: string): Promise<StoredTask<P>> {
    const task = await this.transition<P>(id, "FAILURE", { failReason: reason });
    this.release(id);
    return task;
  }

  /** Replaces a task's payload without a status change. */
  save<P>(id: string, payload: P): Promise<StoredTask<P>> {
    return this.commit<P>(id, (cur) => ({ run: cur.run, payload, notable: false }));
  }

  /** Picks up unfinished work, then starts the timeout sweep and callback delivery. */
  async start(): Promise<void> {
    if (this.started) return;
    this.stopping = false;
    for (const kind of this.handlers.keys()) await this.recover(kind);
    this.started = true;
    for (const name of this.queues.names()) this.pump(name);
    this.outbox.start();
    if (this.opts.sweepIntervalMs > 0) {
      this.sweepTimer = setInterval(() => {
        this.sweep().catch((err) => this.opts.log?.warn({ err }, "task sweep failed"));
      }, this.opts.sweepIntervalMs);
      this.sweepTimer.unref();
    }
  }

  /** Stops scheduling; running executions are aborted and left as they are in storage, to resume on the next start. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.stopping = true;
    this.started = false;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    for (const ac of this.controllers.values()) ac.abort(new Error("the gateway is stopping"));
    const wait = new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref());
    await Promise.race([Promise.allSettled([...this.executions]), wait]);
    await this.outbox.stop();
  }

  /** Fails every unfinished task past its timeout; returns how many. Also trims settled callbacks. */
  async sweep(): Promise<number> {
    const now = this.opts.now();
    let failed = 0;
    for (const [kind, handler] of this.handlers) {
      const timeout = handler.timeoutMs ?? this.opts.timeoutMs;
      const active = await this.opts.storage.tasks.listByStatus(kind, [...ACTIVE_STATUSES], 100_000);
      for (const r of active) {
        const run = (r.data as { run: RunState }).run;
        const since = isRunning(run.status) ? (run.startTime ?? run.submitTime) : run.status === "NOT_START" ? (run.queueTime ?? run.submitTime) : (run.queueTime ?? run.submitTime);
        if (now - since <= timeout) continue;
        const secs = Math.round(timeout / 1000);
        const reason =
          run.status === "MODAL"
            ? `timed out: the task waited more than ${secs}s for its modal confirmation`
            : run.status === "NOT_START"
              ? `timed out: the task waited more than ${secs}s in its queue`
              : `timed out: no result within ${secs}s`;
        try {
          await this.fail(r.id, reason);
          failed++;
        } catch (err) {
          if (!(err instanceof InvalidTransitionError)) throw err;
        }
      }
    }
    const retention = this.opts.callbackRetentionMs ?? 7 * 24 * 3600_000;
    await this.opts.storage.outbox.deleteSettledBefore(now - retention, 10_000);
    return failed;
  }

  /** Sends due callbacks now (tests). */
  flushCallbacks(): Promise<void> {
    return this.outbox.runOnce();
  }

  // ------------------------------------------------------------------ internals

  private async recover(kind: string): Promise<void> {
    const handler = this.handlers.get(kind)!;
    const rows = await this.opts.storage.tasks.listByStatus(kind, ["SUBMITTED", "IN_PROGRESS", "NOT_START"], 1_000_000);
    const tasks = rows.map((r) => toStored<unknown>(r));
    for (const t of tasks.filter((x) => isRunning(x.run.status))) {
      const verdict = !this.queues.has(t.run.queue) ? `failed: the gateway restarted and queue ${t.run.queue} no longer exists` : (handler.resume?.(t) ?? true);
      if (verdict !== true) {
        await this.fail(t.id, verdict).catch((err) => this.opts.log?.warn({ err, task: t.id }, "could not fail an interrupted task"));
        continue;
      }
      this.queues.occupy(t.run.queue, t.id);
      this.launch(t.id, t.run.queue, true);
    }
    const waiting = tasks.filter((x) => x.run.status === "NOT_START").sort((a, b) => (a.run.queueTime ?? a.run.submitTime) - (b.run.queueTime ?? b.run.submitTime));
    for (const t of waiting) {
      if (this.queues.has(t.run.queue)) this.queues.enqueue(t.run.queue, t.id);
      else await this.fail(t.id, `failed: queue ${t.run.queue} no longer exists`).catch(() => undefined);
    }
    if (tasks.length > 0) this.opts.log?.info({ kind, resumed: tasks.length }, "resumed unfinished tasks");
  }

  private admit(queue: string, id: string): void {
    this.queues.enqueue(queue, id);
    if (this.started) this.pump(queue);
  }

  private pump(queue: string): void {
    if (!this.started || this.stopping) return;
    for (const id of this.queues.take(queue)) this.launch(id, queue, false);
  }

  private release(id: string): void {
    this.queues.remove(id);
    this.controllers.get(id)?.abort(new Error("the task ended"));
  }

  private launch(id: string, queue: string, resumed: boolean): void {
    const ac = new AbortController();
    this.controllers.set(id, ac);
    const run = async () => {
      try {
        const task = resumed
          ? await this.commit<unknown>(id, (cur) => ({ run: resumedRunState(cur.run), payload: cur.payload, notable: false }))
          : await this.transition<unknown>(id, "SUBMITTED", {});
        const handler = this.handlers.get(task.kind);
        if (!handler) throw new TaskFailure(`no handler for task kind ${task.kind}`);
        const ctx: ExecContext<unknown> = {
          signal: ac.signal,
          progress: (progress, payload) => {
            ac.signal.throwIfAborted();
            return this.transition(id, "IN_PROGRESS", { progress }, payload);
          },
          save: (payload) => {
            ac.signal.throwIfAborted();
            return this.save(id, payload);
          },
        };
        const payload = await handler.execute(task, ctx);
        ac.signal.throwIfAborted();
        await this.transition(id, "SUCCESS", {}, payload);
      } catch (err) {
        if (ac.signal.aborted || this.stopping || err instanceof InvalidTransitionError) return;
        const reason = err instanceof TaskFailure ? err.message : "failed: internal error while running the task";
        if (!(err instanceof TaskFailure)) this.opts.log?.error({ err, task: id }, "task execution failed");
        await this.transition(id, "FAILURE", { failReason: reason }).catch(() => undefined);
      } finally {
        if (this.controllers.get(id) === ac) this.controllers.delete(id);
        this.queues.remove(id);
        this.pump(queue);
      }
    };
    const p = run();
    this.executions.add(p);
    void p.finally(() => this.executions.delete(p));
  }

  private transition<P>(id: string, to: TaskStatus, patch: TransitionPatch, payload?: P): Promise<StoredTask<P>> {
    return this.commit<P>(id, (cur) => {
      const next = nextRunState(cur.run, to, patch, this.opts.now());
      const notable = isNotable(cur.run, next);
      if (!notable && payload === undefined && to === cur.run.status) return undefined;
      return { run: next, payload: payload ?? cur.payload, notable };
    });
  }

  /** The one writer: reads the task, applies `mutate`, writes it with its callback, emits the change. */
  private commit<P>(id: string, mutate: (cur: StoredTask<P>) => { run: RunState; payload: P; notable: boolean } | undefined): Promise<StoredTask<P>> {
    return this.locked(id, async () => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const rec = await this.opts.storage.tasks.get(id);
        if (!rec) throw new Error(`unknown task ${id}`);
        const cur = toStored<P>(rec);
        const m = mutate(cur);
        if (!m) return cur;
        const handler = this.handlers.get(cur.kind);
        const messages: OutboxMessage[] = [];
        let run = m.run;
        if (m.notable && run.notifyHook && handler?.callbackBody) {
          run = { ...run, seq: run.seq + 1 };
          const body = handler.callbackBody({ ...cur, run, payload: m.payload });
          if (body !== undefined) {
            const t = this.opts.now();
            messages.push({ id: "msg_" + randomBytes(16).toString("hex"), taskId: id, seq: run.seq, url: run.notifyHook, body, status: "pending", attempts: 0, nextAttemptTime: t, createTime: t, updateTime: t });
          }
        }
        const updated = await this.opts.storage.outbox.updateTask(id, rec.version, { status: run.status, data: { run, payload: m.payload } }, messages);
        if (!updated) continue;
        const stored = toStored<P>(updated);
        this.events.emit(stored);
        if (messages.length > 0) this.outbox.kick();
        if (isTerminal(stored.run.status) && !isTerminal(cur.run.status)) {
          try {
            handler?.onFinished?.(stored);
            this.opts.onFinished?.(stored as StoredTask);
          } catch (err) {
            this.opts.log?.warn({ err, task: id }, "onFinished failed");
          }
        }
        return stored;
      }
      throw new Error(`task ${id} kept changing under the runner`);
    });
  }

  private locked<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(id) ?? Promise.resolve();
    const p = prev.then(fn, fn);
    const tail = p.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(id, tail);
    void tail.then(() => {
      if (this.locks.get(id) === tail) this.locks.delete(id);
    });
    return p;
  }
}
