// Runs after authentication on every core call: the key's format scope, then
// its rate limits. A concurrency slot is held until a stream's last message.
// A call the tenancy gates refuse (scope, rate limit, or a meter's budget
// check further in) gets one usage record, `rejected:<reason>`; errors from
// the services themselves are recorded by the services.
import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { recordQuietly, type UsageStore } from "../../storage/types.js";
import { formatKey, principalKey, requestIdKey, type Principal } from "../context.js";
import { errorDetail } from "../errors.js";
import { hasLimits, type RateLimiter } from "./limiter.js";
import { checkFormat, GATE } from "./scope.js";
import { watchStream } from "../transport-streams.js";

export interface TenancyInterceptorDeps {
  limiter: RateLimiter;
  usage?: UsageStore | undefined;
  now?: (() => number) | undefined;
}

/** The client-facing model of a request, where its message has one. */
function modelOf(message: unknown): string {
  const m = message as { input?: { model?: string }; options?: { model?: string }; model?: string } | undefined;
  return m?.input?.model ?? m?.options?.model ?? m?.model ?? "";
}

export function tenancyInterceptor(deps: TenancyInterceptorDeps): Interceptor {
  const now = deps.now ?? Date.now;
  // Calls without a principal pass straight through, and calls of a key
  // without rate limits go on with no async frame of their own.
  return (next) => (req) => {
    const p = req.contextValues.get(principalKey);
    if (!p) return next(req);
    const started = now();
    try {
      checkFormat(p, req.contextValues.get(formatKey));
    } catch (err) {
      return Promise.reject(refused(req, p, started, err));
    }
    if (!hasLimits(p.limits)) return next(req).catch((err: unknown) => Promise.reject(refused(req, p, started, err)));
    return limited(next, req, p, started);
  };

  async function limited(next: Parameters<Interceptor>[0], req: Parameters<ReturnType<Interceptor>>[0], p: Principal, started: number) {
    try {
      const release = await deps.limiter.acquire(p.keyId, p.limits);
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
      return { ...res, message: watchStream(res.message, { end: release }) };
    } catch (err) {
      throw refused(req, p, started, err);
    }
  }

  /** Records a refusal by a tenancy gate (scope, rate limit, budget) as a usage row; returns the error. */
  function refused(req: Parameters<ReturnType<Interceptor>>[0], p: Principal, started: number, err: unknown): unknown {
    const detail = err instanceof ConnectError ? errorDetail(err) : undefined;
    if (deps.usage && detail?.metadata.gate === GATE.gate) {
      recordQuietly(deps.usage, {
        time: started,
        keyId: p.keyId,
        format: req.contextValues.get(formatKey),
        model: req.stream ? "" : modelOf(req.message),
        channel: "",
        inputTokens: 0,
        outputTokens: 0,
        images: 0,
        seconds: 0,
        credits: 0,
        status: `rejected:${detail.reason}`,
        latencyMs: now() - started,
        requestId: req.contextValues.get(requestIdKey),
      });
    }
    return err;
  }
}
