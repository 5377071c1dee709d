// Image model -> the provider that serves it. An enabled channel whose models
// match the client's model name (or the profile id) takes the request, with its
// modelMap renaming the model; otherwise the local engine does. Channels of
// higher priority come first; equal priorities are ordered by weighted chance.
import type { ChannelConfig } from "../../config.js";
import type { ImageProvider } from "../../providers/types.js";
import { globMatch } from "../routing/glob.js";

export interface ImageRoute {
  channel: string;
  provider: ImageProvider;
  upstreamModel: string;
}

export interface ImageRouting {
  /** Candidate routes, best first; never empty. */
  resolve(model: string, profileId: string): ImageRoute[];
}

export interface UpstreamImageChannel {
  channel: ChannelConfig;
  provider: ImageProvider;
}

/** Orders equal-priority channels by weighted random draw (weight 0 goes last). */
function weightedOrder<T extends { channel: ChannelConfig }>(items: T[], rng: () => number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (pool.length) {
    const total = pool.reduce((s, c) => s + c.channel.weight, 0);
    let pick = 0;
    if (total > 0) {
      let r = rng() * total;
      pick = pool.findIndex((c) => (r -= c.channel.weight) < 0);
      if (pick < 0) pick = pool.length - 1;
    }
    out.push(pool.splice(pick, 1)[0]!);
  }
  return out;
}

export function imageRouting(upstreams: UpstreamImageChannel[], local: ImageProvider, rng: () => number = Math.random): ImageRouting {
  const usable = upstreams.filter((u) => u.channel.enabled && u.channel.provider === "openai");
  return {
    resolve(model, profileId) {
      const matched = usable.filter((u) => u.channel.models.some((g) => globMatch(g, model) || globMatch(g, profileId)));
      if (!matched.length) return [{ channel: "local", provider: local, upstreamModel: model }];
      const priorities = [...new Set(matched.map((u) => u.channel.priority))].sort((a, b) => b - a);
      return priorities.flatMap((p) =>
        weightedOrder(
          matched.filter((u) => u.channel.priority === p),
          rng,
        ).map((u) => ({ channel: u.channel.name, provider: u.provider, upstreamModel: u.channel.modelMap[model] ?? u.channel.modelMap[profileId] ?? model })),
      );
    },
  };
}
