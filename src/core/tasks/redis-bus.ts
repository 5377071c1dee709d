// The cross-instance task event bus on Redis pub/sub: each committed change is
// published as JSON on one channel per key prefix; every instance subscribes
// and hands the others' changes to its TaskEvents. Pub/sub is at most once, so
// watchers also re-read storage (events.ts); a lost message only delays them.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { TaskEventBus } from "./events.js";
import type { StoredTask } from "./types.js";

export interface RedisBusOptions {
  url: string;
  prefix: string;
  /** Identifies this instance's own messages (which it skips). */
  instanceId?: string;
  log?: { warn(obj: object, msg: string): void };
}

interface Envelope {
  o: string;
  t: StoredTask;
}

export function redisEventBus(opts: RedisBusOptions): TaskEventBus & { ready: Promise<void> } {
  const origin = opts.instanceId ?? randomUUID();
  const channel = `${opts.prefix}task-events`;
  const pub = new Redis(opts.url, { maxRetriesPerRequest: 1, enableOfflineQueue: true });
  const sub = new Redis(opts.url, { maxRetriesPerRequest: null, enableOfflineQueue: true });
  pub.on("error", () => undefined);
  sub.on("error", () => undefined);
  let receiver: ((task: StoredTask) => void) | undefined;
  let warned = false;
  sub.on("message", (ch: string, raw: string) => {
    if (ch !== channel || !receiver) return;
    let env: Envelope;
    try {
      env = JSON.parse(raw) as Envelope;
    } catch {
      return;
    }
    if (env.o === origin || !env.t || typeof env.t.id !== "string") return;
    receiver(env.t);
  });
  const ready = sub.subscribe(channel).then(() => undefined);
  ready.catch((err) => opts.log?.warn({ err }, "task event bus: subscribe failed"));
  return {
    ready,
    publish(task) {
      pub.publish(channel, JSON.stringify({ o: origin, t: task } satisfies Envelope)).catch((err) => {
        if (warned) return;
        warned = true;
        opts.log?.warn({ err }, "task event bus: publish failed (watchers fall back to re-reading storage)");
      });
    },
    onRemote(fn) {
      receiver = fn;
    },
    async close() {
      sub.disconnect();
      await pub.quit().catch(() => pub.disconnect());
    },
  };
}
