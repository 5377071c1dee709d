// Rendering a background response (notes B.1, B.6): the core keeps its
// neutral events and how it ended; this facade renders them with the same
// stream translator as a foreground stream, from the first event every time,
// so the sequence numbers a client saw are the same on every replay. A
// background stream opens with response.created (queued) and response.queued,
// then the translator's events (its own response.created left out, the rest
// numbered on after them). A cancelled one ends without a terminal event (the
// Responses stream has none for it); its Response is "cancelled" with what it
// had produced. Pure: ./background-routes.ts does the I/O.
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "../../../gen/omnigate/common/v1/common_pb.js";
import { BackgroundResponse_State as State, type BackgroundResponse, type WatchBackgroundResponseResponse } from "../../../gen/omnigate/response/v1/response_pb.js";
import type { FrameMachine } from "../shared/sink.js";
import { metaFromJson, type ResponseMeta } from "./meta.js";
import type { ResponseEvent } from "./output.js";
import type { Sealer } from "./seal.js";
import { ResponsesStreamTranslator, type Frame } from "./stream.js";
import { responseObject } from "./translate-response.js";

/** The Response of a background response that has not started: queued, no output yet. */
export function queuedResponse(meta: ResponseMeta): JsonObject {
  return { ...responseObject(meta, { status: "in_progress", output: [], usage: null }), status: "queued" };
}

/** The Response status of a background state that is not finished. */
export const liveStatus = (s: State): string => (s === State.QUEUED ? "queued" : "in_progress");

const isFinished = (s: State) => s === State.SUCCEEDED || s === State.FAILED || s === State.CANCELLED;
export { isFinished as isFinishedState };

/** The ConnectError a failed background response ended with. */
function failureOf(end: BackgroundResponse): ConnectError {
  return new ConnectError(end.errorMessage, end.errorCode, undefined, end.errorDetail ? [{ desc: ErrorDetailSchema, value: end.errorDetail }] : []);
}

/**
 * The frames of a watched background response, from its first message on.
 * Only events numbered above `startingAfter` are given (-1: all). The watch
 * ending without its end message gives nothing more: the client reads again.
 */
export class BackgroundFrames implements FrameMachine<WatchBackgroundResponseResponse, Frame> {
  private t: ResponsesStreamTranslator | undefined;
  private meta: ResponseMeta | undefined;
  private finishMs = 0;
  private ended: State | undefined;
  private response: JsonObject | undefined;

  constructor(
    private readonly sealer: Sealer,
    private readonly startingAfter = -1,
  ) {}

  get done(): boolean {
    return this.ended !== undefined;
  }

  /** How it ended, once the end message came. */
  get state(): State | undefined {
    return this.ended;
  }

  /** The final Response, once it ended. */
  final(): JsonObject | undefined {
    return this.response;
  }

  /** The render state it was created with, once the first message came. */
  get renderMeta(): ResponseMeta | undefined {
    return this.meta;
  }

  push(m: WatchBackgroundResponseResponse): Frame[] {
    const item = m.item;
    if (this.ended !== undefined) return [];
    if (item.case === "background") {
      if (this.t) return [];
      const meta = (this.meta = metaFromJson(item.value.render ?? {}, this.sealer));
      this.t = new ResponsesStreamTranslator(meta, { now: () => this.finishMs });
      const shell = queuedResponse(meta);
      return this.after([
        { type: "response.created", sequence_number: 0, response: shell },
        { type: "response.queued", sequence_number: 1, response: shell },
      ]);
    }
    const t = this.t;
    if (!t) return [];
    if (item.case === "event") return this.after(this.renumber(t.push(item.value)));
    if (item.case !== "end") return [];
    const end = item.value;
    this.finishMs = end.finishTime ? timestampMs(end.finishTime) : 0;
    this.ended = end.state;
    if (end.state === State.SUCCEEDED) return this.settle(t.end());
    if (end.state === State.FAILED) return this.settle(t.fail(failureOf(end)));
    // Cancelled: the Response with what it had, and no terminal event.
    t.fail(new Error("cancelled"));
    const last = t.final() ?? {};
    this.response = { ...last, status: "cancelled", error: null, incomplete_details: null };
    return [];
  }

  end(): Frame[] {
    return [];
  }

  fail(): Frame[] {
    return [];
  }

  private settle(frames: Frame[]): Frame[] {
    this.response = this.t?.final();
    return this.after(this.renumber(frames));
  }

  /** The translator's events after the two opening ones: its response.created is theirs. */
  private renumber(frames: Frame[]): Frame[] {
    const out: Frame[] = [];
    for (const f of frames) {
      if (f === "ping") out.push(f);
      else if (f.type !== "response.created") out.push({ ...f, sequence_number: f.sequence_number + 1 } as ResponseEvent);
    }
    return out;
  }

  private after(frames: Frame[]): Frame[] {
    return this.startingAfter < 0 ? frames : frames.filter((f) => f === "ping" || f.sequence_number > this.startingAfter);
  }
}
