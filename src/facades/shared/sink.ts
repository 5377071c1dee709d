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
