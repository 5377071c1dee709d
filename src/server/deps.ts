// Builds everything the app needs from a Config. Tests pass overrides (a clock,
// a storage) instead of patching modules.
import type { Config } from "../config.js";
import { authenticator, type Authenticator } from "../core/auth/authenticator.js";
import { Capability } from "../../gen/omnigate/model/v1/model_pb.js";
import { staticCatalog, displayName, type ModelCatalog, type ModelEntry } from "../core/model/catalog.js";
import { buildCore, type Core } from "../core/routes.js";
import type { ChatRouting } from "../core/routing/chat-routing.js";
import { channelStates, type ChannelStates } from "../core/routing/channel-state.js";
import { cooldownTracker } from "../core/routing/cooldown.js";
import { createChatDeps, type ChatDeps } from "./chat-deps.js";
import { localChatProvider } from "../providers/local/chat/provider.js";
import { loadSigningSecret } from "../providers/local/chat/signing-key.js";
import { openStorage } from "../storage/open.js";
import type { Storage } from "../storage/types.js";
import { createMetrics, observeCalls, type Metrics } from "./metrics.js";
import { createFileDeps, createImageDeps, type FileDeps, type ImageDeps } from "./image-deps.js";
import { budgets } from "../core/tenancy/budget.js";
import { taskRefunds } from "../core/tenancy/task-refunds.js";
import { memoryLimiter, type RateLimiter } from "../core/tenancy/limiter.js";
import type { SharedSignal } from "../core/auth/redis-signal.js";
import { createTaskDeps, type TaskDeps } from "./task-deps.js";
import { createVideoDeps, type VideoDeps } from "./video-deps.js";
import { createBackgroundDeps } from "./background-deps.js";
import { BACKGROUND_KIND } from "../core/response/background-task.js";
import { createEmbeddingDeps, type EmbeddingDeps } from "./embedding-deps.js";
import { writeCoalescer, type WriteCoalescer } from "./write-coalescer.js";
import { keptSecret } from "../lib/kept-secret.js";
import { responseSweeper, type ResponseSweeper } from "../core/response/sweeper.js";
import { createLogger, type Logger } from "./logger.js";

export interface Lifecycle {
  shuttingDown: boolean;
}

export interface AppDeps {
  config: Config;
  storage: Storage;
  auth: Authenticator;
  catalog: ModelCatalog;
  chatRouting: ChatRouting;
  /** Chat upstream channels (their connection pools are closed with the app). */
  chat: ChatDeps;
  core: Core;
  metrics: Metrics;
  /** Per-key rate limits (in-process, or Redis when configured); closed with the app. */
  limiter: RateLimiter;
  lifecycle: Lifecycle;
  now: () => number;
  /** Generated files: blob store, URL secret and the sweeper (stopped when the app closes). */
  files: FileDeps;
  /** Key of the opaque blobs the Responses facade hands out and takes back (reasoning, compaction). */
  sealSecret: string;
  /** Image providers and routing; closed with the app. */
  images: ImageDeps;
  /** The durable task runner (image-bot and video tasks) and the image-bot pool; stopped with the app. */
  tasks: TaskDeps;
  /** Video providers, routing and the video kind of the task runner; closed with the app. */
  videos: VideoDeps;
  /** Embedding providers and routing; closed with the app. */
  embeddings: EmbeddingDeps;
  /** Deletes expired stored responses; stopped with the app. */
  responseSweeper: ResponseSweeper;
  /** Runtime state of the configured channels (enabled, last error), shared by every routing. */
  channels: ChannelStates;
  /** With shared storage: re-reads what other instances change (channel and account admin state); stopped with the app. */
  stateRefresh?: NodeJS.Timeout;
  /** With Redis: tells the other instances that keys changed; closed with the app. */
  keySignal?: SharedSignal | undefined;
  /** When config.coalesceWrites: sends each loop turn's writes together (the HTTP server's connections and the chat upstreams'). */
  writes?: WriteCoalescer | undefined;
  /** The process's logger: fastify's loggerInstance, and the task runner's. */
  log: Logger;
}

/** How often expired stored responses are deleted (reads never see them meanwhile). */
export const RESPONSE_SWEEP_MS = 60_000;

/** The file the Responses sealing secret is kept in when none is configured. */
export const SEAL_SECRET_FILE = "seal-secret";

/** How often an instance on shared storage picks up other instances' admin changes. */
export const STATE_REFRESH_MS = 2_000;

/** Chat models the local engine lists (it serves any name while no channel is configured). */
export const LOCAL_LISTED_CHAT_MODELS = ["claude-sonnet-4-6", "claude-haiku-4-5", "claude-opus-4-6", "gemini-2.5-flash", "gemini-2.5-pro", "local-chat"];

function localChatEntries(now: number): ModelEntry[] {
  return LOCAL_LISTED_CHAT_MODELS.map((id) => ({
    id,
    displayName: displayName(id),
    ownedBy: "omnigate-local",
    createTime: now,
    capabilities: [Capability.CHAT],
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    thinking: true,
    provider: "local",
    channels: ["local"],
  }));
}

/** A fixed creation time for local models so listings are stable across restarts. */
const LOCAL_MODELS_CREATED = Date.UTC(2025, 0, 1);

export async function createDeps(config: Config, overrides: { storage?: Storage; now?: () => number; metrics?: Metrics; log?: Logger } = {}): Promise<AppDeps> {
  const now = overrides.now ?? Date.now;
  const log = overrides.log ?? createLogger(config.logLevel);
  const storage = overrides.storage ?? (await openStorage(config));
  // With Redis, a key changed on one instance is dropped from every instance's cache at once.
  // The Redis client (ioredis) is loaded only when Redis is configured: heap otherwise held for nothing.
  const redis = config.redisUrl ? { url: config.redisUrl, prefix: config.redisPrefix } : undefined;
  const keySignal = redis ? (await import("../core/auth/redis-signal.js")).redisSignal({ ...redis, name: "keys-changed" }) : undefined;
  const auth = authenticator(storage.keys, { now, ...(keySignal ? { shared: keySignal } : {}) });
  const metrics = overrides.metrics ?? createMetrics({ gcDurations: config.gcMetrics });
  const local = localChatProvider({ ...config.local, signingSecret: config.local.signingSecret || loadSigningSecret(config.dataDir) });
  // The chat routing keeps its channels' cooldowns here; the channel states show them (the routing needs the states first).
  const cooldown = cooldownTracker(config.upstream.cooldownAfterFailures, now);
  const channels = channelStates(config.channels, { now, cooling: cooldown.cooling, store: storage.taskAccounts });
  await channels.refresh();
  const writes = config.coalesceWrites ? writeCoalescer() : undefined;
  const chat = createChatDeps(config, local, localChatEntries(LOCAL_MODELS_CREATED), { now, states: channels, cooldown, ...(writes ? { onSocket: writes.attach } : {}) });
  const chatRouting = chat.routing;
  const files = createFileDeps(config, storage, now);
  // Kept beside the URL secret: instances sharing a files dir open each other's blobs.
  const sealSecret = keptSecret(config.sealSecret, config.filesDir ?? config.dataDir, SEAL_SECRET_FILE);
  const images = createImageDeps(config, storage, files, now, channels);
  const embeddings = createEmbeddingDeps(config, { now, states: channels, cooldown });
  const catalog = staticCatalog([...chat.catalogEntries, ...embeddings.catalogEntries, ...images.catalogEntries]);
  const tasks = await createTaskDeps(config, storage, files, now, { log, states: channels, onFinished: taskRefunds({ prices: config.prices, keys: storage.keys, usage: storage.usage, now }) });
  const videos = createVideoDeps(config, storage, files, tasks.runner, now, channels);
  const limiter = redis ? (await import("../core/tenancy/redis-limiter.js")).redisLimiter(redis) : memoryLimiter(now);
  // Background responses run the core's own chat calls (the core is built below).
  let core: Core | undefined;
  const background = createBackgroundDeps(storage, tasks.runner, () => core!.clients.chat, chatRouting, now, config.responses.background);
  const fileApi = { blobs: files.blobs, files: storage.files, maxBytes: config.fileMaxBytes, quotaBytes: config.fileQuotaBytes, now };
  core = buildCore({
    auth,
    catalog,
    admin: { keys: storage.keys, usage: storage.usage, auth, now, channels },
    tenancy: { limiter, budgets: budgets(storage.keys), prices: config.prices, usage: storage.usage, now },
    chat: { routing: chatRouting, cachedContents: storage.cachedContents, files: fileApi, now },
    image: images.service,
    imageBot: tasks.imageBot,
    video: videos.service,
    files: fileApi,
    embedding: embeddings.service,
    responses: { store: storage.responses, retentionMs: config.responses.retentionDays * 86_400_000, maxBytes: config.responses.maxBytes, now, background },
    observe: observeCalls(metrics),
  });
  const retentionMs = config.responses.retentionDays * 86_400_000;
  const responses = responseSweeper(storage.responses, {
    intervalMs: RESPONSE_SWEEP_MS,
    now,
    onError: (err) => log.warn({ err }, "deleting expired stored responses failed"),
    tasks: { store: storage.tasks, kind: BACKGROUND_KIND, retentionMs },
  });
  // Every task kind is registered on tasks.runner before this: it resumes unfinished tasks.
  await tasks.runner.start();
  const stateRefresh =
    storage.kind === "sqlite"
      ? undefined
      : setInterval(() => {
          channels.refresh().catch(() => undefined);
          tasks.imageBot.pool.load().catch(() => undefined);
        }, STATE_REFRESH_MS).unref();
  return {
    config,
    storage,
    auth,
    catalog,
    chatRouting,
    chat,
    core,
    metrics,
    limiter,
    lifecycle: { shuttingDown: false },
    now,
    files,
    sealSecret,
    images,
    tasks,
    videos,
    embeddings,
    responseSweeper: responses,
    channels,
    stateRefresh,
    keySignal,
    writes,
    log,
  };
}
