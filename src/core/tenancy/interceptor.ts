// Runs after authentication on every core call: the key's format scope, then
// its rate limits. A concurrency slot is held until a stream's last message.
import type { Interceptor } from "@connectrpc/connect";
import { formatKey, principalKey } from "../context.js";
import { hasLimits, type RateLimiter } from "./limiter.js";
import { checkFormat } from "./scope.js";

export function tenancyInterceptor(limiter: RateLimiter): Interceptor {
  return (next) => async (req) => {
    const p = req.contextValues.get(principalKey);
    if (!p) return next(req);
    checkFormat(p, req.contextValues.get(formatKey));
    if (!hasLimits(p.limits)) return next(req);
    const release = await limiter.acquire(p.keyId, p.limits);
    let res;
    try {
      res = await next(req);
    } catch (err) {
      release();
      throw err;
    }
    if (!res.stream) {
      release();
      return res;
    }
    const inner = res.message;
    return {
      ...res,
      message: (async function* () {
        try {
          yield* inner;
        } finally {
          release();
        }
      })(),
    };
  };
}
