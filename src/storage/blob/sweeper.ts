// Deletes expired files on a timer, and now and then bytes that no metadata
// refers to (what a crash between a put's two steps left). The timers are
// unref'd so they never keep the process alive; stop() is called when the app
// closes.
import type { BlobStore } from "./blob-store.js";

export interface Sweeper {
  /** Runs one sweep now; resolves to the number of files deleted. */
  runOnce(): Promise<number>;
  /** Runs one orphan sweep now (bytes without metadata, last written over `orphanGraceMs` ago); resolves to how many were deleted. */
  runOrphans(): Promise<number>;
  stop(): void;
}

/** Orphans are looked for this long after start (a crash's leftovers go soon after the restart), then every orphanGraceMs. */
const FIRST_ORPHAN_SWEEP_MS = 10_000;

export interface SweeperOptions {
  intervalMs: number;
  now: () => number;
  /** Bytes without metadata are deleted once they are this old (default one hour); 0 turns the orphan sweep off. */
  orphanGraceMs?: number;
  onError?: (err: unknown) => void;
}

export function startSweeper(blobs: BlobStore, opts: SweeperOptions): Sweeper {
  const grace = opts.orphanGraceMs ?? 60 * 60 * 1000;
  let running: Promise<number> | undefined;
  let orphaning: Promise<number> | undefined;
  const runOnce = () =>
    (running ??= blobs.sweep(opts.now()).finally(() => {
      running = undefined;
    }));
  const runOrphans = () =>
    (orphaning ??= blobs.sweepOrphans(opts.now() - grace).finally(() => {
      orphaning = undefined;
    }));
  const report = (p: Promise<number>) => void p.catch((err) => opts.onError?.(err));
  const timer = opts.intervalMs > 0 ? setInterval(() => report(runOnce()), opts.intervalMs) : undefined;
  timer?.unref();
  let orphanTimer: NodeJS.Timeout | undefined;
  if (opts.intervalMs > 0 && grace > 0) {
    orphanTimer = setTimeout(
      function tick() {
        report(runOrphans());
        orphanTimer = setTimeout(tick, grace);
        orphanTimer.unref();
      },
      Math.min(FIRST_ORPHAN_SWEEP_MS, grace),
    );
    orphanTimer.unref();
  }
  return {
    runOnce,
    runOrphans,
    stop() {
      if (timer) clearInterval(timer);
      if (orphanTimer) clearTimeout(orphanTimer);
    },
  };
}
