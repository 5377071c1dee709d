// Builds the file and image parts of AppDeps: the blob store with its URL
// secret and sweeper, the image providers (local engine, OpenAI-compatible
// channels) and routing, and the catalog entries of the image models.
import path from "node:path";
import { Capability } from "../../gen/omnigate/model/v1/model_pb.js";
import type { Config } from "../config.js";
import type { ImageServiceDeps } from "../core/image/image-service.js";
import { imageRouting } from "../core/image/image-routing.js";
import { modelResolver } from "../core/image/profiles.js";
import { displayName, type ModelEntry } from "../core/model/catalog.js";
import type { ChannelStates } from "../core/routing/channel-state.js";
import { globMatch } from "../core/routing/glob.js";
import { localImageProvider } from "../providers/local/images/provider.js";
import { openaiClient, type OpenAIClient } from "../providers/openai-images/client.js";
import { openaiImageProvider } from "../providers/openai-images/provider.js";
import type { BlobStore } from "../storage/blob/blob-store.js";
import { fsBlobStore } from "../storage/blob/fs-blob-store.js";
import { resolveUrlSecret } from "../storage/blob/signed-url.js";
import { startSweeper, type Sweeper } from "../storage/blob/sweeper.js";
import type { Storage } from "../storage/types.js";

export interface FileDeps {
  blobs: BlobStore;
  /** Signs file URLs (storage/blob/signed-url.ts). */
  urlSecret: string;
  sweeper: Sweeper;
}

export interface ImageDeps {
  service: ImageServiceDeps;
  catalogEntries: ModelEntry[];
  /** Closes upstream connection pools. */
  close(): Promise<void>;
}

export function createFileDeps(config: Config, storage: Storage, now: () => number, onError?: (err: unknown) => void): FileDeps {
  const blobs = fsBlobStore({ dir: config.filesDir ?? path.join(config.dataDir, "files"), files: storage.files, now });
  // A shared files dir also shares the URL secret, so every instance verifies every URL.
  const urlSecret = resolveUrlSecret(config.urlSecret, config.filesDir ?? config.dataDir);
  const sweeper = startSweeper(blobs, { intervalMs: config.images.sweepIntervalMs, orphanGraceMs: config.images.orphanGraceMs, now, ...(onError ? { onError } : {}) });
  return { blobs, urlSecret, sweeper };
}

/** A fixed creation time for the built-in image models so listings are stable. */
const IMAGE_MODELS_CREATED = Date.UTC(2025, 0, 1);

export function createImageDeps(config: Config, storage: Storage, files: FileDeps, now: () => number, states?: ChannelStates): ImageDeps {
  const models = modelResolver(config.images.aliases);
  const clients: OpenAIClient[] = [];
  // Every openai channel gets a provider (a disabled one may be enabled at runtime); routing skips disabled ones.
  const upstreams = config.channels
    .filter((c) => c.provider === "openai")
    .map((channel) => {
      const client = openaiClient({ channel: channel.name, baseUrl: channel.baseUrl, apiKey: channel.apiKey, now });
      clients.push(client);
      return { channel, provider: openaiImageProvider(channel.name, client) };
    });
  const routing = imageRouting(upstreams, localImageProvider({ blocklist: config.local.blocklist }), Math.random, states);
  const listed = upstreams.filter((u) => u.channel.enabled);

  const catalogEntries = models.names().map((id): ModelEntry => {
    const profile = models.resolve(id)!.profile;
    const channels = listed.filter((u) => u.channel.models.some((g) => globMatch(g, id) || globMatch(g, profile.id))).map((u) => u.channel.name);
    return {
      id,
      displayName: id.startsWith("IMG_MODEL_") ? id : displayName(id),
      description: `Image model (${profile.id} rules): ${profile.operations.join(", ")}.`,
      ownedBy: channels.length ? "omnigate" : "omnigate-local",
      createTime: IMAGE_MODELS_CREATED,
      capabilities: [Capability.IMAGE],
      provider: channels.length ? "openai" : "local",
      channels: channels.length ? channels : ["local"],
    };
  });

  return {
    service: {
      models,
      routing,
      blobs: files.blobs,
      urlSecret: files.urlSecret,
      publicUrl: config.publicUrl,
      urlTtlMs: config.images.urlTtlMs,
      now,
    },
    catalogEntries,
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
    },
  };
}
