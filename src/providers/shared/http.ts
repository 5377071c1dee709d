// One upstream HTTP exchange over a channel's keep-alive pool, through
// undici's dispatch API with a handler of our own (a whole JSON answer, or a
// streamed one as a Node Readable): timeouts for the first byte (headers) and
// for the gap between body chunks, the caller's AbortSignal, and error
// statuses turned into ConnectErrors (the raw body goes to the log only).
import { Readable } from "node:stream";
import type { IncomingHttpHeaders } from "undici/types/header.js";
import { errors as undiciErrors, type Dispatcher, type Pool } from "undici";
import type { ConnectError } from "@connectrpc/connect";
import { protocolError, retryAfterMs, transportError, untranslatable, upstreamHttpError } from "./http-errors.js";
import type { UpstreamLogger } from "./log.js";
import { parseWellFormed } from "../../lib/unicode.js";

export interface UpstreamTimeouts {
  firstByteMs: number;
  chunkGapMs: number;
}

/** Everything needed to talk to one channel. */
export interface Upstream {
  vendor: "anthropic" | "openai" | "gemini";
  channel: string;
  /** Base URL as configured (path prefix included). */
  baseUrl: URL;
  pool: Pool;
  timeouts: UpstreamTimeouts;
  /** Headers every request carries (auth, channel headers). */
  headers: Record<string, string>;
  log: UpstreamLogger;
}

export interface UpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  contentType: string;
  body: Readable;
}

/** What a vendor can tell from its own error body. */
export interface VendorErrorInfo {
  vendorType?: string;
  retryAfterMs?: number;
  /** Overrides the status-based mapping (e.g. an overloaded_error inside a 500). */
  error?: ConnectError;
}

export type VendorErrorParser = (status: number, body: unknown) => VendorErrorInfo;

/** How a JSON POST is made: the caller's signal and request id, an optional query and headers, and the vendor's error parser. */
export interface PostOptions {
  signal: AbortSignal;
  requestId: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  parseError: VendorErrorParser;
}

const MAX_ERROR_BODY = 64 * 1024;
const MAX_JSON_BODY = 64 * 1024 * 1024;

/** Joins the channel's base path and an endpoint path ("/messages"). */
export function upstreamPath(base: URL, path: string, query?: Record<string, string>): string {
  const bp = base.pathname;
  const prefix = bp.endsWith("/") ? bp.replace(/\/+$/, "") : bp;
  const q = query && Object.keys(query).length ? "?" + new URLSearchParams(query).toString() : "";
  return `${prefix}${path}${q}`;
}

/**
 * Drops a body we will not read. undici turns a destroy before the end into an
 * 'error' event (RequestAbortedError); without a listener that would crash the
 * process, so one is attached first.
 */
export function discard(body: Readable): void {
  body.on("error", () => undefined);
  body.destroy();
}

export class BodyTooLargeError extends Error {
  override name = "BodyTooLargeError";
  constructor(readonly limit: number) {
    super(`body larger than ${limit} bytes`);
  }
}

/**
 * The chunks of a whole body, at most `limit` bytes; more is a
 * BodyTooLargeError (and the rest is dropped). Event listeners, not the
 * stream's async iterator (which costs several promises per chunk).
 */
function collect(body: Readable, limit: number): Promise<{ chunks: Buffer[]; size: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err: Error | undefined) => {
      body.off("data", onData);
      body.off("end", onEnd);
      body.off("error", onError);
      body.off("close", onClose);
      if (err) reject(err);
      else resolve({ chunks, size });
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        settle(new BodyTooLargeError(limit));
        discard(body);
        return;
      }
      chunks.push(c);
    };
    const onEnd = () => settle(undefined);
    const onError = (err: Error) => settle(err);
    // A body destroyed without an error never ends: that is a premature close, as the async iterator reports it.
    const onClose = () => settle(body.readableEnded ? undefined : Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
    body.on("data", onData);
    body.on("end", onEnd);
    body.on("error", onError);
    body.on("close", onClose);
  });
}

/** Reads a whole body, at most `limit` bytes; more is a BodyTooLargeError (and the rest is dropped). */
export async function readBody(body: Readable, limit: number): Promise<Buffer> {
  const { chunks, size } = await collect(body, limit);
  return Buffer.concat(chunks, size);
}

/** Reads a whole body as text, at most `limit` bytes (more is an error). */
export async function readText(body: Readable, limit: number): Promise<string> {
  const { chunks, size } = await collect(body, limit);
  return chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, size).toString("utf8");
}

/** An upstream's JSON (unpaired surrogates made U+FFFD: the neutral model cannot hold them); undefined when it does not parse. */
function safeJson(text: string): unknown {
  try {
    return parseWellFormed(text);
  } catch {
    return undefined;
  }
}

/**
 * POSTs a JSON body. Resolves with the open response when the status is 2xx;
 * throws a ConnectError otherwise (status mapped, vendor details parsed).
 */
export async function postJson(up: Upstream, path: string, payload: unknown, opts: PostOptions): Promise<UpstreamResponse> {
  const started = Date.now();
  let res: UpstreamResponse;
  try {
    res = await new Promise<UpstreamResponse>((resolve, reject) => {
      if (opts.signal.aborted) return reject(new undiciErrors.RequestAbortedError());
      up.pool.dispatch(
        {
          path: upstreamPath(up.baseUrl, path, opts.query),
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...up.headers, ...opts.headers },
          body: JSON.stringify(payload),
          // The handler times the first byte and the chunk gaps itself (see TimedExchange).
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        new StreamAnswerHandler(opts.signal, up.timeouts, resolve, reject),
      );
    });
  } catch (err) {
    const e = transportError(err, up.vendor, "connect");
    up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: opts.requestId, path, err, ms: Date.now() - started }, "upstream request failed");
    throw e;
  }
  if (res.status >= 200 && res.status < 300) return res;
  let text = "";
  try {
    text = await readText(res.body, MAX_ERROR_BODY);
  } catch {
    discard(res.body);
  }
  throw answeredError(up, path, opts, { status: res.status, headers: res.headers, text }, started);
}

/** The ConnectError for an upstream's error status (logged with its body; the vendor's parser reads it). */
function answeredError(up: Upstream, path: string, opts: PostOptions, a: WholeAnswer, started: number): ConnectError {
  const info = opts.parseError(a.status, safeJson(a.text));
  up.log.warn(
    { channel: up.channel, upstream: up.vendor, requestId: opts.requestId, path, status: a.status, vendorType: info.vendorType, body: a.text.slice(0, 4096), ms: Date.now() - started },
    "upstream answered with an error",
  );
  if (info.error) return info.error;
  return upstreamHttpError({
    status: a.status,
    vendor: up.vendor,
    body: a.text,
    ...(info.vendorType ? { vendorType: info.vendorType } : {}),
    retryAfterMs: info.retryAfterMs ?? retryAfterMs(a.headers),
  });
}

/** A 2xx body as a JSON object; anything else is a protocol error. */
function jsonObject(up: Upstream, text: string): unknown {
  const v = safeJson(text);
  if (v === undefined || v === null || typeof v !== "object") {
    up.log.warn({ channel: up.channel, upstream: up.vendor, body: text.slice(0, 4096) }, "upstream sent a body that is not a JSON object");
    throw protocolError(up.vendor, "response is not a JSON object");
  }
  return v;
}

/** Reads a whole JSON response body; malformed JSON is a protocol error. */
export async function readJson(up: Upstream, res: UpstreamResponse): Promise<unknown> {
  let text: string;
  try {
    text = await readText(res.body, MAX_JSON_BODY);
  } catch (err) {
    throw transportError(err, up.vendor, "body");
  }
  return jsonObject(up, text);
}

/** What a whole exchange collected: the status, the headers and the body text. */
interface WholeAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One request and its whole answer through undici's dispatch API: the handler
 * collects the body chunks itself, so no Readable stream, stream events or
 * abort-signal wiring inside undici are made for it (about a third of what a
 * `request()` plus a body read costs per call). A 2xx body over MAX_JSON_BODY,
 * or an error body over MAX_ERROR_BODY, aborts the exchange.
 */
function dispatchWhole(up: Upstream, opts: Dispatcher.DispatchOptions, signal: AbortSignal, onAnswer: (a: WholeAnswer) => void, onError: (err: Error) => void): void {
  if (signal.aborted) return onError(new undiciErrors.RequestAbortedError());
  up.pool.dispatch(opts, new WholeAnswerHandler(signal, up.timeouts, onAnswer, onError));
}

const ONCE = { once: true } as const;

/** A handler's own first-byte or chunk-gap timer fired. */
function expire(h: { expired(): void }): void {
  h.expired();
}

/** The longest delay a Node timer takes (a longer one would fire at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * What both dispatch handlers share: the caller's signal (the handler is its
 * own abort listener, handleEvent, so an exchange makes no closures), and one
 * native timer for the first byte, then for each gap between body chunks,
 * cleared when the exchange settles. undici is told not to time them
 * (headersTimeout and bodyTimeout 0 in the dispatch options): its "fast timers"
 * outlive the exchange in a shared list and get promoted to the old generation,
 * while a native timer is unlinked when cleared and dies young. Like undici's,
 * the clock starts when the request is written
 * (onRequestStart), not while it waits in the pool's queue, and a gap is not
 * counted while the reader has paused the exchange. An expired timer aborts
 * the exchange with the error undici's own timers raise (transportError maps
 * them).
 */
abstract class TimedExchange<T> implements Dispatcher.DispatchHandler {
  protected controller: Dispatcher.DispatchController | undefined;
  protected status = 0;
  private timer: NodeJS.Timeout | undefined = undefined;

  constructor(
    private readonly signal: AbortSignal,
    private readonly timeouts: UpstreamTimeouts,
    /** Called once, with the answer (the whole one, or its head and body). */
    protected readonly resolve: (answer: T) => void,
    /** Called once, when the exchange fails before resolve. */
    protected readonly reject: (err: Error) => void,
  ) {
    signal.addEventListener("abort", this, ONCE);
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.controller?.abort(new undiciErrors.RequestAbortedError());
  }

  /** The first byte (no status yet) or the next chunk (a status, then silence) is overdue. */
  expired(): void {
    if (this.controller?.paused) {
      this.timer?.refresh();
      return;
    }
    this.timer = undefined;
    this.controller?.abort(this.status ? new undiciErrors.BodyTimeoutError() : new undiciErrors.HeadersTimeoutError());
  }

  /** A timer for `ms` (0: no limit, as with undici's own timeouts). */
  private arm(ms: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = ms > 0 ? setTimeout(expire, Math.min(ms, MAX_TIMER_MS), this) : undefined;
  }

  /** The request is on its way (again, when undici retries it): the first byte's clock starts. */
  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c;
    if (this.signal.aborted) return this.handleEvent();
    this.arm(this.timeouts.firstByteMs);
  }

  /** The status arrived: from here on the timer measures the gap before the next chunk. */
  protected answered(statusCode: number): void {
    this.status = statusCode;
    if (this.timer !== undefined && this.timeouts.chunkGapMs === this.timeouts.firstByteMs) this.timer.refresh();
    else this.arm(this.timeouts.chunkGapMs);
  }

  /** A chunk arrived. */
  protected chunk(): void {
    this.timer?.refresh();
  }

  /** The exchange is over: no timer, no listener. */
  protected done(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.signal.removeEventListener("abort", this);
  }
}

/**
 * The dispatch handler of dispatchWhole: collects the whole answer. One object
 * per exchange, its methods on the prototype; timed as TimedExchange says.
 */
class WholeAnswerHandler extends TimedExchange<WholeAnswer> {
  private headers: IncomingHttpHeaders = {};
  private limit = MAX_JSON_BODY;
  private chunks: Buffer[] = [];
  private size = 0;
  private settled = false;

  private settle(err: unknown, answer?: WholeAnswer): void {
    if (this.settled) return;
    this.settled = true;
    this.done();
    if (err === undefined) this.resolve(answer!);
    else this.reject(err instanceof Error ? err : new Error(String(err)));
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, h: Record<string, string | string[] | undefined>): void {
    this.answered(statusCode);
    this.headers = h as IncomingHttpHeaders;
    if (statusCode < 200 || statusCode >= 300) this.limit = MAX_ERROR_BODY;
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunk();
    this.size += chunk.length;
    if (this.size > this.limit) {
      // An error body is kept only to its limit; an oversized answer is a failure.
      if (this.limit === MAX_ERROR_BODY) {
        this.chunks = [];
        this.settle(undefined, { status: this.status, headers: this.headers, text: "" });
      }
      c.abort(new BodyTooLargeError(this.limit));
      return;
    }
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const chunks = this.chunks;
    this.settle(undefined, { status: this.status, headers: this.headers, text: chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, this.size).toString("utf8") });
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.settle(Object.assign(err, { [PHASE]: this.status ? "body" : "connect" }));
  }
}

/**
 * The dispatch handler of postJson: a streamed answer (or any answer read as
 * it arrives), resolved at its headers with the body as a Node Readable that
 * pauses the exchange when its reader falls behind; timed as TimedExchange
 * says. Written as a handler rather than through undici's `request()`, whose
 * fast timers would leave old-generation garbage behind every stream.
 */
class StreamAnswerHandler extends TimedExchange<UpstreamResponse> {
  private body: Readable | undefined;
  private ended = false;

  /** The exchange is over (ended, failed or dropped by the reader). */
  private finish(): void {
    this.ended = true;
    this.done();
  }

  onResponseStart(c: Dispatcher.DispatchController, statusCode: number, h: Record<string, string | string[] | undefined>): void {
    // An informational answer (100 Continue) is followed by the real one.
    if (statusCode < 200) return;
    this.answered(statusCode);
    const headers = h as IncomingHttpHeaders;
    this.body = new Readable({
      read: () => c.resume(),
      destroy: (err, cb) => {
        // The reader let go before the end: the exchange stops too.
        if (!this.ended) {
          this.finish();
          c.abort(err ?? new undiciErrors.RequestAbortedError());
        }
        cb(err);
      },
    });
    this.resolve({ status: statusCode, headers, contentType: String(headers["content-type"] ?? ""), body: this.body });
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunk();
    if (this.body && !this.body.push(chunk)) c.pause();
  }

  onResponseEnd(): void {
    this.finish();
    this.body?.push(null);
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    const wasEnded = this.ended;
    this.finish();
    if (!this.body) this.reject(err);
    else if (!wasEnded) this.body.destroy(err);
  }
}

const PHASE = Symbol("phase");

const asIs = <T>(v: T): T => v;

/**
 * POSTs a JSON body and reads the whole JSON answer (non-streaming calls): a
 * 2xx answer that is not a JSON object is a protocol error, an error status
 * a ConnectError as from postJson. `read` turns the answer into what the
 * caller returns (a provider's translation), inside the one promise the
 * exchange makes: a chain of .then steps after it would cost a promise and a
 * turn each. What `read` throws rejects the promise.
 */
export function exchangeJson<T = unknown>(up: Upstream, path: string, payload: unknown, opts: PostOptions, read: (body: unknown) => T = asIs as (body: unknown) => T): Promise<T> {
  const started = Date.now();
  return new Promise<T>((resolve, reject) => {
    const onAnswer = (answer: WholeAnswer) => {
      try {
        if (answer.status < 200 || answer.status >= 300) throw answeredError(up, path, opts, answer, started);
        const body = jsonObject(up, answer.text);
        try {
          resolve(read(body));
        } catch (err) {
          const e = untranslatable(up.vendor, err);
          if (e !== err) up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: opts.requestId, path, err, body: answer.text.slice(0, 4096) }, "upstream answer did not translate");
          throw e;
        }
      } catch (err) {
        reject(err);
      }
    };
    const onError = (err: unknown) => {
      const phase = (err as { [PHASE]?: "connect" | "body" })[PHASE] ?? "connect";
      if (phase === "connect") up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: opts.requestId, path, err, ms: Date.now() - started }, "upstream request failed");
      reject(transportError(err, up.vendor, phase));
    };
    try {
      dispatchWhole(
        up,
        {
          path: upstreamPath(up.baseUrl, path, opts.query),
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json", ...up.headers, ...opts.headers },
          body: JSON.stringify(payload),
          // The handler times the first byte and the chunk gaps itself (see TimedExchange).
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        opts.signal,
        onAnswer,
        onError,
      );
    } catch (err) {
      onError(err);
    }
  });
}
