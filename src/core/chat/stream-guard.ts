// The stream guard: whatever a provider (or the upstream behind it) does, the
// core passes on a valid neutral event stream, or ends it with a ConnectError.
// It checks the documented order (start first; per candidate, parts 0, 1, 2...
// each start -> deltas -> stop; deltas that fit their part), makes every tool
// call's arguments valid JSON (a custom tool's call has free-text input instead), adds a usage event when the provider sent none,
// and turns a stream that ends early into an error instead of a silent cut.
// On a failure it first closes the parts that are complete enough to close
// (text, thinking, tool calls whose arguments already parse), so a facade can
// end its own stream cleanly before reporting the error.
import { create } from "../proto/create.js";
import type { ConnectError } from "@connectrpc/connect";
import { StreamGenerateResponseSchema, UsageSchema, type Part, type StreamGenerateResponse, type Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { asConnectError, Code, coreError } from "../errors.js";
import { DONE } from "../iter.js";
import { shapeFault } from "../proto/shape.js";

type Ev = StreamGenerateResponse;

interface OpenPart {
  kind: Part["kind"]["case"];
  /** A custom tool's call: free-text input deltas instead of arguments. */
  custom: boolean;
  args: string;
  sawArgs: boolean;
}

interface CandState {
  next: number;
  open: Map<number, OpenPart>;
  finished: boolean;
}

const event = (e: Ev["event"]): Ev => create(StreamGenerateResponseSchema, { event: e });

export function streamViolation(what: string): ConnectError {
  return coreError(Code.Internal, "the upstream stream was malformed", { reason: "upstream_protocol_error", cause: new Error(what) });
}

export function streamTruncated(what: string): ConnectError {
  return coreError(Code.Unavailable, "the upstream stream ended before the answer was complete", { reason: "upstream_stream_truncated", cause: new Error(what) });
}

function parses(json: string): boolean {
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** The guard's bookkeeping, separate from the async plumbing so it is easy to test. */
export class StreamGuardState {
  started = false;
  ended = false;
  private usageSeen = false;
  private startUsage: Usage | undefined;
  private cands = new Map<number, CandState>();

  private cand(i: number): CandState {
    let c = this.cands.get(i);
    if (!c) {
      c = { next: 0, open: new Map(), finished: false };
      this.cands.set(i, c);
    }
    return c;
  }

  /** Checks one event; returns the events to pass on (the event itself, plus any repair) or throws. */
  accept(e: Ev): Ev[] {
    if (this.ended) return [];
    const fault = shapeFault(StreamGenerateResponseSchema, e);
    if (fault) throw streamViolation(fault);
    const k = e.event;
    if (k.case === undefined) return [];
    if (k.case === "ping") return [e];
    if (k.case === "start") {
      if (this.started) throw streamViolation("second start");
      this.started = true;
      this.startUsage = k.value.usage;
      return [e];
    }
    if (!this.started) throw streamViolation(`${k.case} before start`);
    switch (k.case) {
      case "partStart": {
        const c = this.cand(k.value.candidateIndex);
        if (k.value.index !== c.next) throw streamViolation(`part_start ${k.value.index}, expected ${c.next}`);
        if (!k.value.part) throw streamViolation("part_start without a part");
        // Parts are sequential: a new part closes the one still open.
        const out = this.closeAll(k.value.candidateIndex, c, true);
        c.next++;
        const kind = k.value.part.kind;
        c.open.set(k.value.index, { kind: kind.case, custom: kind.case === "toolCall" && kind.value.input !== undefined, args: "", sawArgs: false });
        out.push(e);
        return out;
      }
      case "partDelta": {
        const p = this.cand(k.value.candidateIndex).open.get(k.value.index);
        if (!p) throw streamViolation(`delta for part ${k.value.index} that is not open`);
        const d = k.value.delta;
        const fits =
          (d.case === "text" && p.kind === "text") ||
          (d.case === "thinking" && p.kind === "thinking") ||
          (d.case === "argumentsJson" && p.kind === "toolCall" && !p.custom) ||
          (d.case === "input" && p.custom) ||
          (d.case === "citation" && p.kind === "text") ||
          d.case === "signature";
        if (!fits) throw streamViolation(`delta ${d.case} does not fit part ${p.kind}`);
        if (d.case === "argumentsJson") {
          if (!d.value) return [];
          p.args += d.value;
          p.sawArgs = true;
        }
        return [e];
      }
      case "partStop": {
        const c = this.cand(k.value.candidateIndex);
        const p = c.open.get(k.value.index);
        if (!p) throw streamViolation(`stop for part ${k.value.index} that is not open`);
        const out: Ev[] = [];
        if (p.kind === "toolCall" && !p.custom) {
          if (!p.sawArgs) out.push(this.argsEvent(k.value.candidateIndex, k.value.index, "{}"));
          else if (!parses(p.args)) throw streamViolation("tool call arguments are not a JSON object");
        }
        c.open.delete(k.value.index);
        out.push(e);
        return out;
      }
      case "finish": {
        const c = this.cand(k.value.candidateIndex);
        const out = this.closeAll(k.value.candidateIndex, c, true);
        c.finished = true;
        out.push(e);
        return out;
      }
      case "usage":
        this.usageSeen = true;
        return [e];
      default:
        return [e];
    }
  }

  private argsEvent(candidateIndex: number, index: number, json: string): Ev {
    return event({ case: "partDelta", value: { candidateIndex, index, delta: { case: "argumentsJson", value: json } } } as Ev["event"]);
  }

  /** Closes open parts; with `strict`, an unclosable part is an error, otherwise it is left open. */
  private closeAll(ci: number, c: CandState, strict: boolean): Ev[] {
    const out: Ev[] = [];
    for (const [index, p] of [...c.open.entries()].sort((a, b) => a[0] - b[0])) {
      if (p.kind === "toolCall" && !p.custom) {
        if (!p.sawArgs) out.push(this.argsEvent(ci, index, "{}"));
        else if (!parses(p.args)) {
          if (strict) throw streamViolation("tool call arguments are not a JSON object");
          continue;
        }
      }
      out.push(event({ case: "partStop", value: { candidateIndex: ci, index } } as Ev["event"]));
      c.open.delete(index);
    }
    return out;
  }

  /** Events that end a stream whose source finished normally; throws when the answer is incomplete. */
  finish(): Ev[] {
    if (this.ended) return [];
    if (!this.started) throw streamTruncated("the stream ended before it started");
    const out: Ev[] = [];
    const unfinished = [...this.cands.entries()].filter(([, c]) => !c.finished && (c.next > 0 || c.open.size > 0));
    if (unfinished.length) throw streamTruncated(`candidate ${unfinished[0]![0]} never finished`);
    if (!this.usageSeen) out.push(event({ case: "usage", value: this.startUsage ?? create(UsageSchema) } as Ev["event"]));
    this.ended = true;
    return out;
  }

  /** Repair events to send before reporting a failure: closes what can be closed. */
  onFailure(): Ev[] {
    if (this.ended || !this.started) return [];
    this.ended = true;
    const out: Ev[] = [];
    for (const [ci, c] of this.cands) {
      try {
        out.push(...this.closeAll(ci, c, false));
      } catch {
        // closeAll is lenient here; nothing to add.
      }
    }
    return out;
  }
}

const NO_EVENTS: Ev[] = [];

/**
 * A provider's stream through the guard (see the file comment), one async step
 * per source event: the checks are synchronous work on each item, where an
 * async generator cost a promise, a result and a resumption per event. What a
 * generator with a for-await over the source did, this does: a violation
 * closes the source before the repair events and the error come; a source
 * that fails is not closed again; `return()` closes a source still being read,
 * after a `next()` that is still running (a generator queues it the same way).
 */
export class GuardedStream implements AsyncIterableIterator<Ev> {
  private readonly st = new StreamGuardState();
  /** Events to hand out before reading on: an accepted event's repairs, a finish's, a failure's. */
  private queue: Ev[] = NO_EVENTS;
  private at = 0;
  /** Thrown once the queue is out. */
  private failure: ConnectError | undefined;
  /** Whether the source may still be read (and so needs closing on return()). */
  private reading = true;
  /** Nothing comes after the queue. */
  private over = false;
  private running: Promise<unknown> | undefined;

  constructor(private readonly src: AsyncIterator<Ev>) {}

  [Symbol.asyncIterator](): AsyncIterableIterator<Ev> {
    return this;
  }

  next(): Promise<IteratorResult<Ev>> {
    const p = this.step();
    this.running = p;
    return p;
  }

  return(_value?: unknown): Promise<IteratorResult<Ev>> {
    const close = (): Promise<IteratorResult<Ev>> => {
      const wasReading = this.reading;
      this.stop();
      if (!wasReading || !this.src.return) return Promise.resolve(DONE);
      return this.src.return().then(
        () => DONE,
        (err: unknown) => Promise.reject(asConnectError(err)),
      );
    };
    return this.running ? this.running.then(close, close) : close();
  }

  private stop(): void {
    this.reading = false;
    this.over = true;
    this.queue = NO_EVENTS;
    this.at = 0;
    this.failure = undefined;
  }

  private step(): Promise<IteratorResult<Ev>> {
    if (this.at < this.queue.length) return Promise.resolve({ done: false, value: this.queue[this.at++]! });
    if (this.failure) {
      const f = this.failure;
      this.stop();
      return Promise.reject(f);
    }
    if (this.over) return Promise.resolve(DONE);
    return this.src.next().then(this.onItem, this.onError);
  }

  private readonly onItem = (r: IteratorResult<Ev>): IteratorResult<Ev> | Promise<IteratorResult<Ev>> => {
    if (r.done) {
      this.reading = false;
      try {
        this.enqueue(this.st.finish());
      } catch (err) {
        return this.fail(err);
      }
      this.over = true;
      return this.step();
    }
    let out: Ev[];
    try {
      out = this.st.accept(r.value);
    } catch (err) {
      // As a for-await does: the source is closed first, and what closing it throws is dropped.
      this.reading = false;
      const fail = () => this.fail(err);
      return this.src.return ? this.src.return().then(fail, fail) : fail();
    }
    if (out.length === 1 && out[0] === r.value) return r;
    if (out.length === 0) return this.src.next().then(this.onItem, this.onError);
    this.enqueue(out);
    return { done: false, value: this.queue[this.at++]! };
  };

  private readonly onError = (err: unknown): Promise<IteratorResult<Ev>> => {
    this.reading = false;
    return this.fail(err);
  };

  private fail(err: unknown): Promise<IteratorResult<Ev>> {
    const ce = asConnectError(err);
    this.enqueue(this.st.onFailure());
    this.failure = ce;
    return this.step();
  }

  private enqueue(evs: Ev[]): void {
    this.queue = evs;
    this.at = 0;
  }
}

/** Wraps a provider's stream (see the file comment). */
export function guardStream(src: AsyncIterable<Ev>): GuardedStream {
  return new GuardedStream(src[Symbol.asyncIterator]());
}
