// The only OpenAI chat I/O: POST {base}/chat/completions, whole or streamed,
// over the channel's keep-alive pool. (The images provider has its own client
// in ../client.ts; both stay small rather than share a lowest common shape.)
import { exchangeJson, postJson, readJson, type Upstream } from "../../http/request.js";
import { eventJson, sseEvents } from "../../http/sse.js";
import { protocolError } from "../../http/errors.js";
import { parseError } from "./errors.js";
import type * as wire from "./wire.js";

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

export async function postChat(up: Upstream, body: wire.ChatRequest, call: Call): Promise<wire.ChatResponse> {
  return (await exchangeJson(up, endpoint(up), body, { signal: call.signal, requestId: call.requestId, parseError })) as wire.ChatResponse;
}

export type StreamItem = { kind: "chunk"; chunk: wire.ChatResponse } | { kind: "done" } | { kind: "whole"; response: wire.ChatResponse };

/** Stream chunks, then "done" for `data: [DONE]`; a server that ignored stream:true gives its whole answer once. */
export async function* streamChat(up: Upstream, body: wire.ChatRequest, call: Call): AsyncGenerator<StreamItem> {
  const res = await postJson(up, endpoint(up), body, { signal: call.signal, requestId: call.requestId, parseError });
  if (!res.contentType.includes("text/event-stream")) {
    yield { kind: "whole", response: (await readJson(up, res)) as wire.ChatResponse };
    return;
  }
  for await (const e of sseEvents(res.body, up.vendor)) {
    const d = e.data.trim();
    if (!d) continue;
    if (d === "[DONE]") {
      yield { kind: "done" };
      continue;
    }
    const data = eventJson(e) as wire.ChatResponse | undefined;
    if (!data || typeof data !== "object") {
      up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: call.requestId, data: d.slice(0, 1024) }, "upstream sent a non-JSON stream event");
      throw protocolError(up.vendor, "non-JSON stream event");
    }
    if (data.error) up.log.warn({ channel: up.channel, upstream: up.vendor, requestId: call.requestId, error: data.error }, "upstream stream error");
    yield { kind: "chunk", chunk: data };
  }
}
