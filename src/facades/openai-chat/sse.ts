// Writing a streamed completion: data-only server-sent events (no `event:`
// lines), the frames of each neutral event in one write, `data: [DONE]` at the
// end, and a `: ping` comment whenever nothing was written for a while (the
// SDKs skip comments; proxies keep the connection). A failure after the 200 is
// one `data: {"error":{...}}` frame, which the SDKs raise as an APIError.
import type { StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { pumpFrames, type FrameSink } from "../shared/sink.js";
import type { ChatStreamTranslator } from "./stream.js";

/**
 * Drives the translator over the core's events (`first` already read, when
 * given) and writes to `out`. Never throws: a failure becomes an error frame.
 * Stops reading, and closes the core's stream, once the client is gone; ends
 * `out`.
 */
export function writeChatStream(
  events: AsyncIterator<StreamGenerateResponse>,
  first: IteratorResult<StreamGenerateResponse> | undefined,
  out: FrameSink,
  t: ChatStreamTranslator,
  heartbeatMs: number,
): Promise<void> {
  return pumpFrames(events, first, out, t, (f) => t.frameText(f), t.frameText("ping"), heartbeatMs);
}
