// The only Anthropic I/O: POST /v1/messages (whole or streamed) and
// /v1/messages/count_tokens over the channel's keep-alive pool.
import { exchangeJson, postJson, readJson, type Upstream } from "../shared/http.js";
import { fromItems, openOnFirstNext } from "../../core/iter.js";
import { eventJson, NO_ITEMS, sseMap } from "../shared/sse.js";
import { protocolError } from "../shared/http-errors.js";
import { parseError } from "./errors.js";
import type * as wire from "./wire.js";

export const ANTHROPIC_VERSION = "2023-06-01";

export interface Call {
  signal: AbortSignal;
  requestId: string;
  betas: string[];
}

/** "/v1/messages" under a base URL given with or without its "/v1". */
function endpoint(up: Upstream, path: string): string {
  return /\/v1\/?$/.test(up.baseUrl.pathname) ? path : `/v1${path}`;
}

function headers(call: Call): Record<string, string> {
  return call.betas.length ? { "anthropic-beta": call.betas.join(",") } : {};
}

/** The default headers of an Anthropic channel (auth and version); channel headers win. */
export function anthropicHeaders(apiKey: string, extra: Record<string, string> = {}): Record<string, string> {
  return { "x-api-key": apiKey, "anthropic-version": ANTHROPIC_VERSION, ...extra };
}

/** A non-streaming message; `read` translates the answer inside the exchange's own promise (see exchangeJson). */
export function postMessages<T = wire.MessageResponse>(up: Upstream, body: wire.MessagesRequest, call: Call, read?: (m: wire.MessageResponse) => T): Promise<T> {
  return exchangeJson(up, endpoint(up, "/messages"), body, { signal: call.signal, requestId: call.requestId, headers: headers(call), parseError }, read as ((b: unknown) => T) | undefined);
}

/**
 * A streamed message, each event turned into items by `feed` as it is read
 * (the request goes out on the first `next()`; sse.ts says why there is no
 * generator per step). A server that ignored stream: true answered whole: its
 * message is replayed as events.
 */
export function streamMessages<T>(up: Upstream, body: wire.MessagesRequest, call: Call, feed: (e: wire.StreamEvent) => readonly T[]): AsyncIterableIterator<T> {
  return openOnFirstNext(async () => {
    const res = await postJson(up, endpoint(up, "/messages"), body, { signal: call.signal, requestId: call.requestId, headers: headers(call), parseError });
    if (!res.contentType.includes("text/event-stream")) {
      const m = (await readJson(up, res)) as wire.MessageResponse;
      return fromItems([...messageAsEvents(m)].flatMap(feed));
    }
    return sseMap(res.body, up.vendor, (e) => {
      const data = eventJson(e) as wire.StreamEvent | undefined;
      if (!data || typeof data !== "object") {
        if (!e.data.trim()) return NO_ITEMS;
        up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: call.requestId, data: e.data.slice(0, 1024) }, "upstream sent a non-JSON stream event");
        throw protocolError(up.vendor, "non-JSON stream event");
      }
      if (data.type === "error") up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: call.requestId, error: data.error }, "upstream stream error");
      return feed(data);
    });
  });
}

export function countTokens(up: Upstream, body: wire.CountTokensRequest, call: Call): Promise<{ input_tokens?: number }> {
  return exchangeJson(up, endpoint(up, "/messages/count_tokens"), body, { signal: call.signal, requestId: call.requestId, headers: headers(call), parseError }) as Promise<{ input_tokens?: number }>;
}

/** A whole message as the event sequence Anthropic would have streamed. */
export function* messageAsEvents(m: wire.MessageResponse): Generator<wire.StreamEvent> {
  yield { type: "message_start", message: { ...m, content: [], stop_reason: null } };
  for (const [index, b] of (m.content ?? []).entries()) {
    if (b.type === "tool_use") {
      yield { type: "content_block_start", index, content_block: { ...b, input: {} } };
      yield { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input ?? {}) } };
    } else if (b.type === "thinking") {
      yield { type: "content_block_start", index, content_block: { ...b, thinking: "", signature: "" } };
      if (b.thinking) yield { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: b.thinking } };
      if (b.signature) yield { type: "content_block_delta", index, delta: { type: "signature_delta", signature: b.signature } };
    } else yield { type: "content_block_start", index, content_block: b };
    yield { type: "content_block_stop", index };
  }
  yield { type: "message_delta", delta: { stop_reason: m.stop_reason ?? "end_turn", stop_sequence: m.stop_sequence ?? null }, usage: m.usage ?? {} };
  yield { type: "message_stop" };
}
