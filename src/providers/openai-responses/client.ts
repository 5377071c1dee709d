// The only Responses I/O: POST {base}/responses (whole or streamed) and
// POST {base}/responses/input_tokens over the channel's keep-alive pool. Auth
// and channel headers are on the Upstream (chat-upstreams.ts builds them as
// for every OpenAI channel).
import { exchangeJson, postJson, readJson, type Upstream } from "../shared/http.js";
import { fromItems, openOnFirstNext } from "../../core/iter.js";
import { eventJson, NO_ITEMS, sseMap } from "../shared/sse.js";
import { protocolError } from "../shared/http-errors.js";
import { parseError } from "./errors.js";
import type * as wire from "./wire.js";

export interface Call {
  signal: AbortSignal;
  requestId: string;
}

/** "/responses" under the base URL, as for Chat Completions; a bare host gets "/v1" (as compatible servers serve it). */
export function endpoint(up: Upstream, path = ""): string {
  return (/^\/*$/.test(up.baseUrl.pathname) ? "/v1/responses" : "/responses") + path;
}

/** A non-streaming response; `read` translates the answer inside the exchange's own promise (see exchangeJson). */
export function postResponse<T>(up: Upstream, body: wire.ResponsesRequest, call: Call, read: (r: wire.Response) => T): Promise<T> {
  return exchangeJson(up, endpoint(up), body, { signal: call.signal, requestId: call.requestId, parseError }, read as (b: unknown) => T);
}

/** POST /responses/input_tokens: the input tokens of a request as the upstream counts them. */
export function countInputTokens(up: Upstream, body: wire.InputTokensRequest, call: Call): Promise<wire.InputTokensResponse> {
  return exchangeJson(up, endpoint(up, "/input_tokens"), body, { signal: call.signal, requestId: call.requestId, parseError }) as Promise<wire.InputTokensResponse>;
}

/** What a stream's reader makes of each event, and of the whole answer of a server that ignored stream: true. */
export interface ResponsesStreamSink<T> {
  event(e: wire.StreamEvent): readonly T[];
  whole(r: wire.Response): readonly T[];
}

/**
 * A streamed response, each event turned into items by the sink as it is read
 * (the request goes out on the first `next()`; sse.ts says why there is no
 * generator per step). An event's type is its data's `type`, else its
 * `event:` line.
 */
export function streamResponse<T>(up: Upstream, body: wire.ResponsesRequest, call: Call, sink: ResponsesStreamSink<T>): AsyncIterableIterator<T> {
  return openOnFirstNext(async () => {
    const res = await postJson(up, endpoint(up), body, { signal: call.signal, requestId: call.requestId, parseError });
    if (!res.contentType.includes("text/event-stream")) return fromItems(sink.whole((await readJson(up, res)) as wire.Response));
    return sseMap(res.body, up.vendor, (e) => {
      const d = e.data.trim();
      if (!d || d === "[DONE]") return NO_ITEMS;
      const data = eventJson(e) as wire.StreamEvent | undefined;
      if (!data || typeof data !== "object") {
        up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: call.requestId, data: d.slice(0, 1024) }, "upstream sent a non-JSON stream event");
        throw protocolError(up.vendor, "non-JSON stream event");
      }
      if (typeof data.type !== "string" && e.event) data.type = e.event;
      if (data.type === "error" || data.type === "response.failed")
        up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: call.requestId, error: data.type === "error" ? data : data.response?.error }, "upstream stream error");
      return sink.event(data);
    });
  });
}
