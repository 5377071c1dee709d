// Writing a streamed completion: data-only server-sent events (no `event:`
// lines), the frames of each neutral event in one write, `data: [DONE]` at the
// end, and a `: ping` comment whenever nothing was written for a while (the
// SDKs skip comments; proxies keep the connection). A failure after the 200 is
// one `data: {"error":{...}}` frame, which the SDKs raise as an APIError.
import type { StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { drained, type FrameSink } from "../shared/sink.js";
import type { ChatStreamTranslator, Frame } from "./stream.js";

/**
 * Drives the translator over the core's events (`first` already read, when
 * given) and writes to `out`. Never throws: a failure becomes an error frame.
 * Stops reading, and closes the core's stream, once the client is gone; ends
 * `out`.
 */
export async function writeChatStream(
  events: AsyncIterator<StreamGenerateResponse>,
  first: IteratorResult<StreamGenerateResponse> | undefined,
  out: FrameSink,
  t: ChatStreamTranslator,
  heartbeatMs: number,
): Promise<void> {
  const ping = t.frameText("ping");
  const timer = setTimeout(() => {
    if (!out.destroyed && !out.writableNeedDrain) out.write(ping);
    timer.refresh();
  }, heartbeatMs);
  // A promise only when the socket asks to wait: an await of nothing would cost a suspension per event.
  const put = (frames: Frame[]): Promise<void> | undefined => {
    if (!frames.length || out.destroyed) return undefined;
    let text = "";
    for (const f of frames) text += t.frameText(f);
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
        if ((waiting = put(t.end()))) await waiting;
        break;
      }
      if ((waiting = put(t.push(r.value)))) await waiting;
      if (t.done || out.destroyed) break;
      r = await events.next();
    }
  } catch (err) {
    finished = true;
    if ((waiting = put(t.fail(err)))) await waiting;
  } finally {
    clearTimeout(timer);
    if (!finished) await events.return?.().catch(() => undefined);
    if (!out.destroyed) out.end();
  }
}
