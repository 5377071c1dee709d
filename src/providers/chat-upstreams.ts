// Builds the chat provider of each configured channel: its Upstream (base URL,
// keep-alive pool, timeouts, auth and channel headers, log) and the provider of
// its vendor. Pools are created once here and closed with the app.
import type { ChannelConfig, UpstreamConfig } from "../config.js";
import type { ChatChannel } from "../core/routing/chat-routing.js";
import { anthropicChatProvider } from "./anthropic/provider.js";
import { anthropicHeaders } from "./anthropic/client.js";
import { geminiChatProvider } from "./gemini/provider.js";
import { geminiHeaders } from "./gemini/client.js";
import { openaiChatProvider } from "./openai/provider.js";
import { openaiHeaders } from "./openai/client.js";
import { openaiResponsesProvider } from "./openai-responses/provider.js";
import type { UpstreamLogger } from "./shared/log.js";
import type { UpstreamPools } from "./shared/pools.js";
import type { Upstream } from "./shared/http.js";

export const CHAT_VENDORS = ["openai", "anthropic", "gemini"] as const;
export type ChatChannelConfig = ChannelConfig & { provider: (typeof CHAT_VENDORS)[number] };

export function isChatVendor(c: ChannelConfig): c is ChatChannelConfig {
  return (CHAT_VENDORS as readonly string[]).includes(c.provider);
}

export function channelUpstream(c: ChatChannelConfig, up: UpstreamConfig, pools: UpstreamPools, log: UpstreamLogger): Upstream {
  const baseUrl = new URL(c.baseUrl);
  const extra = c.headers ?? {};
  const headers = c.provider === "anthropic" ? anthropicHeaders(c.apiKey, extra) : c.provider === "gemini" ? geminiHeaders(c.apiKey, extra) : openaiHeaders(c.apiKey, extra);
  return {
    vendor: c.provider,
    channel: c.name,
    baseUrl,
    pool: pools.get(c.name, baseUrl.origin, { connectTimeoutMs: c.timeouts?.connectMs ?? up.connectTimeoutMs, connections: up.connections }),
    timeouts: { firstByteMs: c.timeouts?.firstByteMs ?? up.firstByteTimeoutMs, chunkGapMs: c.timeouts?.chunkGapMs ?? up.chunkTimeoutMs },
    headers,
    log,
  };
}

/** Providers of every chat channel, disabled ones included (they can be enabled at runtime; routing skips them until then). */
export function chatChannels(channels: ChannelConfig[], up: UpstreamConfig, pools: UpstreamPools, log: UpstreamLogger): ChatChannel[] {
  return channels
    .filter((c): c is ChatChannelConfig => isChatVendor(c))
    .map((c) => {
      const u = channelUpstream(c, up, pools, log);
      const provider =
        c.provider === "anthropic" ? anthropicChatProvider(u) : c.provider === "gemini" ? geminiChatProvider(u) : c.api === "responses" ? openaiResponsesProvider(u) : openaiChatProvider(u);
      return { config: c, provider };
    });
}
