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
import { guardStream, type GuardedStream } from "../chat/stream-guard.js";
import { DONE } from "../iter.js";
import { asConnectError, Code, coreError, errorDetail } from "../errors.js";
import type { ChatRoute, ChatRouting, RetryPolicy } from "./chat-routing.js";

/** What the walker needs of a routing (chat's, embeddings'): its retry policy and where to report each attempt. */
export interface Routed<R> {
  readonly policy: RetryPolicy;
  report(route: R, ok: boolean, err?: ConnectError): void;
}

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

interface Plan<R extends { channel: string }> {
  routes: R[];
  routing: Routed<R>;
  signal: AbortSignal;
}

/** Walks the attempts: yields each (route, try) to run, and decides after each failure. */
async function* attempts<R extends { channel: string }>(plan: Plan<R>): AsyncGenerator<R, ConnectError | undefined, ConnectError | undefined> {
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

/**
 * Runs a unary call over the routes with retry and fallover.
 *
 * The first attempt (the walker's first step, whatever the policy) runs
 * without the walker and without an async frame of its own (one promise, not
 * three, on the path nearly every call takes); the walker is made only when
 * there is a failure to decide on.
 */
export function unaryWithFallback<T, R extends { channel: string } = ChatRoute>(routing: Routed<R>, routes: R[], signal: AbortSignal, run: (route: R) => Promise<T>): Promise<T> {
  const first = routes[0];
  if (!first || routing.policy.maxAttempts < 1) return fallover(routing, routes, signal, run, undefined);
  let attempt: Promise<T>;
  try {
    // A native promise is passed through as is (Promise.resolve makes none).
    attempt = Promise.resolve(run(first));
  } catch (err) {
    return fallover(routing, routes, signal, run, asConnectError(err));
  }
  return attempt.then(
    (value) => {
      routing.report(first, true);
      return value;
    },
    (err: unknown) => fallover(routing, routes, signal, run, asConnectError(err)),
  );
}

/** The attempts after the first: `failed` is the first attempt's error (undefined when it was not made). */
async function fallover<T, R extends { channel: string }>(routing: Routed<R>, routes: R[], signal: AbortSignal, run: (route: R) => Promise<T>, failed: ConnectError | undefined): Promise<T> {
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

/** What the caller of streamWithFallback adds to the stream (the chat service: cache accounting, usage capture, the usage record). */
export interface FallbackWatch {
  /** Each event, before it is passed on. */
  each?(e: StreamGenerateResponse): void;
  /**
   * Once, when a started stream ends: it completed, it failed (with the error
   * its reader gets), or its reader stopped early (neither).
   */
  end?(how: { completed: boolean; error?: ConnectError }): void;
}

/**
 * Streams over the routes with retry and fallover until the first event is
 * out; each attempt's events pass through the stream guard.
 */
export function streamWithFallback(
  routing: ChatRouting,
  routes: ChatRoute[],
  signal: AbortSignal,
  open: (route: ChatRoute) => AsyncIterable<StreamGenerateResponse>,
  watch: FallbackWatch = {},
): FallbackStream {
  return new FallbackStream(routing, routes, signal, open, watch);
}

type Ev = StreamGenerateResponse;

/**
 * The stream streamWithFallback returns. The first `next()` walks the
 * attempts (an async function, once a stream); after that each `next()` is
 * the guarded stream's own plus synchronous work (the abort check, the
 * watch), where an async generator relaying the events cost a promise, a
 * result and a resumption per event. `return()` waits for a `next()` that is
 * still running, as a generator's would.
 */
export class FallbackStream implements AsyncIterableIterator<Ev> {
  private events: GuardedStream | undefined;
  private route: ChatRoute | undefined;
  private started = false;
  private over = false;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly routing: ChatRouting,
    private readonly routes: ChatRoute[],
    private readonly signal: AbortSignal,
    private readonly open: (route: ChatRoute) => AsyncIterable<Ev>,
    private readonly watch: FallbackWatch,
  ) {}

  [Symbol.asyncIterator](): AsyncIterableIterator<Ev> {
    return this;
  }

  next(): Promise<IteratorResult<Ev>> {
    let p: Promise<IteratorResult<Ev>>;
    if (this.over) p = Promise.resolve(DONE);
    else if (this.events) p = this.events.next().then(this.onEvent, this.onError);
    else if (!this.started) {
      this.started = true;
      p = this.first();
    } else {
      // A next() beside the opening one waits for it, as a generator's would.
      const again = () => this.next();
      p = this.running!.then(again, again);
    }
    this.running = p;
    return p;
  }

  return(_value?: unknown): Promise<IteratorResult<Ev>> {
    const close = async (): Promise<IteratorResult<Ev>> => {
      if (this.over) return DONE;
      this.over = true;
      // A stream that never started ran nothing: nothing to close or report.
      if (!this.events) return DONE;
      try {
        await this.events.return();
      } finally {
        this.watch.end?.({ completed: false });
      }
      return DONE;
    };
    return this.running ? this.running.then(close, close) : close();
  }

  /** Walks the attempts until one gives its first event (or none is left). */
  private async first(): Promise<IteratorResult<Ev>> {
    const { routing, routes, signal } = this;
    try {
      const it = attempts({ routing, routes, signal });
      let step = await it.next(undefined);
      while (!step.done) {
        const route = step.value;
        let events: GuardedStream;
        let first: IteratorResult<Ev>;
        try {
          events = guardStream(this.open(route));
          first = await events.next();
        } catch (err) {
          step = await it.next(asConnectError(err));
          continue;
        }
        await it.return(undefined);
        routing.report(route, true);
        this.events = events;
        this.route = route;
        // The first event passes without the abort check the later ones get.
        if (first.done) return this.onEvent(first);
        this.watch.each?.(first.value);
        return first;
      }
      throw step.value ?? canceled();
    } catch (err) {
      this.over = true;
      const e = asConnectError(err);
      this.watch.end?.({ completed: false, error: e });
      throw e;
    }
  }

  private readonly onEvent = (r: IteratorResult<Ev>): IteratorResult<Ev> | Promise<IteratorResult<Ev>> => {
    if (r.done) {
      this.over = true;
      this.watch.end?.({ completed: true });
      return DONE;
    }
    // Once the caller is gone nobody reads what the guard may still
    // synthesise; end now so the caller's bookkeeping runs.
    if (this.signal.aborted) return this.fail(canceled());
    this.watch.each?.(r.value);
    return r;
  };

  private readonly onError = (err: unknown): Promise<IteratorResult<Ev>> => this.fail(err);

  /** Ends a committed stream with its failure: reported against the route, the source closed. */
  private async fail(err: unknown): Promise<never> {
    this.over = true;
    let e: ConnectError;
    // The caller went away: whatever the upstream did next is a cancellation.
    if (this.signal.aborted) e = canceled();
    else {
      e = asConnectError(err);
      if (countsAgainst(e)) this.routing.report(this.route!, false, e);
    }
    try {
      await this.events!.return();
    } catch {
      // The failure is what the reader learns.
    }
    this.watch.end?.({ completed: false, error: e });
    throw e;
  }
}
