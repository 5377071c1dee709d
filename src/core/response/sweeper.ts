// Deletes expired stored responses on a timer. Reads never see them (the
// store filters by expiry); this frees their rows. Each run deletes in
// batches until one comes back short, so a backlog clears without one long
// statement. The timer is unref'd; stop() is called when the app closes.
// With `tasks`, it also deletes the finished tasks of background responses
// once they are as old as the retention (their events go with them).
import type { StoredResponseStore, TaskStore } from "../../storage/types.js";
import { TERMINAL_STATUSES, type TaskStatus } from "../tasks/types.js";

export interface ResponseSweeper {
  /** Runs one sweep now; resolves to the number of responses deleted. */
  runOnce(): Promise<number>;
  stop(): void;
}

export interface ResponseSweeperOptions {
  /** 0: no timer (runOnce only). */
  intervalMs: number;
  now: () => number;
  /** Rows one statement deletes. */
  batch?: number;
  /** Most statements one run makes: the rest waits for the next run. */
  maxBatches?: number;
  onError?: (err: unknown) => void;
  /** The tasks of background responses, deleted once finished and created `retentionMs` ago. */
  tasks?: { store: Pick<TaskStore, "list" | "delete">; kind: string; retentionMs: number };
}

export function responseSweeper(store: StoredResponseStore, opts: ResponseSweeperOptions): ResponseSweeper {
  const batch = opts.batch ?? 500;
  const maxBatches = opts.maxBatches ?? 20;
  let running: Promise<number> | undefined;
  const sweep = async () => {
    const now = opts.now();
    let total = 0;
    for (let i = 0; i < maxBatches; i++) {
      const n = await store.deleteExpired(now, batch);
      total += n;
      if (n < batch) break;
    }
    if (opts.tasks) await sweepTasks(opts.tasks, now, batch, maxBatches);
    return total;
  };
  const runOnce = () =>
    (running ??= sweep().finally(() => {
      running = undefined;
    }));
  const timer = opts.intervalMs > 0 ? setInterval(() => void runOnce().catch((err) => opts.onError?.(err)), opts.intervalMs) : undefined;
  timer?.unref();
  return {
    runOnce,
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}

/** Deletes finished tasks created before the retention, oldest first, a batch at a time. */
async function sweepTasks(t: NonNullable<ResponseSweeperOptions["tasks"]>, now: number, batch: number, maxBatches: number): Promise<void> {
  const cutoff = now - t.retentionMs;
  for (let i = 0; i < maxBatches; i++) {
    const rows = await t.store.list(t.kind, { limit: batch, order: "asc" });
    const old = rows.filter((r) => r.createTime <= cutoff);
    for (const r of old) if (TERMINAL_STATUSES.includes(r.status as TaskStatus)) await t.store.delete(r.id);
    // Anything newer (or an old one still running) ends the run: the rest waits for the next one.
    if (old.length < rows.length || rows.length < batch || old.some((r) => !TERMINAL_STATUSES.includes(r.status as TaskStatus))) break;
  }
}
