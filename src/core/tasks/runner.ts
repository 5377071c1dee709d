// The durable task runner shared by image-bot and video tasks. Storage holds
// every task from the moment it is accepted and is the scheduler: any number
// of runners (gateway instances) share it. Each runner claims work of its
// queues with leases (storage counts the slots, so a queue's concurrency and
// room hold across instances), renews the leases of what it runs, and takes
// over running tasks whose lease expired (their instance died). Every change
// is written through transitions.ts together with its callback in the
// outbox, and fanned out to watchers. Tasks past their timeout fail.
import { randomBytes } from "node:crypto";
import { NoRoomError, type OutboxMessage, type QueueRoom, type TaskOutboxStore, type TaskPatch, type TaskRecord, type TaskStore } from "../../storage/types.js";
import { TaskEvents } from "./events.js";
import { OutboxWorker, type OutboxOptions } from "./outbox.js";
import { Queues, type QueueLimits, type QueueLoad } from "./queues.js";
import { isNotable, nextRunState, resumedRunState, type TransitionPatch } from "./transitions.js";
import {
  ACTIVE_STATUSES,
  InvalidTransitionError,
  LeaseLostError,
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
  /** Where the runner and its callback outbox report trouble (the app's logger). */
  log?: RunnerLog;
  /** Replaces the HTTP sender (tests). */
  sender?: WebhookSender;
  /** Called once when any task reaches a terminal status (after its handler's onFinished): refunds and the like. */
  onFinished?: (task: StoredTask) => void;
  /**
   * This runner's name in leases and callback claims, unique among the
   * instances sharing the storage (default: random). A runner started under
   * the name of a previous one takes that one's leases over at once.
   */
  instanceId?: string;
  /** How long a lease lasts without renewal; renewed every third of it (default 15 s). */
  leaseMs?: number;
  /** How often every queue is checked for work to claim (default 1 s). */
  claimPollMs?: number;
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

/** A task this runner executes now. */
interface Execution {
  ac: AbortController;
  queue: string;
  /** When its lease ends as far as this runner knows; past it the execution stops (self-fencing). */
  until: number;
  /** The terminal write (which also ends the lease) is under way or done. */
  finishing: boolean;
  /** That write succeeded: the lease ended with it. */
  released: boolean;
}

const STOP_WAIT_MS = 5_000;
export const DEFAULT_LEASE_MS = 15_000;
export const DEFAULT_CLAIM_POLL_MS = 1_000;

function toStored<P>(r: TaskRecord): StoredTask<P> {
  const data = r.data as { run: RunState; payload: P };
  return { id: r.id, kind: r.kind, ownerKeyId: r.ownerKeyId, run: data.run, payload: data.payload, version: r.version, createTime: r.createTime, updateTime: r.updateTime };
}

interface CommitOptions {
  /** A write of this execution: only while the task is leased to this runner. */
  fence?: Execution;
  /** The execution's last write: ends the lease with it. */
  release?: boolean;
  /** An admission into run.queue (MODAL -> NOT_START): only when it has room. */
  room?: QueueLimits;
}

export class TaskRunner {
  readonly events = new TaskEvents();
  readonly instanceId: string;
  private readonly leaseMs: number;
  private readonly claimPollMs: number;
  private readonly handlers = new Map<string, TaskHandler<unknown>>();
  private readonly queues = new Queues();
  private readonly executions = new Map<string, Execution>();
  private readonly running = new Set<Promise<void>>();
  private readonly pumps = new Map<string, { current?: Promise<void> | undefined; next?: Promise<void> | undefined }>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly outbox: OutboxWorker;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | undefined;
  private started = false;
  private stopping = false;
  private keepLeases = false;

  constructor(private readonly opts: RunnerOptions) {
    this.instanceId = opts.instanceId || `runner-${randomBytes(6).toString("hex")}`;
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.claimPollMs = opts.claimPollMs ?? DEFAULT_CLAIM_POLL_MS;
    const sender = opts.sender ?? webhookSender(opts.callbacks);
    // A claim outlasts one attempt (bounded by the sender's timeout), so two workers never send a message at once unless one died.
    const claims = { owner: this.instanceId, claimMs: opts.callbacks.timeoutMs + 5_000 };
    this.outbox = new OutboxWorker(opts.storage.outbox, sender, opts.callbacks, claims, opts.now, opts.log);
  }

  register<P>(handler: TaskHandler<P>): void {
    this.handlers.set(handler.kind, handler as TaskHandler<unknown>);
  }

  /** Creates or resizes a queue (every instance must define the same queues); waiting tasks start if slots were added. */
  defineQueue(name: string, limits: QueueLimits): void {
    this.queues.define(name, limits);
    if (this.started) void this.pump(name);
  }

  hasQueue(name: string): boolean {
    return this.queues.has(name);
  }

  /** The queue's load as of this runner's last claim (refreshed every claimPollMs and after each local change). */
  load(name: string): QueueLoad {
    return this.queues.load(name);
  }

  /** Whether one more task seems to fit, by load(); the admission itself is decided in storage. */
  hasRoom(name: string): boolean {
    return this.queues.hasRoom(name);
  }

  /** 1-based place of a waiting task in its queue's line, or 0 when it is not waiting. */
  position(id: string): Promise<number> {
    return this.opts.storage.tasks.queuePosition(id, this.opts.now());
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
    const rows = await this.opts.storage.tasks.list(kind, {
      limit: opts.limit,
      order: "desc",
      ...(opts.after ? { after: opts.after } : {}),
      ...(opts.ownerKeyId ? { ownerKeyId: opts.ownerKeyId } : {}),
    });
    return rows.map((r) => toStored<P>(r));
  }

  /** Accepts a task: stored at once; a NOT_START task is queued (QueueFullError when its queue has no room, across instances). */
  async create<P>(init: CreateTask<P>): Promise<Admission<P>> {
    if (!this.handlers.has(init.kind)) throw new Error(`no handler for task kind ${init.kind}`);
    const queued = init.status === "NOT_START";
    const limits = this.queues.limits(init.queue);
    if (queued && !limits) throw new QueueFullError(`queue ${init.queue} does not exist`);
    const t = this.opts.now();
    const run: RunState = { status: init.status, progress: 0, submitTime: t, queue: init.queue, notifyHook: init.notifyHook, seq: 0, runs: 0 };
    if (queued) run.queueTime = t;
    const record: TaskRecord = {
      id: init.id,
      kind: init.kind,
      status: run.status,
      ownerKeyId: init.ownerKeyId,
      data: { run, payload: init.payload },
      createTime: t,
      updateTime: t,
      version: 1,
      queue: init.queue,
    };
    try {
      await this.opts.storage.outbox.insertTask(record, [], queued ? this.room(limits!, t) : undefined);
    } catch (err) {
      if (err instanceof NoRoomError) throw new QueueFullError(`queue ${init.queue} is full`);
      throw err;
    }
    const task = toStored<P>(record);
    this.events.emit(task);
    if (!queued) return { task, position: 0 };
    await this.pump(init.queue);
    return { task, position: await this.position(task.id) };
  }

  /** Moves a MODAL task into a queue (QueueFullError when it has no room; the task then stays MODAL). */
  async confirm<P>(id: string, queue: string, payload: P): Promise<Admission<P>> {
    const limits = this.queues.limits(queue);
    if (!limits) throw new QueueFullError(`queue ${queue} does not exist`);
    let task: StoredTask<P>;
    try {
      task = await this.transition<P>(id, "NOT_START", { queue }, payload, { room: limits });
    } catch (err) {
      if (err instanceof NoRoomError) throw new QueueFullError(`queue ${queue} is full`);
      throw err;
    }
    await this.pump(queue);
    return { task, position: await this.position(id) };
  }

  /** Cancels a task that has not finished, whichever instance runs it (InvalidTransitionError when it has finished). */
  async cancel<P>(id: string, reason = "cancelled"): Promise<StoredTask<P>> {
    const task = await this.transition<P>(id, "CANCEL", { failReason: reason });
    this.abortLocal(id, "the task ended");
    return task;
  }

  /** Fails a task that has not finished. */
  async fail<P>(id: string, reason: string): Promise<StoredTask<P>> {
    const task = await this.transition<P>(id, "FAILURE", { failReason: reason });
    this.abortLocal(id, "the task ended");
    return task;
  }

  /** Replaces a task's payload without a status change. */
  save<P>(id: string, payload: P): Promise<StoredTask<P>> {
    return this.commit<P>(id, (cur) => ({ run: cur.run, payload, notable: false }));
  }

  /**
   * Takes back the leases a previous runner of the same name held, fails
   * tasks whose queue no longer exists, then claims work, and starts lease
   * renewal, claim polling, the timeout sweep and callback delivery.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.stopping = false;
    this.keepLeases = false;
    await this.opts.storage.tasks.releaseLeases(this.instanceId);
    for (const kind of this.handlers.keys()) await this.failOrphans(kind);
    this.started = true;
    this.unsubscribe = this.events.subscribeAll((t) => this.onChange(t));
    const every = (ms: number, fn: () => Promise<unknown>, what: string) => {
      const timer = setInterval(() => {
        fn().catch((err) => this.opts.log?.warn({ err }, `${what} failed`));
      }, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(Math.max(50, Math.floor(this.leaseMs / 3)), () => this.renew(), "lease renewal");
    every(this.claimPollMs, async () => void (await Promise.all(this.queues.names().map((q) => this.pump(q)))), "task claim");
    if (this.opts.sweepIntervalMs > 0) every(this.opts.sweepIntervalMs, () => this.sweep(), "task sweep");
    await Promise.all(this.queues.names().map((q) => this.pump(q)));
    this.outbox.start();
  }

  /**
   * Stops claiming; running executions are aborted and left as they are in
   * storage, and their leases are released so that another instance (or the
   * next start) resumes them at once. `keepLeases` leaves the leases to
   * expire instead, as a killed process does (tests).
   */
  async stop(opts: { keepLeases?: boolean } = {}): Promise<void> {
    if (!this.started) return;
    this.stopping = true;
    this.started = false;
    this.keepLeases = !!opts.keepLeases;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const ex of this.executions.values()) ex.ac.abort(new Error("the gateway is stopping"));
    const wait = new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref());
    await Promise.race([Promise.allSettled([...this.running]), wait]);
    if (!this.keepLeases) await this.opts.storage.tasks.releaseLeases(this.instanceId).catch((err) => this.opts.log?.warn({ err }, "could not release task leases"));
    await this.outbox.stop();
  }

  /** Fails every unfinished task past its timeout; returns how many. Also trims settled callbacks. Safe on every instance at once. */
  async sweep(): Promise<number> {
    const now = this.opts.now();
    let failed = 0;
    for (const [kind, handler] of this.handlers) {
      const timeout = handler.timeoutMs ?? this.opts.timeoutMs;
      const active = await this.opts.storage.tasks.listByStatus(kind, [...ACTIVE_STATUSES], 100_000);
      for (const r of active) {
        const run = (r.data as { run: RunState }).run;
        const since = isRunning(run.status) ? (run.startTime ?? run.submitTime) : (run.queueTime ?? run.submitTime);
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

  private room(limits: QueueLimits, now: number): QueueRoom {
    return { concurrency: limits.concurrency, queueSize: limits.queueSize, now };
  }

  /** Fails unleased unfinished tasks whose queue this runner does not know (configuration changed). */
  private async failOrphans(kind: string): Promise<void> {
    const now = this.opts.now();
    const rows = await this.opts.storage.tasks.listByStatus(kind, ["SUBMITTED", "IN_PROGRESS", "NOT_START"], 1_000_000);
    for (const r of rows) {
      const t = toStored<unknown>(r);
      if (this.queues.has(t.run.queue) || (r.leaseUntil ?? 0) > now) continue;
      const reason = isRunning(t.run.status) ? `failed: the gateway restarted and queue ${t.run.queue} no longer exists` : `failed: queue ${t.run.queue} no longer exists`;
      await this.fail(t.id, reason).catch((err) => this.opts.log?.warn({ err, task: t.id }, "could not fail a task of a lost queue"));
    }
  }

  /** One claim pass over a queue at a time; a call during a pass gets the next pass. */
  private pump(queue: string): Promise<void> {
    if (!this.started || this.stopping || !this.queues.has(queue)) return Promise.resolve();
    let s = this.pumps.get(queue);
    if (!s) this.pumps.set(queue, (s = {}));
    const state = s;
    if (state.next) return state.next;
    if (state.current) {
      state.next = state.current.then(() => {
        state.next = undefined;
        return this.pump(queue);
      });
      return state.next;
    }
    state.current = this.claim(queue)
      .catch((err) => this.opts.log?.warn({ err, queue }, "task claim failed"))
      .finally(() => (state.current = undefined));
    return state.current;
  }

  private async claim(queue: string): Promise<void> {
    const limits = this.queues.limits(queue);
    if (!limits) return;
    const now = this.opts.now();
    const res = await this.opts.storage.tasks.claim(queue, { owner: this.instanceId, now, leaseMs: this.leaseMs, concurrency: limits.concurrency });
    this.queues.observe(queue, res.running, res.waiting);
    const late: string[] = [];
    for (const rec of res.claimed) {
      const mine = this.executions.get(rec.id);
      if (mine) mine.until = now + this.leaseMs;
      else if (this.stopping) late.push(rec.id);
      else this.launch(rec, now + this.leaseMs);
    }
    if (late.length > 0) await this.opts.storage.tasks.releaseLeases(this.instanceId, late);
  }

  /** Renews the leases of this runner's executions; stops those whose task is no longer leased to it. */
  private async renew(): Promise<void> {
    const ids = [...this.executions.keys()];
    if (ids.length === 0) return;
    try {
      const now = this.opts.now();
      const kept = new Set(await this.opts.storage.tasks.renewLeases(this.instanceId, ids, now, this.leaseMs));
      for (const id of ids) {
        const ex = this.executions.get(id);
        if (!ex || ex.finishing) continue;
        if (kept.has(id)) ex.until = now + this.leaseMs;
        else ex.ac.abort(new LeaseLostError(`task ${id} is no longer leased to ${this.instanceId}`));
      }
    } finally {
      this.selfFence();
    }
  }

  /** An execution whose lease this runner could not renew in time stops: another instance may own it by now. */
  private selfFence(): void {
    const now = this.opts.now();
    for (const [id, ex] of this.executions) {
      if (!ex.finishing && ex.until <= now) ex.ac.abort(new LeaseLostError(`the lease of task ${id} expired`));
    }
  }

  /** A change committed here or (with a shared event bus) on another instance: a finished task stops running here. */
  private onChange(t: StoredTask): void {
    if (isTerminal(t.run.status)) this.abortLocal(t.id, "the task ended");
  }

  private abortLocal(id: string, why: string): void {
    const ex = this.executions.get(id);
    if (ex && !ex.finishing) ex.ac.abort(new Error(why));
  }

  private launch(rec: TaskRecord, until: number): void {
    const id = rec.id;
    const claimed = toStored<unknown>(rec);
    const ex: Execution = { ac: new AbortController(), queue: claimed.run.queue, until, finishing: false, released: false };
    this.executions.set(id, ex);
    const ac = ex.ac;
    const finish = async (to: TaskStatus, patch: TransitionPatch, payload?: unknown) => {
      ex.finishing = true;
      await this.transition(id, to, patch, payload, { fence: ex, release: true });
      ex.released = true;
    };
    const run = async () => {
      try {
        const handler = this.handlers.get(claimed.kind);
        if (!handler) throw new TaskFailure(`no handler for task kind ${claimed.kind}`);
        let task: StoredTask<unknown>;
        if (isRunning(claimed.run.status)) {
          // Taken over: its former runner stopped or died while it ran.
          const verdict = handler.resume?.(claimed) ?? true;
          if (verdict !== true) {
            await finish("FAILURE", { failReason: verdict });
            return;
          }
          task = await this.commit<unknown>(id, (cur) => ({ run: resumedRunState(cur.run), payload: cur.payload, notable: false }), { fence: ex });
          this.opts.log?.info({ task: id, runs: task.run.runs }, "resumed a task");
        } else task = await this.transition<unknown>(id, "SUBMITTED", {}, undefined, { fence: ex });
        const ctx: ExecContext<unknown> = {
          signal: ac.signal,
          progress: (progress, payload) => {
            ac.signal.throwIfAborted();
            return this.transition(id, "IN_PROGRESS", { progress }, payload, { fence: ex });
          },
          save: (payload) => {
            ac.signal.throwIfAborted();
            return this.commit(id, (cur) => ({ run: cur.run, payload, notable: false }), { fence: ex });
          },
        };
        const payload = await handler.execute(task, ctx);
        ac.signal.throwIfAborted();
        await finish("SUCCESS", {}, payload);
      } catch (err) {
        if (ac.signal.aborted || this.stopping || err instanceof InvalidTransitionError || err instanceof LeaseLostError) return;
        const reason = err instanceof TaskFailure ? err.message : "failed: internal error while running the task";
        if (!(err instanceof TaskFailure)) this.opts.log?.error({ err, task: id }, "task execution failed");
        await finish("FAILURE", { failReason: reason }).catch(() => undefined);
      } finally {
        if (this.executions.get(id) === ex) this.executions.delete(id);
        // A finished execution ended its lease with its last write; otherwise end it here (the slot frees at once).
        if (!ex.released && !(this.stopping && this.keepLeases)) {
          await this.opts.storage.tasks.releaseLeases(this.instanceId, [id]).catch((err) => this.opts.log?.warn({ err, task: id }, "could not release a task lease"));
        }
        void this.pump(ex.queue);
      }
    };
    const p = run();
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
  }

  private transition<P>(id: string, to: TaskStatus, patch: TransitionPatch, payload?: P, opts: CommitOptions = {}): Promise<StoredTask<P>> {
    return this.commit<P>(
      id,
      (cur) => {
        const next = nextRunState(cur.run, to, patch, this.opts.now());
        const notable = isNotable(cur.run, next);
        if (!notable && payload === undefined && to === cur.run.status && !opts.release) return undefined;
        return { run: next, payload: payload ?? cur.payload, notable };
      },
      opts,
    );
  }

  /** The one writer: reads the task, applies `mutate`, writes it with its callback, emits the change. */
  private commit<P>(id: string, mutate: (cur: StoredTask<P>) => { run: RunState; payload: P; notable: boolean } | undefined, opts: CommitOptions = {}): Promise<StoredTask<P>> {
    return this.locked(id, async () => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const rec = await this.opts.storage.tasks.get(id);
        if (!rec) {
          if (opts.fence) throw new LeaseLostError(`task ${id} was deleted`);
          throw new Error(`unknown task ${id}`);
        }
        // Fencing: the version check below makes this read-check-write atomic (a claim increments the version).
        if (opts.fence && rec.leaseOwner !== this.instanceId) {
          opts.fence.ac.abort(new LeaseLostError(`task ${id} is leased to ${rec.leaseOwner ?? "nobody"}`));
          throw new LeaseLostError(`task ${id} is no longer leased to ${this.instanceId}`);
        }
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
            messages.push({
              id: "msg_" + randomBytes(16).toString("hex"),
              taskId: id,
              seq: run.seq,
              url: run.notifyHook,
              body,
              status: "pending",
              attempts: 0,
              nextAttemptTime: t,
              createTime: t,
              updateTime: t,
            });
          }
        }
        const patch: TaskPatch = { status: run.status, data: { run, payload: m.payload } };
        if (opts.room) patch.queue = run.queue;
        if (opts.release) patch.releaseLease = true;
        const updated = await this.opts.storage.outbox.updateTask(id, rec.version, patch, messages, opts.room ? this.room(opts.room, this.opts.now()) : undefined);
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
