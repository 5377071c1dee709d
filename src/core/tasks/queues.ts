// The runner's queues: their limits (from configuration), and the latest load
// read from storage by this instance's claims. Storage is the scheduler: the
// limits are enforced there (claims and admissions); the load here only
// guides choices such as which image-bot account to try.

export interface QueueLimits {
  /** Tasks running at once (across every instance). */
  concurrency: number;
  /** Tasks that may wait for a slot. */
  queueSize: number;
}

export interface QueueLoad extends QueueLimits {
  running: number;
  queued: number;
}

export class Queues {
  private readonly map = new Map<string, QueueLoad>();

  define(name: string, limits: QueueLimits): void {
    const q = this.map.get(name);
    if (q) Object.assign(q, limits);
    else this.map.set(name, { ...limits, running: 0, queued: 0 });
  }

  has(name: string): boolean {
    return this.map.has(name);
  }

  names(): string[] {
    return [...this.map.keys()];
  }

  limits(name: string): QueueLimits | undefined {
    const q = this.map.get(name);
    return q && { concurrency: q.concurrency, queueSize: q.queueSize };
  }

  /** Records the load a claim saw. */
  observe(name: string, running: number, queued: number): void {
    const q = this.map.get(name);
    if (q) Object.assign(q, { running, queued });
  }

  load(name: string): QueueLoad {
    const q = this.map.get(name);
    return q ? { ...q } : { concurrency: 0, queueSize: 0, running: 0, queued: 0 };
  }

  /** Whether one more task seems to fit (a free slot, or room in the waiting line); admission itself is checked in storage. */
  hasRoom(name: string): boolean {
    const q = this.map.get(name);
    return !!q && q.running + q.queued < q.concurrency + q.queueSize;
  }
}
