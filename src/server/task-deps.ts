// Builds the durable task runner (shared by image-bot and video tasks) and the
// image-bot part of AppDeps: the account pool, its providers (the local engine
// and midjourney-proxy channels), task files in the blob store, and the
// callback body renderer. Every task kind registers on the runner before
// start(); app.ts stops it when the app closes.
import { createHmac, randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { DEFAULT_LOCAL_TASK_MS, type Config } from "../config.js";
import type { AccountSettings } from "../core/image-bot/accounts.js";
import { AccountPool } from "../core/image-bot/accounts.js";
import type { ChannelStates } from "../core/routing/channel-state.js";
import type { ImageBotDeps, TaskFiles } from "../core/image-bot/deps.js";
import { imageBotHandler } from "../core/image-bot/handler.js";
import { TaskRunner, type RunnerLog } from "../core/tasks/runner.js";
import { fromCoreTask } from "../facades/image-bot/translate.js";
import { localImageBotProvider } from "../providers/local/image-bot/provider.js";
import { jsonLogger } from "../providers/shared/log.js";
import { midjourneyClient, type MidjourneyClient } from "../providers/midjourney/client.js";
import { midjourneyProvider, type MidjourneyProvider } from "../providers/midjourney/provider.js";
import type { ImageBotProvider } from "../core/ports.js";
import { signFileUrl } from "../storage/blob/signed-url.js";
import type { Storage } from "../storage/types.js";
import type { FileDeps } from "./image-deps.js";
import type { StoredTask } from "../core/tasks/types.js";

/** Image-bot file URLs do not expire (their files have no TTL): they are signed up to this date. */
export const IMAGE_BOT_URL_EXPIRY = Date.UTC(2100, 0, 1);

export interface TaskDeps {
  runner: TaskRunner;
  imageBot: ImageBotDeps;
  /** midjourney-proxy providers by channel name (their callbacks wake the pollers). */
  midjourney: Map<string, MidjourneyProvider>;
  /** The token a midjourney channel's callbacks carry. */
  notifyToken(channel: string): string;
  close(): Promise<void>;
}

/**
 * The configured accounts; without any, one local account plus one per
 * midjourney channel (a disabled channel's account takes no task until the
 * channel is enabled at runtime).
 */
export function imageBotAccounts(config: Config): AccountSettings[] {
  const mj = config.channels.filter((c) => c.provider === "midjourney");
  if (config.imageBot.accounts.length > 0) return config.imageBot.accounts.map((a) => ({ ...a }));
  const base = {
    channelId: "",
    instanceId: "",
    modes: ["FAST" as const],
    remark: "",
    remix: false,
    remixAutoSubmit: false,
    enabled: true,
    queueSize: 10,
    botTypes: ["PRIMARY_BOT" as const, "ANIME_BOT" as const],
  };
  return [{ ...base, id: "local", channel: "local", concurrency: 3 }, ...mj.map((c) => ({ ...base, id: c.name, channel: c.name, concurrency: 10, remark: `midjourney-proxy ${c.name}` }))];
}

/**
 * The name this instance's task leases carry: the configured one; else, on
 * SQLite (one process per data dir), a fixed one so that a restart takes its
 * tasks back at once; on PostgreSQL a random one per process.
 */
export function instanceIdOf(config: Config, storage: Pick<Storage, "kind">): string {
  if (config.tasks.instanceId) return config.tasks.instanceId;
  return storage.kind === "sqlite" ? "embedded" : `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
}

function taskFiles(files: FileDeps): TaskFiles {
  return {
    async put(bytes, o) {
      return (await files.blobs.put(bytes, { mimeType: o.mimeType, kind: o.kind, ...(o.ownerKeyId ? { ownerKeyId: o.ownerKeyId } : {}) })).id;
    },
    async read(id) {
      const blob = await files.blobs.open(id);
      if (!blob) throw new Error(`file ${id} is gone`);
      const chunks: Buffer[] = [];
      for await (const c of blob.stream) chunks.push(c as Buffer);
      const data = Buffer.concat(chunks);
      return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), mimeType: blob.record.mimeType };
    },
    url: (id, base) => signFileUrl(base, id, IMAGE_BOT_URL_EXPIRY, files.urlSecret),
  };
}

export async function createTaskDeps(
  config: Config,
  storage: Storage,
  files: FileDeps,
  now: () => number,
  opts: { log: RunnerLog; states?: ChannelStates | undefined; onFinished?: ((task: StoredTask) => void) | undefined },
): Promise<TaskDeps> {
  const t = config.tasks;
  const { states, onFinished } = opts;
  const runner = new TaskRunner({
    storage,
    now,
    log: opts.log,
    timeoutMs: t.timeoutMs,
    sweepIntervalMs: t.sweepIntervalMs,
    callbacks: {
      secret: t.callbackSecret,
      allowPrivate: t.callbackAllowPrivate,
      timeoutMs: t.callbackTimeoutMs,
      maxAttempts: t.callbackAttempts,
      baseDelayMs: t.callbackBackoffMs,
      maxDelayMs: t.callbackMaxBackoffMs,
      pollMs: 500,
      concurrency: 8,
    },
    ...(onFinished ? { onFinished } : {}),
    instanceId: instanceIdOf(config, storage),
    leaseMs: t.leaseMs,
    claimPollMs: t.claimPollMs,
  });
  // Several instances share task changes (WatchTask, SSE, the console) through Redis.
  // Loaded only with Redis configured (deps.ts says why).
  const bus = config.redisUrl ? (await import("../core/tasks/redis-bus.js")).redisEventBus({ url: config.redisUrl, prefix: config.redisPrefix }) : undefined;
  if (bus) runner.events.useBus(bus);

  const notifyToken = (channel: string) => createHmac("sha256", files.urlSecret).update(`mj-notify:${channel}`).digest("hex").slice(0, 32);
  const local = localImageBotProvider({ taskMs: config.local.taskMs ?? DEFAULT_LOCAL_TASK_MS, tileSize: config.imageBot.tileSize });
  const clients: MidjourneyClient[] = [];
  const midjourney = new Map<string, MidjourneyProvider>();
  const upstreamLog = jsonLogger(config.logLevel);
  // Every midjourney channel gets a provider: a disabled one may be enabled at runtime.
  for (const c of config.channels.filter((ch) => ch.provider === "midjourney")) {
    const client = midjourneyClient({ channel: c.name, baseUrl: c.baseUrl, apiSecret: c.apiKey, timeoutMs: config.upstream.connectTimeoutMs ?? 30_000 });
    clients.push(client);
    const notifyUrl = config.publicUrl ? `${config.publicUrl.replace(/\/+$/, "")}/upstream/midjourney/${encodeURIComponent(c.name)}/notify?token=${notifyToken(c.name)}` : undefined;
    midjourney.set(c.name, midjourneyProvider(client, { pollIntervalMs: config.imageBot.pollIntervalMs, notifyUrl, log: upstreamLog }));
  }
  const provider = (account: AccountSettings): ImageBotProvider => {
    if (account.channel === "local") return local;
    const p = midjourney.get(account.channel);
    if (!p) throw new Error(`account ${account.id} names channel ${account.channel}, which is not a midjourney channel`);
    return p;
  };

  const pool = new AccountPool(imageBotAccounts(config), storage.taskAccounts, runner, now, states ? (name) => states.isEnabled(name) : undefined);
  await pool.load();
  const imageBot: ImageBotDeps = {
    runner,
    pool,
    provider,
    files: taskFiles(files),
    settings: {
      bannedWords: config.imageBot.bannedWords,
      translateModel: config.imageBot.translateModel,
      globalNotifyHook: t.notifyHook,
      allowPrivateCallbacks: t.callbackAllowPrivate,
      publicUrl: config.publicUrl,
    },
    ...(states ? { channels: states } : {}),
    callbackBody: (task) => JSON.stringify(fromCoreTask(task)),
    now,
  };
  runner.register(imageBotHandler(imageBot));

  return {
    runner,
    imageBot,
    midjourney,
    notifyToken,
    async close() {
      await runner.stop();
      await Promise.allSettled([...clients.map((c) => c.close()), bus?.close()]);
    },
  };
}
