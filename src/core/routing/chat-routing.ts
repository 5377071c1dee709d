// Model name -> the routes that can serve it, in the order to try them, and
// the retry policy the core applies while trying them (retry.ts).
//
// With no channel configured the local engine serves every model. Once any
// channel is configured, a model is served by the enabled channels whose
// `models` (names or globs) or `modelMap` keys match it, and by the local
// engine only when `local.chatModels` names it; anything else is NotFound.
// Order: channels of a vendor whose signatures the conversation carries come
// first (sticky.ts), then higher priority, then a weighted random draw among
// equal priorities; channels cooling down go last; the local engine is last.
import type { ChatInput } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { ConnectError } from "@connectrpc/connect";
import type { ChatProvider } from "../ports.js";
import { channelRouter, type Channel, type ChannelRouterOptions, type RetryPolicy, type Route } from "./channel-routing.js";
import { weightedOrder } from "./weighted-order.js";
import { globMatch } from "./glob.js";
import { signatureIssuers } from "./sticky.js";

export { weightedOrder };
export { channelPolicy, channelServes, type RetryPolicy } from "./channel-routing.js";

export type ChatRoute = Route<ChatProvider>;
export type ChatChannel = Channel<ChatProvider>;

export interface ChatRouting {
  /** Candidate routes for a model, best first; empty when nothing serves it. `input` gives sticky hints. */
  resolve(model: string, input?: ChatInput): ChatRoute[];
  readonly policy: RetryPolicy;
  /** The outcome of one attempt on a route (cooldown bookkeeping; a failure's error is kept as the channel's last error). */
  report(route: ChatRoute, ok: boolean, err?: ConnectError): void;
  /** Whether a channel is cooling down after repeated failures. */
  cooling?(channel: string): boolean;
}

const NO_RETRY: RetryPolicy = { retries: () => 0, maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0 };

export function localOnlyRouting(local: ChatProvider, servedGlobs: string[]): ChatRouting {
  return {
    resolve(model) {
      return servedGlobs.some((g) => globMatch(g, model)) ? [{ channel: "local", provider: local, upstreamModel: model }] : [];
    },
    policy: NO_RETRY,
    report: () => undefined,
  };
}

export type ChannelRoutingOptions = ChannelRouterOptions<ChatProvider>;

export function channelChatRouting(opts: ChannelRoutingOptions): ChatRouting {
  const router = channelRouter(opts);
  return {
    // Channels of a vendor whose signatures the conversation does not carry go after those that issued them.
    resolve: (model, input) =>
      router.resolve(model, () => {
        const sticky = signatureIssuers(input);
        return sticky.size ? (c) => !sticky.has(c.provider) : undefined;
      }),
    policy: router.policy,
    report: router.report,
    cooling: router.cooling,
  };
}
