// The only OpenAI chat I/O: POST {base}/chat/completions, whole or streamed,
// and POST {base}/embeddings, over the channel's keep-alive pool. (The images provider has its own client
// in ../client.ts; both stay small rather than share a lowest common shape.)
import { exchangeJson, postJson, readJson, type Upstream } from "../shared/http.js";
import { fromItems, openOnFirstNext } from "../../core/iter.js";
import { eventJson, NO_ITEMS, sseMap } from "../shared/sse.js";
import { protocolError } from "../shared/http-errors.js";
import { parseError } from "./errors.js";
import type * as wire from "./wire.js";
import type { EmbeddingsRequest, EmbeddingsResponse } from "./embed-wire.js";

export interface Call {
  signal: AbortSignal;
  requestId: string;
}

/** "/chat/completions" under a base URL; a bare host gets "/v1" (as Ollama and vLLM serve it). */
function endpoint(up: Upstream): string {
  return /^\/*$/.test(up.baseUrl.pathname) ? "/v1/chat/completions" : "/chat/completions";
}

export function openaiHeaders(apiKey: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...extra };
}

/** Whether the channel is OpenAI itself (which wants max_completion_tokens and rejects top_k). */
export function isOfficialOpenAI(up: Upstream): boolean {
  return up.baseUrl.hostname === "api.openai.com";
}

/** A non-streaming completion; `read` translates the answer inside the exchange's own promise (see exchangeJson). */
export function postChat<T = wire.ChatResponse>(up: Upstream, body: wire.ChatRequest, call: Call, read?: (r: wire.ChatResponse) => T): Promise<T> {
  return exchangeJson(up, endpoint(up), body, { signal: call.signal, requestId: call.requestId, parseError }, read as ((b: unknown) => T) | undefined);
}

/** What a stream's reader makes of what comes: each chunk, the `data: [DONE]` mark, and the whole answer of a server that ignored stream: true. */
export interface ChatStreamSink<T> {
  chunk(c: wire.ChatResponse): readonly T[];
  done(): readonly T[];
  whole(r: wire.ChatResponse): readonly T[];
}

/**
 * A streamed chat, each chunk turned into items by the sink as it is read (the
 * request goes out on the first `next()`; sse.ts says why there is no
 * generator per step).
 */
export function streamChat<T>(up: Upstream, body: wire.ChatRequest, call: Call, sink: ChatStreamSink<T>): AsyncIterableIterator<T> {
  return openOnFirstNext(async () => {
    const res = await postJson(up, endpoint(up), body, { signal: call.signal, requestId: call.requestId, parseError });
    if (!res.contentType.includes("text/event-stream")) return fromItems(sink.whole((await readJson(up, res)) as wire.ChatResponse));
    return sseMap(res.body, up.vendor, (e) => {
      const d = e.data.trim();
      if (!d) return NO_ITEMS;
      if (d === "[DONE]") return sink.done();
      const data = eventJson(e) as wire.ChatResponse | undefined;
      if (!data || typeof data !== "object") {
        up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: call.requestId, data: d.slice(0, 1024) }, "upstream sent a non-JSON stream event");
        throw protocolError(up.vendor, "non-JSON stream event");
      }
      if (data.error) up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: call.requestId, error: data.error }, "upstream stream error");
      return sink.chunk(data);
    });
  });
}

/** A whole embeddings exchange: POST {base}/embeddings ("/v1/embeddings" under a bare host), `read` translating the answer. */
export function postEmbeddings<T>(up: Upstream, body: EmbeddingsRequest, call: Call, read: (r: EmbeddingsResponse) => T): Promise<T> {
  const path = /^\/*$/.test(up.baseUrl.pathname) ? "/v1/embeddings" : "/embeddings";
  return exchangeJson(up, path, body, { signal: call.signal, requestId: call.requestId, parseError }, read as (b: unknown) => T);
}
