// The channel order every service routes by (chat, embeddings): a model is
// served by the enabled channels whose `models` (names or globs) or
// `modelMap` keys match it, with the channel's modelMap renaming the model;
// channels cooling down go last, then higher priority first and a weighted random draw among equal priorities; the local
// engine serves the names its globs match, after every channel.
import type { ConnectError } from "@connectrpc/connect";
import type { ChannelConfig, UpstreamConfig } from "../../config.js";
import type { ChannelStates } from "./channel-state.js";
import { cooldownTracker, type CooldownTracker } from "./cooldown.js";
import { globMatch } from "./glob.js";
import { weightedOrder } from "./weighted-order.js";

export interface Route<P> {
  channel: string;
  provider: P;
  upstreamModel: string;
}

export interface Channel<P> {
  config: ChannelConfig;
  provider: P;
}

export interface RetryPolicy {
  /** Retries on one channel before falling over to the next. */
  retries(channel: string): number;
  /** Attempts in all, across channels. */
  maxAttempts: number;
  backoffMs: number;
  maxBackoffMs: number;
}

/** A rank for each channel, lower first; asked only when more than one channel matches. */
export type Prefer = () => ((c: ChannelConfig) => number) | undefined;

export interface ChannelRouter<P> {
  /** Candidate routes for a model, best first; empty when nothing serves it. */
  resolve(model: string, prefer?: Prefer): Route<P>[];
  readonly policy: RetryPolicy;
  /** The outcome of one attempt on a route (cooldown bookkeeping; a failure's error is kept as the channel's last error). */
  report(route: Route<P>, ok: boolean, err?: ConnectError): void;
  /** Whether a channel is cooling down after repeated failures. */
  cooling(channel: string): boolean;
}

export interface ChannelRouterOptions<P> {
  /** Every channel of the service (disabled ones too: they may be enabled at runtime). */
  channels: Channel<P>[];
  /** The local engine and the model globs it serves after the channels. */
  local?: { provider: P; globs: string[] };
  upstream: UpstreamConfig;
  now?: () => number;
  rng?: () => number;
  /** Runtime channel state, consulted at each resolve (unset: each channel's configured `enabled`). */
  states?: ChannelStates;
  /** Failure counts and cooldowns, shared between services (a channel's health is one thing); else a tracker of its own. */
  cooldown?: CooldownTracker;
}

/** Whether a channel serves a client model name. */
export function channelServes(c: ChannelConfig, model: string): boolean {
  return Object.hasOwn(c.modelMap, model) || c.models.some((g) => globMatch(g, model));
}

/** The retry policy over configured channels: each channel's own `retries` or the upstream default; none for the local engine. */
export function channelPolicy(byName: Map<string, ChannelConfig>, up: UpstreamConfig): RetryPolicy {
  return {
    retries: (channel) => byName.get(channel)?.retries ?? (channel === "local" ? 0 : up.retries),
    maxAttempts: Math.max(1, up.maxAttempts),
    backoffMs: up.backoffMs,
    maxBackoffMs: up.maxBackoffMs,
  };
}

export function channelRouter<P>(opts: ChannelRouterOptions<P>): ChannelRouter<P> {
  const rng = opts.rng ?? Math.random;
  const up = opts.upstream;
  const states = opts.states;
  const isEnabled = (c: Channel<P>) => (states ? states.isEnabled(c.config.name) : c.config.enabled);
  const byName = new Map(opts.channels.map((c) => [c.config.name, c.config]));
  const cooldown = opts.cooldown ?? cooldownTracker(up.cooldownAfterFailures, opts.now ?? Date.now);

  const rankChannels = (matched: Channel<P>[], prefer: Prefer | undefined): Channel<P>[] => {
    const preferred = prefer?.();
    const rank = (c: Channel<P>) => (cooldown.cooling(c.config.name) ? 1 << 16 : 0) + (preferred ? preferred(c.config) : 0);
    const ranks = [...new Set(matched.map(rank))].sort((a, b) => a - b);
    const ordered: Channel<P>[] = [];
    for (const r of ranks) {
      const inRank = matched.filter((c) => rank(c) === r);
      const priorities = [...new Set(inRank.map((c) => c.config.priority))].sort((a, b) => b - a);
      for (const p of priorities)
        ordered.push(
          ...weightedOrder(
            inRank.filter((c) => c.config.priority === p),
            (c) => c.config.weight,
            rng,
          ),
        );
    }
    return ordered;
  };

  return {
    resolve(model, prefer) {
      const matched: Channel<P>[] = [];
      for (const c of opts.channels) if (isEnabled(c) && channelServes(c.config, model)) matched.push(c);
      // One candidate (the common case) needs no ranking.
      const ordered = matched.length < 2 ? matched : rankChannels(matched, prefer);
      const routes: Route<P>[] = ordered.map((c) => ({ channel: c.config.name, provider: c.provider, upstreamModel: c.config.modelMap[model] ?? model }));
      if (opts.local && opts.local.globs.some((g) => globMatch(g, model))) routes.push({ channel: "local", provider: opts.local.provider, upstreamModel: model });
      return routes;
    },
    policy: channelPolicy(byName, up),
    report(route, ok, err) {
      const c = byName.get(route.channel);
      if (!c) return;
      if (ok) cooldown.ok(route.channel);
      else {
        cooldown.fail(route.channel, c.cooldownMs ?? up.cooldownMs);
        if (err) states?.recordError(route.channel, err);
      }
    },
    cooling: (channel) => cooldown.cooling(channel),
  };
}
