// Writing a streamed Response: server-sent events with an `event:` line
// naming each event's type (the SDKs and Codex dispatch on the data's `type`
// too), the frames of each neutral event in one write, no `[DONE]`, and a
// `: ping` comment whenever nothing was written for a while (every client
// skips comments; proxies keep the connection). A failure after the 200 is
// one response.failed event.
import type { StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { pumpFrames, type FrameSink } from "../shared/sink.js";
import type { ResponsesStreamTranslator } from "./stream.js";

/**
 * Drives the translator over the core's events (`first` already read, when
 * given) and writes to `out`. Never throws: a failure becomes
 * response.failed. Stops reading, and closes the core's stream, once the
 * client is gone; ends `out`. The final Response is `t.final()` afterwards.
 */
export function writeResponsesStream(
  events: AsyncIterator<StreamGenerateResponse>,
  first: IteratorResult<StreamGenerateResponse> | undefined,
  out: FrameSink,
  t: ResponsesStreamTranslator,
  heartbeatMs: number,
): Promise<void> {
  return pumpFrames(events, first, out, t, (f) => t.frameText(f), t.frameText("ping"), heartbeatMs);
}
