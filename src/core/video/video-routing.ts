// Video model -> where it runs. An enabled video channel ("openai-videos" or
// "video-gateway") whose `models` globs or `modelMap` keys match the model
// serves it, with modelMap renaming it; higher priority first, equal
// priorities by weighted chance. The local engine serves what `localModels`
// matches: unset, every name while no video channel exists, none once one does.
import type { ChannelConfig } from "../../config.js";
import type { VideoProvider } from "../ports.js";
import type { ConnectError } from "@connectrpc/connect";
import { invalidArgument } from "../errors.js";
import { isChannelFault, type ChannelStates } from "../routing/channel-state.js";
import { globMatch } from "../routing/glob.js";
import type { VideoRoute } from "./video-task.js";
import { weightedOrder } from "../routing/weighted-order.js";

export const VIDEO_PROVIDERS = ["openai-videos", "video-gateway"] as const;

export interface VideoChannel {
  channel: ChannelConfig;
  provider: VideoProvider;
}

export interface VideoRouting {
  /** Routes for a model, best first; InvalidArgument (field model) when none serves it. */
  resolve(model: string): VideoRoute[];
  /** The provider behind a route's channel, if it still exists. */
  provider(channel: string): VideoProvider | undefined;
  /** Names of every queue (one per channel, and "local"). */
  channels(): string[];
  /** A failed task on a channel (kept as the channel's last error when it says something about the channel). */
  report?(channel: string, err: ConnectError): void;
}

export const isVideoChannel = (c: ChannelConfig) => (VIDEO_PROVIDERS as readonly string[]).includes(c.provider);

/**
 * `states` (runtime channel state) is consulted at each resolve; unset, each
 * channel's configured `enabled` counts. Disabled channels keep their provider
 * and queue, so their running tasks finish and they can be enabled again.
 */
export function videoRouting(upstreams: VideoChannel[], local: VideoProvider, localModels: string[] | undefined, rng: () => number = Math.random, states?: ChannelStates): VideoRouting {
  const video = upstreams.filter((u) => isVideoChannel(u.channel));
  const isEnabled = (u: VideoChannel) => (states ? states.isEnabled(u.channel.name) : u.channel.enabled);
  const localGlobs = localModels ?? (video.some((u) => u.channel.enabled) ? [] : ["*"]);
  const byName = new Map<string, VideoProvider>([["local", local], ...video.map((u) => [u.channel.name, u.provider] as const)]);
  return {
    resolve(model) {
      const matched = video.filter((u) => isEnabled(u) && (Object.hasOwn(u.channel.modelMap, model) || u.channel.models.some((g) => globMatch(g, model))));
      const priorities = [...new Set(matched.map((u) => u.channel.priority))].sort((a, b) => b - a);
      const routes: VideoRoute[] = priorities.flatMap((p) =>
        weightedOrder(
          matched.filter((u) => u.channel.priority === p),
          (u) => u.channel.weight,
          rng,
        ).map((u) => ({ provider: u.channel.provider, channel: u.channel.name, upstreamModel: u.channel.modelMap[model] ?? model })),
      );
      if (localGlobs.some((g) => globMatch(g, model))) routes.push({ provider: "local", channel: "local", upstreamModel: model });
      if (!routes.length) throw invalidArgument(`The model '${model}' does not exist or is not served for video.`, "model", "model_not_found");
      return routes;
    },
    provider: (channel) => byName.get(channel),
    channels: () => [...byName.keys()],
    report(channel, err) {
      if (isChannelFault(err)) states?.recordError(channel, err);
    },
  };
}

/** The runner queue of a channel. */
export const videoQueue = (channel: string) => `video:${channel}`;
