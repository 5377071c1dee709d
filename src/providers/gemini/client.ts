// The only Gemini I/O: models/{model}:generateContent, :streamGenerateContent
// (alt=sse) and :countTokens over the channel's keep-alive pool.
import { exchangeJson, postJson, readJson, type Upstream } from "../http/request.js";
import { eventJson, sseEvents } from "../http/sse.js";
import { protocolError } from "../http/errors.js";
import { parseError } from "./errors.js";
import type * as wire from "./wire.js";

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

export async function generateContent(up: Upstream, model: string, body: wire.GenerateContentRequest, call: Call): Promise<wire.GenerateContentResponse> {
  return (await exchangeJson(up, modelPath(up, model, "generateContent"), body, { signal: call.signal, requestId: call.requestId, parseError })) as wire.GenerateContentResponse;
}

/** Stream chunks, each a whole GenerateContentResponse. */
export async function* streamGenerateContent(up: Upstream, model: string, body: wire.GenerateContentRequest, call: Call): AsyncGenerator<wire.GenerateContentResponse> {
  const res = await postJson(up, modelPath(up, model, "streamGenerateContent"), body, { signal: call.signal, requestId: call.requestId, query: { alt: "sse" }, parseError });
  if (!res.contentType.includes("text/event-stream")) {
    // A JSON answer: a whole response, or the array form of a stream.
    const v = await readJson(up, res);
    for (const r of Array.isArray(v) ? v : [v]) yield r as wire.GenerateContentResponse;
    return;
  }
  for await (const e of sseEvents(res.body, up.vendor)) {
    if (!e.data.trim()) continue;
    const data = eventJson(e) as wire.GenerateContentResponse | undefined;
    if (!data || typeof data !== "object") {
      up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: call.requestId, data: e.data.slice(0, 1024) }, "upstream sent a non-JSON stream event");
      throw protocolError(up.vendor, "non-JSON stream event");
    }
    if (data.error) up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: call.requestId, error: data.error }, "upstream stream error");
    yield data;
  }
}

export async function countTokens(up: Upstream, model: string, body: { generateContentRequest: wire.GenerateContentRequest & { model: string } }, call: Call): Promise<wire.CountTokensResponse> {
  return (await exchangeJson(up, modelPath(up, model, "countTokens"), body, { signal: call.signal, requestId: call.requestId, parseError })) as wire.CountTokensResponse;
}
