// Writing a streamed answer: `alt=sse` gives one `data: <JSON>` line and a
// blank line per chunk (no event: lines, no [DONE]); without alt the body is
// one JSON array written element by element. A failure after the 200 goes out
// as a final `{"error":{...}}` chunk (array element), never a silent cut.
import type { StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { Chunk, GenerateContentStreamTranslator } from "./stream.js";
import { drained, type FrameSink } from "../shared/sink.js";

export type StreamMode = "sse" | "array";

export const CONTENT_TYPES: Record<StreamMode, string> = { sse: "text/event-stream", array: "application/json; charset=utf-8" };

export class ChunkWriter {
  private written = 0;

  constructor(
    private readonly mode: StreamMode,
    private readonly out: FrameSink,
  ) {
    if (mode === "array") out.write("[");
  }

  get closed(): boolean {
    return this.out.destroyed || this.out.writableEnded;
  }

  /** Writes one chunk; the promise, when there is one, resolves once the socket takes more. */
  write(chunk: Chunk | { error: unknown }): Promise<void> | undefined {
    const json = JSON.stringify(chunk);
    const text = this.mode === "sse" ? `data: ${json}\r\n\r\n` : this.written === 0 ? json : `\n,\r\n${json}`;
    this.written++;
    if (this.closed) return undefined;
    return this.out.write(text) ? undefined : drained(this.out);
  }

  end(): void {
    if (this.closed) return;
    if (this.mode === "array") this.out.write(this.written ? "\n]" : "]");
    this.out.end();
  }
}

/**
 * Reads events until the first chunk is ready, so that a call failing early
 * still gets a real HTTP error status (the error is thrown from here).
 */
export async function primeStream(it: AsyncIterator<StreamGenerateResponse>, t: GenerateContentStreamTranslator): Promise<{ ready: Chunk[]; done: boolean }> {
  const ready: Chunk[] = [];
  while (!t.hasOutput) {
    const r = await it.next();
    if (r.done) return { ready, done: true };
    ready.push(...t.push(r.value));
  }
  return { ready, done: false };
}

/** Writes the rest of the stream; `onError` renders a failure as the final chunk. */
export async function pumpStream(
  it: AsyncIterator<StreamGenerateResponse>,
  t: GenerateContentStreamTranslator,
  w: ChunkWriter,
  primed: { ready: Chunk[]; done: boolean },
  onError: (err: unknown) => { error: unknown },
): Promise<void> {
  // Awaited only when the socket asks to wait (an await of nothing still suspends).
  let waiting: Promise<void> | undefined;
  try {
    for (const c of primed.ready) if ((waiting = w.write(c))) await waiting;
    if (!primed.done) {
      for (;;) {
        const r = await it.next();
        if (r.done) break;
        for (const c of t.push(r.value)) if ((waiting = w.write(c))) await waiting;
        if (w.closed) {
          await it.return?.();
          return;
        }
      }
    }
    for (const c of t.end()) if ((waiting = w.write(c))) await waiting;
  } catch (err) {
    for (const c of t.flush()) if ((waiting = w.write(c))) await waiting;
    if (!w.closed && (waiting = w.write(onError(err)))) await waiting;
  } finally {
    w.end();
  }
}
