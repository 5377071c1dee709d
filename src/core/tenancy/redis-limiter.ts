// Redis-backed limiter: the same contract as memoryLimiter, shared by every
// instance that uses the same Redis and key prefix. Buckets live in hashes
// updated by one Lua script (atomic, using Redis's clock so instances agree);
// concurrency slots are leases in a sorted set, so a crashed instance's slots
// expire instead of leaking.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { rateLimited, type Limits, type RateLimiter, type Release } from "./limiter.js";

const BUCKET = `
local capacity = tonumber(ARGV[1])
local rate = capacity / 60000
local cost = tonumber(ARGV[2])
local mode = ARGV[3]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1])
local at = tonumber(b[2])
if tokens == nil then tokens = capacity; at = now end
tokens = math.min(capacity, tokens + (now - at) * rate)
local ok = 1
local wait = 0
if mode == 'consume' then
  tokens = tokens - cost
elseif mode == 'positive' then
  if tokens <= 0 then ok = 0; wait = math.ceil((1 - tokens) / rate) end
else
  if tokens < cost then ok = 0; wait = math.ceil((cost - tokens) / rate) else tokens = tokens - cost end
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 120000)
return {ok, wait}
`;

const SLOT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

type Scripted = Redis & {
  ogBucket(key: string, capacity: number, cost: number, mode: string): Promise<[number, number]>;
  ogSlot(key: string, limit: number, member: string, leaseMs: number): Promise<number>;
};

export interface RedisLimiterOptions {
  url: string;
  prefix: string;
  /** How long a concurrency slot is held at most if its instance dies. */
  leaseMs?: number;
}

export function redisLimiter(opts: RedisLimiterOptions): RateLimiter {
  const redis = new Redis(opts.url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true }) as Scripted;
  redis.defineCommand("ogBucket", { numberOfKeys: 1, lua: BUCKET });
  redis.defineCommand("ogSlot", { numberOfKeys: 1, lua: SLOT });
  redis.on("error", () => undefined);
  const leaseMs = opts.leaseMs ?? 10 * 60_000;
  const k = (s: string) => `${opts.prefix}rl:${s}`;
  return {
    async acquire(keyId: string, l: Limits): Promise<Release> {
      if (l.tokensPerMinute > 0) {
        const [ok, wait] = await redis.ogBucket(k(`tpm:${keyId}`), l.tokensPerMinute, 0, "positive");
        if (!ok) throw rateLimited("tokens per minute", wait);
      }
      if (l.requestsPerMinute > 0) {
        const [ok, wait] = await redis.ogBucket(k(`rpm:${keyId}`), l.requestsPerMinute, 1, "take");
        if (!ok) throw rateLimited("requests per minute", wait);
      }
      if (l.concurrentRequests > 0) {
        const member = randomBytes(8).toString("hex");
        const slotKey = k(`conc:${keyId}`);
        if (!(await redis.ogSlot(slotKey, l.concurrentRequests, member, leaseMs))) throw rateLimited("concurrent requests", 1000);
        let released = false;
        return () => {
          if (released) return;
          released = true;
          void redis.zrem(slotKey, member).catch(() => undefined);
        };
      }
      return () => undefined;
    },
    async consumeTokens(keyId, l, tokens) {
      if (l.tokensPerMinute <= 0 || tokens <= 0) return;
      await redis.ogBucket(k(`tpm:${keyId}`), l.tokensPerMinute, tokens, "consume");
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
