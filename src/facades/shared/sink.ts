// Where a streamed answer's text goes: the HTTP response itself (a hijacked
// fastify reply), or any Node writable in tests.
export interface FrameSink {
  write(text: string): boolean;
  end(): void;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  readonly writableNeedDrain: boolean;
  once(event: "drain" | "close", fn: () => void): unknown;
  off(event: "drain" | "close", fn: () => void): unknown;
}

/** Resolves when the sink can take more, or is closed. */
export function drained(out: FrameSink): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off("drain", done);
      out.off("close", done);
      resolve();
    };
    out.once("drain", done);
    out.once("close", done);
  });
}

/** A stream translator as the pump drives it: the frames of each event, of the end, and of a failure. */
export interface FrameMachine<E, F> {
  push(event: E): F[];
  end(): F[];
  fail(err: unknown): F[];
  /** Set once the answer is complete (what follows is not read). */
  readonly done: boolean;
}

/**
 * Drives `machine` over the core's events (`first` already read, when given)
 * and writes to `out`: the frames of each event in one write, and `ping`
 * whenever nothing was written for `heartbeatMs` (idle connections stay open
 * through proxies). Never throws: a failure becomes the machine's error
 * frames. Stops reading, and closes the core's stream, once the client is
 * gone; ends `out`.
 */
export async function pumpFrames<E, F>(
  events: AsyncIterator<E>,
  first: IteratorResult<E> | undefined,
  out: FrameSink,
  machine: FrameMachine<E, F>,
  frameText: (f: F) => string,
  ping: string,
  heartbeatMs: number,
): Promise<void> {
  const timer = setTimeout(() => {
    if (!out.destroyed && !out.writableNeedDrain) out.write(ping);
    timer.refresh();
  }, heartbeatMs);
  // A promise only when the socket asks to wait: an await of nothing would cost a suspension per event.
  const put = (frames: F[]): Promise<void> | undefined => {
    if (!frames.length || out.destroyed) return undefined;
    let text = "";
    for (const f of frames) text += frameText(f);
    timer.refresh();
    return out.write(text) ? undefined : drained(out);
  };
  let waiting: Promise<void> | undefined;
  let finished = false;
  try {
    let r = first ?? (await events.next());
    for (;;) {
      if (r.done) {
        finished = true;
        if ((waiting = put(machine.end()))) await waiting;
        break;
      }
      if ((waiting = put(machine.push(r.value)))) await waiting;
      if (machine.done || out.destroyed) break;
      r = await events.next();
    }
  } catch (err) {
    finished = true;
    if ((waiting = put(machine.fail(err)))) await waiting;
  } finally {
    clearTimeout(timer);
    if (!finished) await events.return?.().catch(() => undefined);
    if (!out.destroyed) out.end();
  }
}
