// Chat routing and the chat models the catalog lists, built from Config.
//
// A chat channel is an openai, anthropic or gemini channel that lists a model
// (or glob) other than an image model's (dall-e-*, gpt-image-*, IMG_MODEL_*, ...)
// or an embedding model's (*embed*: embedding-deps.ts lists those).
// No chat channel configured: the local engine serves every model name (or
// `local.chatModels` when set) and the catalog lists the local engine's models.
// Chat channels configured: each enabled channel serves the names and globs in its
// `models` and the keys of its `modelMap`; the local engine serves only the
// names in `local.chatModels` (none when unset); other names are NotFound.
// The catalog lists every concrete name (globs cannot be listed).
import type { Socket } from "node:net";
import { Capability } from "../../gen/omnigate/model/v1/model_pb.js";
import { IMAGE_PROFILE_IDS, type Config } from "../config.js";
import { displayName, type ModelEntry } from "../core/model/catalog.js";
import type { ChannelStates } from "../core/routing/channel-state.js";
import { channelChatRouting, localOnlyRouting, type ChatRouting } from "../core/routing/chat-routing.js";
import type { CooldownTracker } from "../core/routing/cooldown.js";
import { chatChannels, isChatVendor } from "../providers/chat-upstreams.js";
import { jsonLogger, type UpstreamLogger } from "../providers/shared/log.js";
import { upstreamPools } from "../providers/shared/pools.js";
import type { ChatProvider } from "../core/ports.js";

export interface ChatDeps {
  routing: ChatRouting;
  /** Chat models for the catalog. */
  catalogEntries: ModelEntry[];
  /** Closes the upstream connection pools. */
  close(): Promise<void>;
}

const isGlob = (s: string) => /[*?]/.test(s);
/** A fixed creation time for configured models so listings are stable across restarts. */
const CONFIGURED_CREATED = Date.UTC(2025, 0, 1);
const OWNER: Record<string, string> = { anthropic: "anthropic", openai: "openai", gemini: "google", local: "omnigate-local" };

function entry(id: string, provider: string, channel: string): ModelEntry {
  return { id, displayName: displayName(id), ownedBy: OWNER[provider] ?? provider, createTime: CONFIGURED_CREATED, capabilities: [Capability.CHAT], provider, channels: [channel] };
}

/** Image model names (profiles and their aliases): a channel that lists only these is an image channel. */
function imageNames(config: Config): Set<string> {
  return new Set<string>([...IMAGE_PROFILE_IDS, ...Object.keys(config.images.aliases)]);
}

/** Families of image model names; a glob that starts with one of them is an image glob ("dall-e-*"). */
const IMAGE_FAMILIES = ["dall-e", "gpt-image", "IMG_MODEL", "imagen", "sora", "veo"];

/** Whether a model name or glob names image (or video) models only. */
export function isImagePattern(pattern: string, images: Set<string>): boolean {
  if (images.has(pattern)) return true;
  const literal = pattern.split(/[*?]/)[0]!;
  return IMAGE_FAMILIES.some((f) => literal.startsWith(f));
}

/** Whether a model name or glob names embedding models ("text-embedding-3-small", "gemini-embedding-*"). */
export const isEmbeddingPattern = (pattern: string) => /embed/i.test(pattern);

/** Channels that serve chat: a chat vendor's, with a model name (or glob) that is neither an image nor an embedding model's. */
export function chatChannelConfigs(config: Config): Config["channels"] {
  const images = imageNames(config);
  return config.channels.filter((c) => isChatVendor(c) && [...c.models, ...Object.keys(c.modelMap)].some((m) => !isImagePattern(m, images) && !isEmbeddingPattern(m)));
}

/** Channels that may serve embeddings: an openai or gemini channel with a model name (or glob) that is not an image model's. */
export function embeddingChannelConfigs(config: Config): Config["channels"] {
  const images = imageNames(config);
  return config.channels.filter((c) => (c.provider === "openai" || c.provider === "gemini") && [...c.models, ...Object.keys(c.modelMap)].some((m) => !isImagePattern(m, images)));
}

export function createChatDeps(
  config: Config,
  local: ChatProvider,
  localEntries: ModelEntry[],
  opts: { now?: () => number; log?: UpstreamLogger; states?: ChannelStates; cooldown?: CooldownTracker; onSocket?: (socket: Socket) => void } = {},
): ChatDeps {
  const configs = chatChannelConfigs(config);
  // `local.chatModels` unset: every name while no chat channel is configured, none once one is, so the local
  // engine never answers a real model's name in an upstream's stead.
  const localGlobs = config.local.chatModels ?? (configs.length === 0 ? ["*"] : []);
  if (configs.length === 0) {
    return { routing: localOnlyRouting(local, localGlobs), catalogEntries: localEntries, close: async () => undefined };
  }
  const pools = upstreamPools(opts.onSocket ? { onSocket: opts.onSocket } : {});
  const log = opts.log ?? jsonLogger(config.logLevel);
  const channels = chatChannels(configs, config.upstream, pools, log);
  const routing = channelChatRouting({
    channels,
    local: { provider: local, globs: localGlobs },
    upstream: config.upstream,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.states ? { states: opts.states } : {}),
    ...(opts.cooldown ? { cooldown: opts.cooldown } : {}),
  });
  const images = imageNames(config);
  const byId = new Map<string, ModelEntry>();
  const add = (id: string, provider: string, channel: string) => {
    if (isGlob(id) || isImagePattern(id, images) || isEmbeddingPattern(id)) return;
    const e = byId.get(id);
    if (e) {
      if (!e.channels.includes(channel)) e.channels.push(channel);
    } else byId.set(id, entry(id, provider, channel));
  };
  for (const c of channels.filter((x) => x.config.enabled)) for (const id of [...c.config.models, ...Object.keys(c.config.modelMap)]) add(id, c.config.provider, c.config.name);
  for (const id of localGlobs) add(id, "local", "local");
  return { routing, catalogEntries: [...byId.values()], close: () => pools.close() };
}
