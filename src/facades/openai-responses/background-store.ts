// Where background responses meet the core's StoredResponseService, for the
// facade's routes: settle (render a finished one whose stored Response is
// still the queued one, and save it finished: the first reader does it) and
// stream (replay its events after a sequence number, then follow the live
// ones). The rendering is ./background.ts's.
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { FastifyReply } from "fastify";
import type { StoredResponseService } from "../../../gen/omnigate/response/v1/response_pb.js";
import type { CallInit } from "../../core/call/call.js";
import type { CoreClient } from "../../core/call/service.js";
import { Code, coreError } from "../../core/errors.js";
import { pumpFrames } from "../shared/sink.js";
import { BackgroundFrames } from "./background.js";
import type { ResponseMeta } from "./meta.js";
import type { Sealer } from "./seal.js";

type Responses = CoreClient<typeof StoredResponseService>;

/** Saves a finished background response's Response (its input items stay as they were stored). */
export function saveFinished(responses: Responses, meta: ResponseMeta, response: JsonObject, call: CallInit): Promise<void> {
  const previous = meta.echo.previous_response_id;
  return responses
    .saveResponse(
      {
        id: meta.id,
        status: String(response.status ?? ""),
        model: meta.model,
        createTime: timestampFromMs(meta.createdAt * 1000),
        previousResponseId: typeof previous === "string" ? previous : "",
        response,
        keepInput: true,
        output: Array.isArray(response.output) ? (response.output as JsonObject[]) : [],
      },
      call,
    )
    .then(() => undefined);
}

/** Renders a finished background response from its events and saves it; resolves to its Response. */
export async function settle(responses: Responses, id: string, call: CallInit, sealer: Sealer): Promise<JsonObject> {
  const frames = new BackgroundFrames(sealer);
  for await (const m of responses.watchBackgroundResponse({ id }, call)) frames.push(m);
  const response = frames.final();
  const meta = frames.renderMeta;
  if (!response || !meta) throw coreError(Code.Unavailable, "The background response could not be read to its end; try again.", { reason: "background_unreadable", retryAfterMs: 1_000 });
  await saveFinished(responses, meta, response, call);
  return response;
}

export interface StreamOptions {
  /** Events numbered up to this are left out (-1: none). */
  startingAfter: number;
  heartbeatMs: number;
  /** Told when saving the end failed. */
  onSaveError: (err: unknown) => void;
}

/**
 * Streams a background response as server-sent events. Its first message is
 * read before the 200 goes out, so that a missing response or one that is not
 * background keeps its error status (thrown). A response watched to its end
 * here is saved finished. The client going away stops the watch only.
 */
export async function streamBackground(reply: FastifyReply, responses: Responses, id: string, call: CallInit, sealer: Sealer, o: StreamOptions): Promise<void> {
  const it = responses.watchBackgroundResponse({ id }, call)[Symbol.asyncIterator]();
  const first = await it.next();
  const live = first.done || first.value.item.case !== "background" || first.value.item.value.state < 3;
  reply.hijack();
  for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) reply.raw.setHeader(k, v);
  reply.raw.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" });
  const frames = new BackgroundFrames(sealer, o.startingAfter);
  void pumpFrames(it, first, reply.raw, frames, (f) => (f === "ping" ? ": ping\n\n" : `event: ${f.type}\ndata: ${JSON.stringify(f)}\n\n`), ": ping\n\n", o.heartbeatMs).then(() => {
    const response = frames.final();
    if (live && response && frames.renderMeta) return saveFinished(responses, frames.renderMeta, response, call).catch(o.onSaveError);
    return undefined;
  });
}
