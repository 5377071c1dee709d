// Polling an upstream task with backoff: the wait starts at `firstMs` and
// doubles up to `maxMs` (with a little jitter so many tasks do not poll in
// step); a transient failure of one poll (unreachable, overloaded, rate
// limited, timed out) is retried, honouring retry-after, until `maxErrors`
// failures in a row. Any other error ends the polling at once.
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail } from "../errors.js";

export interface PollOptions {
  firstMs: number;
  maxMs: number;
  signal: AbortSignal;
  /** Consecutive transient failures tolerated. */
  maxErrors?: number;
  /** Random source for jitter (tests pass a constant). */
  random?: () => number;
}

/** The wait before poll number `attempt` (0-based), without jitter. */
export function backoffDelay(attempt: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(attempt, 30));
}

const TRANSIENT = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.ResourceExhausted, Code.Unknown]);

export function isTransient(err: unknown): boolean {
  return err instanceof ConnectError && TRANSIENT.has(err.code);
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Calls `check` until it returns a value (not undefined), waiting with backoff in between. */
export async function pollUntil<T>(check: () => Promise<T | undefined>, opts: PollOptions): Promise<T> {
  const random = opts.random ?? Math.random;
  const maxErrors = opts.maxErrors ?? 5;
  let errors = 0;
  for (let attempt = 0; ; attempt++) {
    let wait = backoffDelay(attempt, opts.firstMs, opts.maxMs);
    try {
      const v = await check();
      if (v !== undefined) return v;
      errors = 0;
    } catch (err) {
      if (opts.signal.aborted || !isTransient(err) || ++errors >= maxErrors) throw err;
      const ra = errorDetail(err as ConnectError)?.retryAfter;
      if (ra) wait = Math.max(wait, Number(ra.seconds) * 1000 + Math.floor(ra.nanos / 1e6));
    }
    await sleep(Math.round(wait * (0.9 + random() * 0.2)), opts.signal);
  }
}
