// Deletes expired files on a timer. The timer is unref'd so it never keeps the
// process alive; stop() is called when the app closes.
import type { BlobStore } from "./blob-store.js";

export interface Sweeper {
  /** Runs one sweep now; resolves to the number of files deleted. */
  runOnce(): Promise<number>;
  stop(): void;
}

export function startSweeper(blobs: BlobStore, opts: { intervalMs: number; now: () => number; onError?: (err: unknown) => void }): Sweeper {
  let running: Promise<number> | undefined;
  const runOnce = () =>
    (running ??= blobs.sweep(opts.now()).finally(() => {
      running = undefined;
    }));
  const timer =
    opts.intervalMs > 0
      ? setInterval(() => {
          runOnce().catch((err) => opts.onError?.(err));
        }, opts.intervalMs)
      : undefined;
  timer?.unref();
  return {
    runOnce,
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
