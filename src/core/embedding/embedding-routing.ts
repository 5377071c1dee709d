// Embedding model -> the routes that can serve it, best first, and the retry
// policy of its channels.
//
// Embedding models are served by the same channels as chat: an enabled openai
// or gemini channel whose `models` (names or globs) or `modelMap` keys match the
// name takes it, in the chat order (channels cooling down last, then higher
// priority, then a weighted draw among equal priorities), with the channel's
// modelMap renaming the model. The local engine serves the names its globs
// match, after the channels. Anything else is NotFound.
import type { ConnectError } from "@connectrpc/connect";
import type { ChannelConfig, UpstreamConfig } from "../../config.js";
import type { EmbeddingProvider } from "../ports.js";
import type { ChannelStates } from "../routing/channel-state.js";
import { channelPolicy, channelServes, type RetryPolicy } from "../routing/chat-routing.js";
import { cooldownTracker, type CooldownTracker } from "../routing/cooldown.js";
import { globMatch } from "../routing/glob.js";
import type { Routed } from "../routing/retry.js";
import { weightedOrder } from "../routing/weighted-order.js";

export interface EmbeddingRoute {
  channel: string;
  provider: EmbeddingProvider;
  upstreamModel: string;
}

export interface EmbeddingRouting extends Routed<EmbeddingRoute> {
  /** Candidate routes for a model, best first; empty when nothing serves it. */
  resolve(model: string): EmbeddingRoute[];
  readonly policy: RetryPolicy;
}

export interface EmbeddingChannel {
  config: ChannelConfig;
  provider: EmbeddingProvider;
}

export interface EmbeddingRoutingOptions {
  /** Every openai and gemini channel (disabled ones too: they may be enabled at runtime). */
  channels: EmbeddingChannel[];
  /** The local engine and the model globs it serves after the channels. */
  local?: { provider: EmbeddingProvider; globs: string[] };
  upstream: UpstreamConfig;
  now?: () => number;
  rng?: () => number;
  /** Runtime channel state, consulted at each resolve (unset: each channel's configured `enabled`). */
  states?: ChannelStates;
  /** Failure counts and cooldowns, shared with the chat routing (a channel's health is one thing). */
  cooldown?: CooldownTracker;
}

export function embeddingRouting(opts: EmbeddingRoutingOptions): EmbeddingRouting {
  const up = opts.upstream;
  const rng = opts.rng ?? Math.random;
  const states = opts.states;
  const cooldown = opts.cooldown ?? cooldownTracker(up.cooldownAfterFailures, opts.now ?? Date.now);
  const byName = new Map(opts.channels.map((c) => [c.config.name, c.config]));
  const isEnabled = (c: EmbeddingChannel) => (states ? states.isEnabled(c.config.name) : c.config.enabled);

  /** Cooling channels last; within each group higher priority first, equal priorities by weighted chance. */
  const order = (matched: EmbeddingChannel[]): EmbeddingChannel[] => {
    const out: EmbeddingChannel[] = [];
    for (const cooling of [false, true]) {
      const group = matched.filter((c) => cooldown.cooling(c.config.name) === cooling);
      const priorities = [...new Set(group.map((c) => c.config.priority))].sort((a, b) => b - a);
      for (const p of priorities)
        out.push(
          ...weightedOrder(
            group.filter((c) => c.config.priority === p),
            (c) => c.config.weight,
            rng,
          ),
        );
    }
    return out;
  };

  return {
    resolve(model) {
      const matched = opts.channels.filter((c) => isEnabled(c) && channelServes(c.config, model));
      const routes: EmbeddingRoute[] = (matched.length < 2 ? matched : order(matched)).map((c) => ({
        channel: c.config.name,
        provider: c.provider,
        upstreamModel: c.config.modelMap[model] ?? model,
      }));
      if (opts.local?.globs.some((g) => globMatch(g, model))) routes.push({ channel: "local", provider: opts.local.provider, upstreamModel: model });
      return routes;
    },
    policy: channelPolicy(byName, up),
    report(route, ok, err?: ConnectError) {
      const c = byName.get(route.channel);
      if (!c) return;
      if (ok) cooldown.ok(route.channel);
      else {
        cooldown.fail(route.channel, c.cooldownMs ?? up.cooldownMs);
        if (err) states?.recordError(route.channel, err);
      }
    },
  };
}
