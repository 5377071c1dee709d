// In-memory scheduling state of the runner's queues: which tasks hold a slot,
// which wait (FIFO), and how many admissions are being written right now.
// Storage is the truth; this is rebuilt from it on start.

export interface QueueLimits {
  /** Tasks running at once. */
  concurrency: number;
  /** Tasks that may wait for a slot. */
  queueSize: number;
}

export interface QueueLoad extends QueueLimits {
  running: number;
  queued: number;
}

interface QueueState extends QueueLimits {
  running: Set<string>;
  waiting: string[];
  /** Admissions accepted but not yet in `waiting` (their write is in flight). */
  reserved: number;
}

export class Queues {
  private readonly map = new Map<string, QueueState>();

  define(name: string, limits: QueueLimits): void {
    const q = this.map.get(name);
    if (q) Object.assign(q, limits);
    else this.map.set(name, { ...limits, running: new Set(), waiting: [], reserved: 0 });
  }

  has(name: string): boolean {
    return this.map.has(name);
  }

  names(): string[] {
    return [...this.map.keys()];
  }

  load(name: string): QueueLoad {
    const q = this.map.get(name);
    if (!q) return { concurrency: 0, queueSize: 0, running: 0, queued: 0 };
    return { concurrency: q.concurrency, queueSize: q.queueSize, running: q.running.size, queued: q.waiting.length + q.reserved };
  }

  /** Whether one more task fits (a free slot, or room in the waiting line). */
  hasRoom(name: string): boolean {
    const q = this.map.get(name);
    if (!q) return false;
    return q.running.size + q.waiting.length + q.reserved < q.concurrency + q.queueSize;
  }

  /** Reserves room for an admission being written; false when full. */
  reserve(name: string): boolean {
    if (!this.hasRoom(name)) return false;
    this.map.get(name)!.reserved++;
    return true;
  }

  release(name: string): void {
    const q = this.map.get(name);
    if (q && q.reserved > 0) q.reserved--;
  }

  /** Appends a task to the waiting line (after its reservation, if any, was released). */
  enqueue(name: string, id: string): void {
    const q = this.map.get(name);
    if (q && !q.waiting.includes(id) && !q.running.has(id)) q.waiting.push(id);
  }

  /** Marks a task as holding a slot (a resumed task may exceed the concurrency). */
  occupy(name: string, id: string): void {
    this.map.get(name)?.running.add(id);
  }

  /** Takes the next waiting tasks that fit into free slots, marking them running. */
  take(name: string): string[] {
    const q = this.map.get(name);
    if (!q) return [];
    const out: string[] = [];
    while (q.running.size < q.concurrency && q.waiting.length > 0) {
      const id = q.waiting.shift()!;
      q.running.add(id);
      out.push(id);
    }
    return out;
  }

  /** Forgets a task wherever it is (finished, cancelled, timed out). */
  remove(id: string): void {
    for (const q of this.map.values()) {
      q.running.delete(id);
      const i = q.waiting.indexOf(id);
      if (i >= 0) q.waiting.splice(i, 1);
    }
  }

  isRunning(id: string): boolean {
    for (const q of this.map.values()) if (q.running.has(id)) return true;
    return false;
  }

  /** 1-based place in its waiting line, or 0 when not waiting. */
  position(id: string): number {
    for (const q of this.map.values()) {
      const i = q.waiting.indexOf(id);
      if (i >= 0) return i + 1;
    }
    return 0;
  }
}
