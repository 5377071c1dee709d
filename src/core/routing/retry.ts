// Retry with backoff and fallover across routes. A retryable failure
// (connect error, 429, 5xx, timeout before the first byte, a stream that broke
// before its first event) is retried on the same route with exponential
// backoff, then the next route is tried. A few failures skip straight to the
// next route without retrying (the upstream refused the gateway's key, does not
// know the model, or cannot take a feature of the request). A stream is
// committed to its route once its first event has been passed on: later
// failures end the stream with the error, never with a silent switch.
import { setTimeout as sleep } from "node:timers/promises";
import type { ConnectError } from "@connectrpc/connect";
import type { StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { guardStream } from "../chat/stream-guard.js";
import { asConnectError, Code, coreError, errorDetail } from "../errors.js";
import type { ChatRoute, ChatRouting } from "./chat-routing.js";

const RETRY_REASONS = new Set(["rate_limited", "overloaded", "upstream_timeout", "upstream_unavailable", "upstream_error", "upstream_stream_truncated"]);
const FALLOVER_REASONS = new Set(["upstream_auth", "upstream_model_not_found", "unsupported_by_upstream"]);

/** Worth retrying on the same route. */
export function isRetryable(err: ConnectError): boolean {
  if (err.code === Code.Canceled) return false;
  const reason = errorDetail(err)?.reason ?? "";
  if (RETRY_REASONS.has(reason)) return true;
  return !reason && (err.code === Code.Unavailable || err.code === Code.ResourceExhausted);
}

/** Worth trying the next route. */
export function isFallover(err: ConnectError): boolean {
  return isRetryable(err) || FALLOVER_REASONS.has(errorDetail(err)?.reason ?? "");
}

/** Whether the failure counts against the route's health (cooldown). */
function countsAgainst(err: ConnectError): boolean {
  const reason = errorDetail(err)?.reason ?? "";
  return isRetryable(err) || reason === "upstream_auth";
}

function retryAfterMs(err: ConnectError): number {
  const d = errorDetail(err)?.retryAfter;
  return d ? Number(d.seconds) * 1000 + Math.round(d.nanos / 1e6) : 0;
}

/** Exponential backoff with jitter: base * 2^n, between 50% and 100% of it, capped. */
export function backoffDelay(attempt: number, base: number, max: number, rng: () => number = Math.random): number {
  const full = Math.min(max, base * 2 ** attempt);
  return Math.round(full / 2 + (rng() * full) / 2);
}

interface Plan {
  routes: ChatRoute[];
  routing: ChatRouting;
  signal: AbortSignal;
}

/** Walks the attempts: yields each (route, try) to run, and decides after each failure. */
async function* attempts(plan: Plan): AsyncGenerator<ChatRoute, ConnectError | undefined, ConnectError | undefined> {
  const { routing, routes, signal } = plan;
  const policy = routing.policy;
  let used = 0;
  let last: ConnectError | undefined;
  for (const route of routes) {
    const retries = policy.retries(route.channel);
    for (let t = 0; t <= retries; t++) {
      if (used >= policy.maxAttempts) return last;
      used++;
      const err = yield route;
      if (!err) return undefined;
      last = err;
      if (signal.aborted) throw canceled();
      if (err.code === Code.Canceled) throw err;
      if (countsAgainst(err)) routing.report(route, false, err);
      if (!isFallover(err)) throw err;
      if (!isRetryable(err) || t === retries || used >= policy.maxAttempts) break;
      const ra = retryAfterMs(err);
      if (ra > policy.maxBackoffMs) break;
      const delay = Math.max(ra, backoffDelay(t, policy.backoffMs, policy.maxBackoffMs));
      if (delay > 0) {
        try {
          await sleep(delay, undefined, { signal });
        } catch {
          throw canceled();
        }
      }
    }
  }
  return last;
}

function canceled(): ConnectError {
  return coreError(Code.Canceled, "the request was canceled", { reason: "canceled" });
}

/** Runs a unary call over the routes with retry and fallover. */
export async function unaryWithFallback<T>(routing: ChatRouting, routes: ChatRoute[], signal: AbortSignal, run: (route: ChatRoute) => Promise<T>): Promise<T> {
  // The first attempt (the walker's first step, whatever the policy) runs
  // without the walker; the walker is made only when there is a failure to decide on.
  const first = routes[0];
  let failed: ConnectError | undefined;
  if (first && routing.policy.maxAttempts >= 1) {
    try {
      const value = await run(first);
      routing.report(first, true);
      return value;
    } catch (err) {
      failed = asConnectError(err);
    }
  }
  const it = attempts({ routing, routes, signal });
  let step = await it.next(undefined);
  if (failed) step = await it.next(failed);
  while (!step.done) {
    const route = step.value;
    try {
      const value = await run(route);
      routing.report(route, true);
      await it.return(undefined);
      return value;
    } catch (err) {
      step = await it.next(asConnectError(err));
    }
  }
  throw step.value ?? canceled();
}

/**
 * Streams over the routes with retry and fallover until the first event is
 * out; each attempt's events pass through the stream guard.
 */
export async function* streamWithFallback(
  routing: ChatRouting,
  routes: ChatRoute[],
  signal: AbortSignal,
  open: (route: ChatRoute) => AsyncIterable<StreamGenerateResponse>,
): AsyncGenerator<StreamGenerateResponse> {
  const it = attempts({ routing, routes, signal });
  let step = await it.next(undefined);
  while (!step.done) {
    const route = step.value;
    let events: AsyncIterator<StreamGenerateResponse>;
    let first: IteratorResult<StreamGenerateResponse>;
    try {
      events = guardStream(open(route))[Symbol.asyncIterator]();
      first = await events.next();
    } catch (err) {
      step = await it.next(asConnectError(err));
      continue;
    }
    await it.return(undefined);
    routing.report(route, true);
    try {
      if (first.done) return;
      yield first.value;
      for (;;) {
        const n = await events.next();
        if (n.done) return;
        // Once the caller is gone nobody reads what the guard may still
        // synthesise; end now so the caller's bookkeeping runs.
        if (signal.aborted) throw canceled();
        yield n.value;
      }
    } catch (err) {
      // The caller went away: whatever the upstream did next is a cancellation.
      if (signal.aborted) throw canceled();
      const e = asConnectError(err);
      if (countsAgainst(e)) routing.report(route, false, e);
      throw e;
    } finally {
      await events.return?.(undefined);
    }
  }
  throw step.value ?? canceled();
}
