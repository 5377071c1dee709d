// Fan-out of committed task changes to watchers (WatchTask, SSE, the console's
// live list). Within one process listeners are called directly; with a bus
// attached (several instances sharing a database), every change committed here
// is also published, and changes committed by other instances arrive through
// the bus to the same listeners.
import type { StoredTask } from "./types.js";

export type TaskListener = (task: StoredTask, origin: "local" | "remote") => void;

/** Carries task changes between instances (at most once: watchers re-read storage to cover a lost message). */
export interface TaskEventBus {
  publish(task: StoredTask): void;
  /** Registers the receiver of other instances' changes. */
  onRemote(fn: (task: StoredTask) => void): void;
  close(): Promise<void>;
}

export class TaskEvents {
  private readonly byId = new Map<string, Set<TaskListener>>();
  private readonly all = new Set<TaskListener>();
  private bus: TaskEventBus | undefined;

  /** Attaches the cross-instance bus; changes emitted from now on are published to it. */
  useBus(bus: TaskEventBus): void {
    this.bus = bus;
    bus.onRemote((task) => this.deliver(task, "remote"));
  }

  /** Whether changes reach other instances (watchers then also re-read storage now and then). */
  get shared(): boolean {
    return this.bus !== undefined;
  }

  /** Listens to one task's changes; returns the unsubscribe function. */
  subscribe(id: string, fn: TaskListener): () => void {
    let set = this.byId.get(id);
    if (!set) this.byId.set(id, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.byId.get(id) === set) this.byId.delete(id);
    };
  }

  /** Listens to every change. */
  subscribeAll(fn: TaskListener): () => void {
    this.all.add(fn);
    return () => this.all.delete(fn);
  }

  /** A change committed by this instance: delivered here and published to the others. */
  emit(task: StoredTask): void {
    this.deliver(task, "local");
    this.bus?.publish(task);
  }

  private deliver(task: StoredTask, origin: "local" | "remote"): void {
    const one = this.byId.get(task.id);
    for (const fn of one ? [...one, ...this.all] : [...this.all]) {
      try {
        fn(task, origin);
      } catch {
        // A watcher's failure never affects the task.
      }
    }
  }

  /** Number of watchers of one task (for tests and metrics). */
  watchers(id: string): number {
    return this.byId.get(id)?.size ?? 0;
  }
}

/** How often a watcher re-reads storage when changes may come from other instances. */
export const WATCH_RESYNC_MS = 2_000;

/**
 * Yields a task's changes as they are committed, starting with `current`,
 * until it is terminal (per `done`) or the signal aborts. Versions only move
 * forward: a change seen twice (bus and re-read) is yielded once.
 */
export async function* watch<P>(
  events: TaskEvents,
  id: string,
  load: () => Promise<StoredTask<P> | undefined>,
  done: (t: StoredTask<P>) => boolean,
  signal: AbortSignal,
  resyncMs = WATCH_RESYNC_MS,
): AsyncGenerator<StoredTask<P>> {
  const pending: StoredTask<P>[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = events.subscribe(id, (t) => {
    pending.push(t as StoredTask<P>);
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener("abort", onAbort);
  try {
    const first = await load();
    if (!first) return;
    let version = first.version;
    yield first;
    if (done(first)) return;
    while (!signal.aborted) {
      const next = pending.shift();
      if (!next) {
        let timer: NodeJS.Timeout | undefined;
        const resynced = await new Promise<boolean>((resolve) => {
          wake = () => resolve(false);
          if (events.shared) timer = setTimeout(() => resolve(true), resyncMs);
        });
        if (timer) clearTimeout(timer);
        wake = undefined;
        if (resynced && !signal.aborted) {
          const fresh = await load();
          if (fresh && fresh.version > version) pending.push(fresh);
        }
        continue;
      }
      if (next.version <= version) continue;
      version = next.version;
      yield next;
      if (done(next)) return;
    }
  } finally {
    unsubscribe();
    signal.removeEventListener("abort", onAbort);
  }
}
