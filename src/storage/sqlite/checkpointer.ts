// Runs SQLite's WAL checkpoints on a worker thread with a connection of its
// own. The writing connection's automatic checkpoint runs inside the commit
// that crosses the WAL's threshold, so its two fsyncs (10-40 ms on a cloud
// disk) stalled the event loop every second or two under chat load.
import { Worker } from "node:worker_threads";
import { createRequire } from "node:module";

/** How often the worker checkpoints; a pass over an unchanged WAL costs nothing. */
export const CHECKPOINT_MS = 1000;

// Plain JS run with `eval`, so that it loads the same way under tsx, tap and
// the built server; dynamic imports work whether Node treats it as CJS or ESM.
const WORKER_SOURCE = `(async () => {
  const { workerData, parentPort } = await import("node:worker_threads");
  const { createRequire } = await import("node:module");
  const Database = createRequire(workerData.module)(workerData.module);
  const db = new Database(workerData.file);
  db.pragma("busy_timeout = 5000");
  db.pragma("synchronous = NORMAL");
  db.pragma("wal_autocheckpoint = 0");
  // PASSIVE: copies what no reader still needs and never waits for a lock.
  const run = () => db.pragma("wal_checkpoint(PASSIVE)");
  const timer = setInterval(run, workerData.intervalMs);
  parentPort.on("message", (m) => {
    if (m !== "close") return;
    clearInterval(timer);
    db.close();
    parentPort.close();
  });
  parentPort.postMessage("ready");
})();`;

export interface Checkpointer {
  /** Resolves once the worker has run its first statement (tests). */
  readonly ready: Promise<boolean>;
  /** Stops the worker and closes its connection. */
  close(): Promise<void>;
}

/**
 * Starts checkpointing `file` off the event loop. If the worker fails,
 * `onFail` runs once (the caller turns the automatic checkpoint back on).
 */
export function startCheckpointer(file: string, opts: { intervalMs?: number; onFail: (err: Error) => void }): Checkpointer {
  const module = createRequire(import.meta.url).resolve("better-sqlite3");
  // Small heap limits: the worker holds one connection and a timer.
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    execArgv: [],
    workerData: { module, file, intervalMs: opts.intervalMs ?? CHECKPOINT_MS },
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
  });
  worker.unref();
  let closing = false;
  let failed = false;
  const fail = (err: Error) => {
    if (failed || closing) return;
    failed = true;
    opts.onFail(err);
  };
  const ready = new Promise<boolean>((resolve) => {
    worker.once("message", (m) => resolve(m === "ready"));
    worker.once("exit", () => resolve(false));
  });
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the SQLite checkpoint worker exited (${code})`)));
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return {
    ready,
    async close() {
      if (closing) return exited;
      closing = true;
      if (failed) return;
      worker.postMessage("close");
      // A worker that cannot finish closing is stopped: close() must not hang.
      const timer = setTimeout(() => void worker.terminate(), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
