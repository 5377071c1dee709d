// Delivers the durable callback outbox: for each task, its messages in seq
// order (a later one waits while an earlier one is pending), retried with
// exponential backoff up to a number of attempts, then left "dead". A failing
// receiver only delays that task's own callbacks. With several instances,
// each message is claimed by one worker for a while (longer than an attempt
// can take), so two instances do not send it at once; a worker that dies
// mid-attempt leaves its claim to expire and another sends it again (at least
// once, same webhook-id).
import type { OutboxMessage, TaskOutboxStore } from "../../storage/types.js";
import type { WebhookSender } from "./webhook-sender.js";

export interface OutboxOptions {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** How often due messages are looked for when nothing wakes the worker. */
  pollMs: number;
  /** Deliveries in flight at once (each to a different task). */
  concurrency: number;
}

export interface OutboxLog {
  warn(obj: object, msg: string): void;
}

/** Delay before attempt n+1 after n failed attempts. */
export function backoffMs(attempts: number, base: number, max: number): number {
  return Math.min(max, base * 2 ** Math.max(0, attempts - 1));
}

/** Which worker this is, and how long its claim on a message lasts. */
export interface OutboxClaims {
  owner: string;
  claimMs: number;
}

export class OutboxWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly store: TaskOutboxStore,
    private readonly sender: WebhookSender,
    private readonly opts: OutboxOptions,
    private readonly claims: OutboxClaims,
    private readonly now: () => number,
    private readonly log?: OutboxLog,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Looks for due messages now (after an enqueue). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
    await this.sender.close();
  }

  /** One pass over the due messages; resolves when their attempts are settled. */
  runOnce(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.schedule(0);
      } else this.schedule(this.opts.pollMs);
    });
    return this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runOnce().catch((err) => this.log?.warn({ err }, "callback outbox pass failed"));
    }, ms);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      // due() gives at most one message per task (its lowest pending seq), and claims exactly what this pass sends.
      const claimed = await this.store.claimDue(this.claims.owner, this.now(), this.opts.concurrency, this.claims.claimMs);
      const batch: OutboxMessage[] = claimed.filter((m) => !this.inFlight.has(m.taskId));
      if (batch.length === 0) return;
      await Promise.all(batch.map((m) => this.deliver(m)));
    }
  }

  private async deliver(m: OutboxMessage): Promise<void> {
    this.inFlight.add(m.taskId);
    try {
      const out = await this.sender.send(m, this.now());
      const attempts = m.attempts + 1;
      const t = this.now();
      if (out.ok) {
        await this.store.settle(m.id, { status: "delivered", attempts, nextAttemptTime: m.nextAttemptTime, updateTime: t, owner: this.claims.owner });
        return;
      }
      const dead = !out.retry || attempts >= this.opts.maxAttempts;
      if (dead) this.log?.warn({ callback: m.id, task: m.taskId, attempts, error: out.error }, "callback given up");
      await this.store.settle(m.id, {
        status: dead ? "dead" : "pending",
        attempts,
        nextAttemptTime: dead ? m.nextAttemptTime : t + backoffMs(attempts, this.opts.baseDelayMs, this.opts.maxDelayMs),
        lastError: out.error,
        updateTime: t,
        owner: this.claims.owner,
      });
    } finally {
      this.inFlight.delete(m.taskId);
    }
  }
}
