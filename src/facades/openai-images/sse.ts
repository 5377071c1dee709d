// A streamed generation or edit as OpenAI's server-sent events: one
// `<prefix>.partial_image` per preview as the core sends it, then one
// `<prefix>.completed` per image of the batch; a failure after the 200 is an
// `event: error` whose data is `{"type":"error","error":{...}}` (the SDK
// throws it as an APIError). Every frame has an `event:` line.
import type { ImageBatch, PartialImage } from "../../../gen/omnigate/image/v1/image_pb.js";
import { Code, ConnectError } from "@connectrpc/connect";
import { drained, type FrameSink } from "../shared/sink.js";
import { fromConnectError, type WireError } from "./errors.js";
import { fromCoreCompleted, fromCorePartial } from "./translate.js";
import type { StreamPrefix } from "./wire.js";

/** A message of StreamGenerateImages or StreamEditImages (the same oneof). */
export interface StreamMessage {
  event: { case: "partialImage"; value: PartialImage } | { case: "batch"; value: ImageBatch } | { case: undefined; value?: undefined };
}

export interface ImagesStreamOptions {
  prefix: StreamPrefix;
  /** Quiet time after which a comment line keeps the connection open. */
  heartbeatMs: number;
  /** Told about every failure that became an error frame (for logs). */
  onError?: (err: unknown) => void;
}

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The error frame of a failure after the 200. */
export function errorFrame(err: unknown): string {
  const e: WireError = fromConnectError(err instanceof ConnectError ? err : new ConnectError("internal error", Code.Internal));
  return frame("error", { type: "error", error: e.body.error });
}

/** The frames of one core message; `done` once the batch came. */
export function framesOf(prefix: StreamPrefix, m: StreamMessage): { text: string; done: boolean } {
  const e = m.event;
  if (e.case === "partialImage") {
    const ev = fromCorePartial(prefix, e.value);
    return { text: frame(ev.type, ev), done: false };
  }
  if (e.case === "batch") {
    let text = "";
    for (const ev of fromCoreCompleted(prefix, e.value)) text += frame(ev.type, ev);
    return { text, done: true };
  }
  return { text: "", done: false };
}

/**
 * Writes the core's messages (`first` already read) to `out` as SSE, with a
 * keep-alive comment whenever nothing was written for `heartbeatMs`. Never
 * throws: a failure, or a stream that ends before its batch, becomes an error
 * frame. Stops reading, and closes the core's stream, once the client is
 * gone; ends `out`.
 */
export async function writeImagesStream(events: AsyncIterator<StreamMessage>, first: IteratorResult<StreamMessage>, out: FrameSink, opts: ImagesStreamOptions): Promise<void> {
  const timer = setTimeout(() => {
    if (!out.destroyed && !out.writableNeedDrain) out.write(": keep-alive\n\n");
    timer.refresh();
  }, opts.heartbeatMs);
  const put = (text: string): Promise<void> | undefined => {
    if (!text || out.destroyed) return undefined;
    timer.refresh();
    return out.write(text) ? undefined : drained(out);
  };
  const fail = (err: unknown) => {
    opts.onError?.(err);
    return put(errorFrame(err));
  };
  let finished = false;
  let waiting: Promise<void> | undefined;
  try {
    let done = false;
    for (let r = first; ; r = await events.next()) {
      if (r.done) {
        finished = true;
        if (!done && (waiting = fail(new ConnectError("the stream ended before its result", Code.Internal)))) await waiting;
        break;
      }
      const f = framesOf(opts.prefix, r.value);
      done ||= f.done;
      if ((waiting = put(f.text))) await waiting;
      if (out.destroyed) break;
    }
  } catch (err) {
    finished = true;
    if ((waiting = fail(err))) await waiting;
  } finally {
    clearTimeout(timer);
    if (!finished) await events.return?.().catch(() => undefined);
    if (!out.destroyed) out.end();
  }
}
