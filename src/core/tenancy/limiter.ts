// Per-key rate limits: requests per minute and tokens per minute as token
// buckets, and a cap on concurrent requests. Two backends share this contract:
// in-process (the default) and Redis (several instances, one limit).
import type { RateLimitsRecord } from "../../storage/types.js";
import { coreError, Code } from "../errors.js";
import { GATE } from "./scope.js";

export type Limits = RateLimitsRecord;

/** Releases a concurrency slot; safe to call more than once. */
export type Release = () => void;

export interface RateLimiter {
  /** Takes a request and a concurrency slot, or throws ResourceExhausted (reason rate_limited) with retry-after. */
  acquire(keyId: string, limits: Limits): Promise<Release>;
  /** Records tokens a finished request used (tokens per minute). */
  consumeTokens(keyId: string, limits: Limits, tokens: number): Promise<void>;
  close(): Promise<void>;
}

export function rateLimited(what: string, retryAfterMs: number) {
  return coreError(Code.ResourceExhausted, `rate limit exceeded: ${what}`, { reason: "rate_limited", retryAfterMs: Math.max(1000, Math.ceil(retryAfterMs)), metadata: GATE });
}

export const hasLimits = (l: Limits) => l.requestsPerMinute > 0 || l.tokensPerMinute > 0 || l.concurrentRequests > 0;

interface Bucket {
  tokens: number;
  at: number;
}

/** In-process limiter: exact within one process. */
export function memoryLimiter(now: () => number = Date.now): RateLimiter {
  const buckets = new Map<string, Bucket>();
  const running = new Map<string, number>();
  const refill = (key: string, capacity: number) => {
    const t = now();
    const rate = capacity / 60_000;
    const b = buckets.get(key) ?? { tokens: capacity, at: t };
    b.tokens = Math.min(capacity, b.tokens + (t - b.at) * rate);
    b.at = t;
    buckets.set(key, b);
    return { b, rate };
  };
  return {
    async acquire(keyId, l) {
      if (l.tokensPerMinute > 0) {
        const { b, rate } = refill(`tpm:${keyId}`, l.tokensPerMinute);
        if (b.tokens <= 0) throw rateLimited("tokens per minute", (1 - b.tokens) / rate);
      }
      if (l.requestsPerMinute > 0) {
        const { b, rate } = refill(`rpm:${keyId}`, l.requestsPerMinute);
        if (b.tokens < 1) throw rateLimited("requests per minute", (1 - b.tokens) / rate);
        b.tokens -= 1;
      }
      if (l.concurrentRequests > 0) {
        const n = running.get(keyId) ?? 0;
        if (n >= l.concurrentRequests) throw rateLimited("concurrent requests", 1000);
        running.set(keyId, n + 1);
        let released = false;
        return () => {
          if (released) return;
          released = true;
          // A key's count stays in the map at 0 rather than being deleted: adding and deleting a key on
          // every request would make V8 rehash this long-lived map's table into the old generation.
          // One entry per key that has a concurrency limit.
          running.set(keyId, Math.max(0, (running.get(keyId) ?? 1) - 1));
        };
      }
      return () => undefined;
    },
    async consumeTokens(keyId, l, tokens) {
      if (l.tokensPerMinute <= 0 || tokens <= 0) return;
      refill(`tpm:${keyId}`, l.tokensPerMinute).b.tokens -= tokens;
    },
    async close() {
      buckets.clear();
      running.clear();
    },
  };
}
