// Model name -> the routes that can serve it, in the order to try them, and
// the retry policy the core applies while trying them (retry.ts).
//
// With no channel configured the local engine serves every model. Once any
// channel is configured, a model is served by the enabled channels whose
// `models` (names or globs) or `modelMap` keys match it, and by the local
// engine only when `local.chatModels` names it; anything else is NotFound.
// Order: channels of a vendor whose signatures the conversation carries come
// first (sticky.ts), then the channel that last served the conversation
// (affinity), then higher priority, then a weighted random draw among equal
// priorities; channels cooling down go last; the local engine is last.
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
  /** A channel answered this input: later requests of its conversation (metadata.affinity_key) prefer it. */
  served?(input: ChatInput, channel: string): void;
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

export interface ChannelRoutingOptions extends ChannelRouterOptions<ChatProvider> {
  /** Conversations whose channel is remembered (affinity), least recently served forgotten first. */
  maxAffinities?: number;
}

const DEFAULT_MAX_AFFINITIES = 10_000;

/** The conversation a request belongs to, scoped to its caller; "" when the client named none. */
const affinityOf = (input: ChatInput | undefined): string => {
  const m = input?.metadata;
  return m?.affinityKey ? `${m.keyId}\0${m.affinityKey}` : "";
};

export function channelChatRouting(opts: ChannelRoutingOptions): ChatRouting {
  const router = channelRouter(opts);
  const max = opts.maxAffinities ?? DEFAULT_MAX_AFFINITIES;
  // Insertion order is recency: a served conversation is moved to the end.
  const affinity = new Map<string, string>();
  return {
    // A conversation's signatures bind it to their vendor first; among what is left, its last channel comes first.
    resolve: (model, input) =>
      router.resolve(model, () => {
        const sticky = signatureIssuers(input);
        const key = affinityOf(input);
        const pinned = key ? affinity.get(key) : undefined;
        if (!sticky.size && pinned === undefined) return undefined;
        return (c) => (sticky.size && !sticky.has(c.provider) ? 2 : 0) + (pinned !== undefined && c.name !== pinned ? 1 : 0);
      }),
    policy: router.policy,
    report: router.report,
    cooling: router.cooling,
    served(input, channel) {
      const key = affinityOf(input);
      if (!key || channel === "local") return;
      affinity.delete(key);
      if (affinity.size >= max) affinity.delete(affinity.keys().next().value!);
      affinity.set(key, channel);
    },
  };
}
