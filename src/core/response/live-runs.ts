// The background responses this instance generates now, in memory: each
// one's neutral events so far and, once it has ended, how. Readers replay the
// events from any index and wait for more. An ended run stays for a grace
// period (its events are in storage by then), so a reader that arrives just
// after the end still finds it here.
import type { StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { BackgroundResponse_State } from "../../../gen/omnigate/response/v1/response_pb.js";
import type { StoredFailure } from "./background-task.js";

/** How a live run ended; `abandoned` when this instance stopped running it (the gateway stopping, a lost lease). */
export interface RunEnd {
  state: BackgroundResponse_State;
  error?: StoredFailure | undefined;
  finishMs: number;
  abandoned?: boolean;
}

export class LiveRun {
  readonly events: StreamGenerateResponse[] = [];
  end: RunEnd | undefined;
  private waiters = new Set<() => void>();

  push(ev: StreamGenerateResponse): void {
    if (this.end) return;
    this.events.push(ev);
    this.wake();
  }

  /** Ends the run (the first end counts). */
  finish(end: RunEnd): void {
    if (this.end) return;
    this.end = end;
    this.wake();
  }

  /** Resolves at the next event or end, or when `signal` fires. */
  changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      if (signal.aborted) return resolve();
      this.waiters.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

export class LiveRuns {
  private readonly runs = new Map<string, LiveRun>();
  private readonly openers = new Map<string, Set<() => void>>();

  constructor(private readonly graceMs = 60_000) {}

  get(id: string): LiveRun | undefined {
    return this.runs.get(id);
  }

  /** A new run (replacing an earlier one of the same id: a re-run starts from the first event). */
  open(id: string): LiveRun {
    const run = new LiveRun();
    this.runs.set(id, run);
    for (const fn of this.openers.get(id) ?? []) fn();
    return run;
  }

  /** Ends a run and forgets it after the grace period. */
  finish(id: string, run: LiveRun, end: RunEnd): void {
    run.finish(end);
    const forget = () => {
      if (this.runs.get(id) === run) this.runs.delete(id);
    };
    if (end.abandoned || this.graceMs <= 0) forget();
    else setTimeout(forget, this.graceMs).unref();
  }

  /** Calls `fn` when a run of `id` opens here; returns the unsubscribe function. */
  onOpen(id: string, fn: () => void): () => void {
    let set = this.openers.get(id);
    if (!set) this.openers.set(id, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.openers.delete(id);
    };
  }
}
