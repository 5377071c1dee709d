// Deletes expired stored responses on a timer. Reads never see them (the
// store filters by expiry); this frees their rows. Each run deletes in
// batches until one comes back short, so a backlog clears without one long
// statement. The timer is unref'd; stop() is called when the app closes.
import type { StoredResponseStore } from "../../storage/types.js";

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
