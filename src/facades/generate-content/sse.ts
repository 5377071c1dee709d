// Writing a streamed answer: `alt=sse` gives one `data: <JSON>` line and a
// blank line per chunk (no event: lines, no [DONE]); without alt the body is
// one JSON array written element by element. A failure after the 200 goes out
// as a final `{"error":{...}}` chunk (array element), never a silent cut.
import { PassThrough } from "node:stream";
import type { StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { Chunk, StreamTranslator } from "./stream.js";

export type StreamMode = "sse" | "array";

export const CONTENT_TYPES: Record<StreamMode, string> = { sse: "text/event-stream", array: "application/json; charset=utf-8" };

export class ChunkWriter {
  readonly body = new PassThrough();
  private written = 0;

  constructor(private readonly mode: StreamMode) {
    if (mode === "array") this.body.write("[");
  }

  get closed(): boolean {
    return this.body.destroyed || this.body.writableEnded;
  }

  private async put(text: string): Promise<void> {
    if (this.closed) return;
    if (!this.body.write(text)) await new Promise<void>((resolve) => {
      const done = () => {
        this.body.off("drain", done);
        this.body.off("close", done);
        resolve();
      };
      this.body.once("drain", done);
      this.body.once("close", done);
    });
  }

  async write(chunk: Chunk | { error: unknown }): Promise<void> {
    const json = JSON.stringify(chunk);
    if (this.mode === "sse") await this.put(`data: ${json}\r\n\r\n`);
    else await this.put(this.written === 0 ? json : `\n,\r\n${json}`);
    this.written++;
  }

  end(): void {
    if (this.closed) return;
    if (this.mode === "array") this.body.write(this.written ? "\n]" : "]");
    this.body.end();
  }
}

/**
 * Reads events until the first chunk is ready, so that a call failing early
 * still gets a real HTTP error status (the error is thrown from here).
 */
export async function primeStream(it: AsyncIterator<StreamGenerateResponse>, t: StreamTranslator): Promise<{ ready: Chunk[]; done: boolean }> {
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
  t: StreamTranslator,
  w: ChunkWriter,
  primed: { ready: Chunk[]; done: boolean },
  onError: (err: unknown) => { error: unknown },
): Promise<void> {
  try {
    for (const c of primed.ready) await w.write(c);
    if (!primed.done) {
      for (;;) {
        const r = await it.next();
        if (r.done) break;
        for (const c of t.push(r.value)) await w.write(c);
        if (w.closed) {
          await it.return?.();
          return;
        }
      }
    }
    for (const c of t.end()) await w.write(c);
  } catch (err) {
    for (const c of t.flush()) await w.write(c);
    if (!w.closed) await w.write(onError(err));
  } finally {
    w.end();
  }
}
