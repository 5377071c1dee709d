// Builds the embedding part of AppDeps: a provider for each openai and gemini
// channel, the local engine and the globs it serves, the routing over them
// (sharing the chat routing's cooldowns and the channel states), and the
// catalog entries of the embedding models.
//
// Embedding models are served by the channels that serve chat: list their
// names (or globs) in a channel's `models`, as for chat. The local engine
// serves `local.embeddingModels`; unset, its own models while no openai or
// gemini channel with a non-image model is configured, none once one is (so
// it never answers a real model's name with made-up vectors in an upstream's
// stead).
import { Capability } from "../../gen/omnigate/model/v1/model_pb.js";
import type { Config } from "../config.js";
import { embeddingRouting, type EmbeddingChannel } from "../core/embedding/embedding-routing.js";
import type { EmbeddingServiceDeps } from "../core/embedding/embedding-service.js";
import { displayName, type ModelEntry } from "../core/model/catalog.js";
import type { ChannelStates } from "../core/routing/channel-state.js";
import type { CooldownTracker } from "../core/routing/cooldown.js";
import { globMatch } from "../core/routing/glob.js";
import { channelUpstream, type ChatChannelConfig } from "../providers/chat-upstreams.js";
import { geminiEmbeddingProvider } from "../providers/gemini/embed-provider.js";
import { localEmbeddingProvider } from "../providers/local/embedding/provider.js";
import { LOCAL_EMBEDDING_MODELS, localEmbeddingModel } from "../providers/local/embedding/models.js";
import { openaiEmbeddingProvider } from "../providers/openai/embed-provider.js";
import { jsonLogger, type UpstreamLogger } from "../providers/shared/log.js";
import { upstreamPools } from "../providers/shared/pools.js";
import { embeddingChannelConfigs, isEmbeddingPattern } from "./chat-deps.js";

export interface EmbeddingDeps {
  service: EmbeddingServiceDeps;
  catalogEntries: ModelEntry[];
  /** Closes the upstream connection pools. */
  close(): Promise<void>;
}

/** A fixed creation time so listings are stable across restarts. */
const CREATED = Date.UTC(2025, 0, 1);
const OWNER: Record<string, string> = { openai: "openai", gemini: "google" };

const isGlob = (s: string) => /[*?]/.test(s);

export function createEmbeddingDeps(config: Config, opts: { now?: () => number; log?: UpstreamLogger; states?: ChannelStates; cooldown?: CooldownTracker } = {}): EmbeddingDeps {
  const configs = embeddingChannelConfigs(config);
  const localGlobs = config.local.embeddingModels ?? (configs.length ? [] : LOCAL_EMBEDDING_MODELS.map((m) => m.id));
  const local = localEmbeddingProvider({ faultInjection: config.local.faultInjection });
  const pools = configs.length ? upstreamPools() : undefined;
  const log = opts.log ?? jsonLogger(config.logLevel);
  const channels: EmbeddingChannel[] = configs.map((c) => {
    const up = channelUpstream(c as ChatChannelConfig, config.upstream, pools!, log);
    return { config: c, provider: c.provider === "gemini" ? geminiEmbeddingProvider(up) : openaiEmbeddingProvider(up) };
  });
  const routing = embeddingRouting({
    channels,
    local: { provider: local, globs: localGlobs },
    upstream: config.upstream,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.states ? { states: opts.states } : {}),
    ...(opts.cooldown ? { cooldown: opts.cooldown } : {}),
  });

  // The catalog: the local engine's models it serves, and every concrete embedding name an enabled channel lists.
  const byId = new Map<string, ModelEntry>();
  const add = (id: string, provider: string, channel: string) => {
    const e = byId.get(id);
    if (e) {
      if (!e.channels.includes(channel)) e.channels.push(channel);
      return;
    }
    const known = LOCAL_EMBEDDING_MODELS.find((m) => m.id === id);
    byId.set(id, {
      id,
      displayName: displayName(id),
      ownedBy: provider === "local" ? "omnigate-local" : (OWNER[provider] ?? provider),
      createTime: CREATED,
      capabilities: [Capability.EMBEDDING],
      inputTokenLimit: localEmbeddingModel(id).maxInputTokens,
      embeddingDimensions: known?.dimensions ?? (provider === "local" ? localEmbeddingModel(id).dimensions : 0),
      provider,
      channels: [channel],
    });
  };
  for (const c of configs.filter((x) => x.enabled)) for (const id of [...c.models, ...Object.keys(c.modelMap)]) if (!isGlob(id) && isEmbeddingPattern(id)) add(id, c.provider, c.name);
  for (const m of LOCAL_EMBEDDING_MODELS) if (localGlobs.some((g) => globMatch(g, m.id))) add(m.id, "local", "local");
  for (const id of localGlobs) if (!isGlob(id)) add(id, "local", "local");

  return { service: { routing }, catalogEntries: [...byId.values()], close: async () => pools?.close() };
}
