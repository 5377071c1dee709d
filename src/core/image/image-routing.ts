// Image model -> the provider that serves it. An enabled channel whose models
// match the client's model name (or the profile id) takes the request, with its
// modelMap renaming the model; otherwise the local engine does. Channels of
// higher priority come first; equal priorities are ordered by weighted chance.
import type { ChannelConfig } from "../../config.js";
import type { ConnectError } from "@connectrpc/connect";
import type { ImageProvider } from "../ports.js";
import { isChannelFault, type ChannelStates } from "../routing/channel-state.js";
import { globMatch } from "../routing/glob.js";
import { weightedOrder } from "../routing/weighted-order.js";

export interface ImageRoute {
  channel: string;
  provider: ImageProvider;
  upstreamModel: string;
}

export interface ImageRouting {
  /** Candidate routes, best first; never empty. */
  resolve(model: string, profileId: string): ImageRoute[];
  /** A failed attempt on a route (kept as the channel's last error when it says something about the channel). */
  report?(route: ImageRoute, err: ConnectError): void;
}

export interface UpstreamImageChannel {
  channel: ChannelConfig;
  provider: ImageProvider;
}

/** `states` (runtime channel state) is consulted at each resolve; unset, each channel's configured `enabled` counts. */
export function imageRouting(upstreams: UpstreamImageChannel[], local: ImageProvider, rng: () => number = Math.random, states?: ChannelStates): ImageRouting {
  const openai = upstreams.filter((u) => u.channel.provider === "openai");
  const isEnabled = (u: UpstreamImageChannel) => (states ? states.isEnabled(u.channel.name) : u.channel.enabled);
  return {
    resolve(model, profileId) {
      const matched = openai.filter((u) => isEnabled(u) && u.channel.models.some((g) => globMatch(g, model) || globMatch(g, profileId)));
      if (!matched.length) return [{ channel: "local", provider: local, upstreamModel: model }];
      const priorities = [...new Set(matched.map((u) => u.channel.priority))].sort((a, b) => b - a);
      return priorities.flatMap((p) =>
        weightedOrder(
          matched.filter((u) => u.channel.priority === p),
          (u) => u.channel.weight,
          rng,
        ).map((u) => ({ channel: u.channel.name, provider: u.provider, upstreamModel: u.channel.modelMap[model] ?? u.channel.modelMap[profileId] ?? model })),
      );
    },
    report(route, err) {
      if (isChannelFault(err)) states?.recordError(route.channel, err);
    },
  };
}
