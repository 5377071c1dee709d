// Embedding model -> the routes that can serve it, best first, and the retry
// policy of its channels: the openai and gemini channels in the order every
// service routes by (routing/channel-routing.ts), then the local engine for
// the names its globs match. Anything else is NotFound.
import type { EmbeddingProvider } from "../ports.js";
import { channelRouter, type Channel, type ChannelRouter, type ChannelRouterOptions, type Route } from "../routing/channel-routing.js";

export type EmbeddingRoute = Route<EmbeddingProvider>;
export type EmbeddingChannel = Channel<EmbeddingProvider>;
export type EmbeddingRouting = ChannelRouter<EmbeddingProvider>;
export type EmbeddingRoutingOptions = ChannelRouterOptions<EmbeddingProvider>;

export function embeddingRouting(opts: EmbeddingRoutingOptions): EmbeddingRouting {
  return channelRouter(opts);
}
