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
import type { ChannelConfig, UpstreamConfig } from "../../config.js";
import type { ChatProvider } from "../ports.js";
import type { ConnectError } from "@connectrpc/connect";
import type { ChannelStates } from "./channel-state.js";
import { cooldownTracker, type CooldownTracker } from "./cooldown.js";
import { weightedOrder } from "./weighted-order.js";

export { weightedOrder };
import { globMatch } from "./glob.js";
import { signatureIssuers } from "./sticky.js";

export interface ChatRoute {
  channel: string;
  provider: ChatProvider;
  upstreamModel: string;
}

export interface RetryPolicy {
  /** Retries on one channel before falling over to the next. */
  retries(channel: string): number;
  /** Attempts in all, across channels. */
  maxAttempts: number;
  backoffMs: number;
  maxBackoffMs: number;
}

export interface ChatRouting {
  /** Candidate routes for a model, best first; empty when nothing serves it. `input` gives sticky hints. */
  resolve(model: string, input?: ChatInput): ChatRoute[];
  readonly policy: RetryPolicy;
  /** The outcome of one attempt on a route (cooldown bookkeeping; a failure's error is kept as the channel's last error). */
  report(route: ChatRoute, ok: boolean, err?: ConnectError): void;
  /** Whether a channel is cooling down after repeated failures. */
  cooling?(channel: string): boolean;
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

export interface ChatChannel {
  config: ChannelConfig;
  provider: ChatProvider;
}

/** Whether a channel serves a client model name. */
export function channelServes(c: ChannelConfig, model: string): boolean {
  return Object.hasOwn(c.modelMap, model) || c.models.some((g) => globMatch(g, model));
}

export interface ChannelRoutingOptions {
  channels: ChatChannel[];
  /** The local engine and the model globs it serves next to the channels. */
  local?: { provider: ChatProvider; globs: string[] };
  upstream: UpstreamConfig;
  now?: () => number;
  rng?: () => number;
  /** Runtime channel state: consulted at each resolve (unset: each channel's configured `enabled`). */
  states?: ChannelStates;
  /** Failure counts and cooldowns, when the caller shares them (deps.ts: with the channel states); else a tracker of its own. */
  cooldown?: CooldownTracker;
}

export function channelChatRouting(opts: ChannelRoutingOptions): ChatRouting {
  const now = opts.now ?? Date.now;
  const rng = opts.rng ?? Math.random;
  const up = opts.upstream;
  const states = opts.states;
  const isEnabled = (c: ChatChannel) => (states ? states.isEnabled(c.config.name) : c.config.enabled);
  const byName = new Map(opts.channels.map((c) => [c.config.name, c.config]));
  const cooldown = opts.cooldown ?? cooldownTracker(up.cooldownAfterFailures, now);
  const toRoute = (c: ChatChannel, model: string): ChatRoute => ({ channel: c.config.name, provider: c.provider, upstreamModel: c.config.modelMap[model] ?? model });
  const rankChannels = (matched: ChatChannel[], input: ChatInput | undefined): ChatChannel[] => {
    const sticky = signatureIssuers(input);
    const rank = (c: ChatChannel) => (cooldown.cooling(c.config.name) ? 2 : 0) + (sticky.size && !sticky.has(c.config.provider) ? 1 : 0);
    const ranks = [...new Set(matched.map(rank))].sort((a, b) => a - b);
    const ordered: ChatChannel[] = [];
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
    resolve(model, input) {
      const matched: ChatChannel[] = [];
      for (const c of opts.channels) if (isEnabled(c) && channelServes(c.config, model)) matched.push(c);
      // One candidate (the common case) needs no ranking.
      const ordered = matched.length < 2 ? matched : rankChannels(matched, input);
      const routes = ordered.map((c) => toRoute(c, model));
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
