// In-process fan-out of committed task changes to watchers (WatchTask, SSE).
import type { StoredTask } from "./types.js";

export type TaskListener = (task: StoredTask) => void;

export class TaskEvents {
  private readonly byId = new Map<string, Set<TaskListener>>();
  private readonly all = new Set<TaskListener>();

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

  emit(task: StoredTask): void {
    for (const fn of [...(this.byId.get(task.id) ?? []), ...this.all]) {
      try {
        fn(task);
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

/**
 * Yields a task's changes as they are committed, starting with `current`,
 * until it is terminal (per `done`) or the signal aborts.
 */
export async function* watch<P>(
  events: TaskEvents,
  id: string,
  load: () => Promise<StoredTask<P> | undefined>,
  done: (t: StoredTask<P>) => boolean,
  signal: AbortSignal,
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
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
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
