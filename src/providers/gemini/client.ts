// The only Gemini I/O: models/{model}:generateContent, :streamGenerateContent
// (alt=sse), :countTokens, :embedContent and :batchEmbedContents over the
// channel's keep-alive pool.
import { exchangeJson, postJson, readJson, type Upstream } from "../shared/http.js";
import { fromItems, openOnFirstNext } from "../../core/iter.js";
import { eventJson, NO_ITEMS, sseMap } from "../shared/sse.js";
import { protocolError } from "../shared/http-errors.js";
import { parseError } from "./errors.js";
import type * as wire from "./wire.js";
import type { BatchEmbedContentsRequest, BatchEmbedContentsResponse, EmbedContentRequest, EmbedContentResponse } from "./embed-wire.js";

export interface Call {
  signal: AbortSignal;
  requestId: string;
}

export function geminiHeaders(apiKey: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(apiKey ? { "x-goog-api-key": apiKey } : {}), ...extra };
}

/** "/models/{model}:{method}" under a base URL given with or without its API version ("/v1beta"). */
export function modelPath(up: Upstream, model: string, method: string): string {
  const m = model.replace(/^models\//, "");
  const versioned = /\/v\d+(?:alpha|beta)?\d*\/?$/.test(up.baseUrl.pathname);
  return `${versioned ? "" : "/v1beta"}/models/${encodeURIComponent(m)}:${method}`;
}

/** A non-streaming generation; `read` translates the answer inside the exchange's own promise (see exchangeJson). */
export function generateContent<T = wire.GenerateContentResponse>(
  up: Upstream,
  model: string,
  body: wire.GenerateContentRequest,
  call: Call,
  read?: (r: wire.GenerateContentResponse) => T,
): Promise<T> {
  return exchangeJson(up, modelPath(up, model, "generateContent"), body, { signal: call.signal, requestId: call.requestId, parseError }, read as ((b: unknown) => T) | undefined);
}

/**
 * A streamed generation, each chunk (a whole GenerateContentResponse) turned
 * into items by `feed` as it is read (the request goes out on the first
 * `next()`; sse.ts says why there is no generator per step). A JSON answer is
 * a whole response or the array form of a stream.
 */
export function streamGenerateContent<T>(
  up: Upstream,
  model: string,
  body: wire.GenerateContentRequest,
  call: Call,
  feed: (chunk: wire.GenerateContentResponse) => readonly T[],
): AsyncIterableIterator<T> {
  return openOnFirstNext(async () => {
    const res = await postJson(up, modelPath(up, model, "streamGenerateContent"), body, { signal: call.signal, requestId: call.requestId, query: { alt: "sse" }, parseError });
    if (!res.contentType.includes("text/event-stream")) {
      const v = await readJson(up, res);
      return fromItems((Array.isArray(v) ? v : [v]).flatMap((r) => feed(r as wire.GenerateContentResponse)));
    }
    return sseMap(res.body, up.vendor, (e) => {
      if (!e.data.trim()) return NO_ITEMS;
      const data = eventJson(e) as wire.GenerateContentResponse | undefined;
      if (!data || typeof data !== "object") {
        up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: call.requestId, data: e.data.slice(0, 1024) }, "upstream sent a non-JSON stream event");
        throw protocolError(up.vendor, "non-JSON stream event");
      }
      if (data.error) up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: call.requestId, error: data.error }, "upstream stream error");
      return feed(data);
    });
  });
}

export function countTokens(up: Upstream, model: string, body: { generateContentRequest: wire.GenerateContentRequest & { model: string } }, call: Call): Promise<wire.CountTokensResponse> {
  return exchangeJson(up, modelPath(up, model, "countTokens"), body, { signal: call.signal, requestId: call.requestId, parseError }) as Promise<wire.CountTokensResponse>;
}

/** One embedding; `read` translates the answer inside the exchange's own promise. */
export function embedContent<T>(up: Upstream, model: string, body: EmbedContentRequest, call: Call, read: (r: EmbedContentResponse) => T): Promise<T> {
  return exchangeJson(up, modelPath(up, model, "embedContent"), body, { signal: call.signal, requestId: call.requestId, parseError }, read as (b: unknown) => T);
}

/** Up to 100 embeddings in one call. */
export function batchEmbedContents<T>(up: Upstream, model: string, body: BatchEmbedContentsRequest, call: Call, read: (r: BatchEmbedContentsResponse) => T): Promise<T> {
  return exchangeJson(up, modelPath(up, model, "batchEmbedContents"), body, { signal: call.signal, requestId: call.requestId, parseError }, read as (b: unknown) => T);
}
