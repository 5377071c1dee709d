// A cross-instance signal on Redis pub/sub: "something changed, drop your
// cache". Used so a key revoked or edited on one instance stops (or starts)
// working on every instance at once, not only after the cache's lifetime.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";

export interface SharedSignal {
  /** Tells the other instances (never this one). */
  send(): void;
  /** Registers what to do when another instance sends. */
  on(fn: () => void): void;
  close(): Promise<void>;
}

export function redisSignal(opts: { url: string; prefix: string; name: string }): SharedSignal & { ready: Promise<void> } {
  const origin = randomUUID();
  const channel = `${opts.prefix}signal:${opts.name}`;
  const pub = new Redis(opts.url, { maxRetriesPerRequest: 1 });
  const sub = new Redis(opts.url, { maxRetriesPerRequest: null });
  pub.on("error", () => undefined);
  sub.on("error", () => undefined);
  const handlers: (() => void)[] = [];
  sub.on("message", (ch: string, from: string) => {
    if (ch !== channel || from === origin) return;
    for (const fn of handlers) fn();
  });
  const ready = sub.subscribe(channel).then(() => undefined);
  ready.catch(() => undefined);
  return {
    ready,
    send() {
      // At most once: the cache's short lifetime covers a lost message.
      pub.publish(channel, origin).catch(() => undefined);
    },
    on(fn) {
      handlers.push(fn);
    },
    async close() {
      sub.disconnect();
      await pub.quit().catch(() => pub.disconnect());
    },
  };
}
