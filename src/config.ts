// Configuration: environment variables plus an optional JSON or YAML file
// (path in OMNIGATE_CONFIG), validated with zod. Environment wins over the file.
// A bad value is reported with the name of the setting, and startup stops.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { z } from "zod";
import { EMPTY_PRICES, priceSchema } from "./core/tenancy/prices.js";

// The YAML parser is loaded only for a YAML config file: heap a JSON config never needs.
const requireYaml = createRequire(import.meta.url);
const parseYaml = (text: string): unknown => (requireYaml("yaml") as typeof import("yaml")).parse(text);

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const port = z.coerce.number({ error: "expected a port number" }).int("expected a whole number").min(0, "expected a port between 0 and 65535").max(65535, "expected a port between 0 and 65535");

const boolish = z.union([z.boolean(), z.enum(["1", "0", "true", "false", "yes", "no", ""])]).transform((v) => v === true || v === "1" || v === "true" || v === "yes");

const positiveInt = z.coerce.number().int("expected a whole number").min(0, "expected a number >= 0");
const atLeastOne = z.coerce.number().int("expected a whole number").min(1, "expected at least 1");

/** The built-in local engine. */
const localSchema = z
  .object({
    /**
     * Chat model names (or globs) the local engine serves. Unset: every name while
     * no chat channel (openai/anthropic/gemini with a non-image model) is
     * configured, and none once one is (set it, e.g. ["local-*"], to keep some
     * models on the local engine next to upstream channels).
     */
    chatModels: z.array(z.string().min(1)).optional(),
    /**
     * Embedding model names (or globs) the local engine serves. Unset: its own
     * embedding models (text-embedding-3-small, gemini-embedding-001, ...) while
     * no openai or gemini channel with a non-image model is configured, and none
     * once one is.
     */
    embeddingModels: z.array(z.string().min(1)).optional(),
    /** Words that make the local chat engine block a prompt (safety simulation). */
    blocklist: z.array(z.string().min(1)).default(["forbidden-topic"]),
    /** Delay between streamed chunks of the local chat engine, in milliseconds. */
    chunkDelayMs: positiveInt.default(0),
    /** Secret used to sign local thinking blocks; when empty, read from (or created in) <dataDir>/local-signing.key. */
    signingSecret: z.string().default(""),
    /** Whether `#fault:<kind>` directives in a prompt make the local chat engine fail the call (for error-path tests). */
    faultInjection: boolish.default(true),
    /** How long a local image-bot or video task takes to progress from 0% to 100%, in milliseconds (unset: DEFAULT_LOCAL_TASK_MS). */
    taskMs: positiveInt.optional(),
  })
  .strict()
  .default({ blocklist: ["forbidden-topic"], chunkDelayMs: 0, signingSecret: "", faultInjection: true });

/** The process's open-file limit (the soft RLIMIT_NOFILE) where /proc tells it (Linux); undefined elsewhere or when unlimited. */
export function openFileLimit(read: () => string = () => readFileSync("/proc/self/limits", "utf8")): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)\s/m.exec(read());
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * maxConnections when unset: half the open-file limit (the rest is for the h2c listener, upstream pools,
 * storage and files), at most 10,000 (idle connections cost memory too); 10,000 where the limit is unknown.
 */
export function defaultMaxConnections(fds = openFileLimit()): number {
  return fds === undefined ? 10_000 : Math.max(1, Math.min(10_000, Math.floor(fds / 2)));
}

/** grpcMaxSessions when unset: a twentieth of the open-file limit (a session multiplexes calls), at most 1,000; 1,000 where unknown. */
export function defaultGrpcMaxSessions(fds = openFileLimit()): number {
  return fds === undefined ? 1_000 : Math.max(1, Math.min(1_000, Math.floor(fds / 20)));
}

/** The local engine's task duration when OMNIGATE_LOCAL_TASK_MS is unset. */
export const DEFAULT_LOCAL_TASK_MS = 3000;
/** /v1/files: 20 MiB, which stays inside the vendors' request limits (Anthropic 32 MB, Gemini's inline data 20 MB... base64 is a third larger) once a message sends it upstream inline. */
export const DEFAULT_FILE_MAX_BYTES = 20 * 1024 * 1024;
/** Files one key may hold: 1 GiB (Anthropic's is 100 GB an organisation, Google's 20 GB a project; a gateway's disk is shared by every key). */
export const DEFAULT_FILE_QUOTA_BYTES = 1024 * 1024 * 1024;

/**
 * An upstream channel. The same shape serves every domain (images today, chat
 * later): a request for a model matched by `models` (client names or globs) on
 * an enabled channel goes to that channel, with `modelMap` renaming the model
 * on the way up. `baseUrl` is what the vendor's SDK takes as its base (OpenAI:
 * including "/v1", e.g. "https://api.openai.com/v1"). Higher `priority` is tried
 * first; `weight` spreads load across channels of equal priority.
 */
export const channelSchema = z
  .object({
    name: z.string().min(1),
    /** "openai-videos": an OpenAI-videos-compatible API (/videos); "video-gateway": a gateway speaking /video/generations. */
    provider: z.enum(["openai", "anthropic", "gemini", "openai-videos", "video-gateway", "midjourney"]),
    baseUrl: z.url(),
    apiKey: z.string().default(""),
    models: z.array(z.string().min(1)).default([]),
    modelMap: z.record(z.string(), z.string().min(1)).default({}),
    priority: z.number().int().default(0),
    weight: z.number().min(0).default(1),
    enabled: z.boolean().default(true),
    /** Extra headers sent to this upstream with every request. */
    headers: z.record(z.string(), z.string()).optional(),
    /** Per-channel overrides of upstream.connectTimeoutMs / firstByteTimeoutMs / chunkTimeoutMs. */
    timeouts: z.object({ connectMs: positiveInt, firstByteMs: positiveInt, chunkGapMs: positiveInt }).partial().strict().optional(),
    /** Per-channel override of upstream.retries (retries on this channel before falling over). */
    retries: positiveInt.optional(),
    /** Per-channel override of upstream.cooldownMs. */
    cooldownMs: positiveInt.optional(),
    /** Which API an openai channel's chat speaks: "chat" (Chat Completions, the default) or "responses" ({baseUrl}/responses). */
    api: z.enum(["chat", "responses"]).optional(),
  })
  .strict()
  .refine((c) => c.api === undefined || c.provider === "openai", { path: ["api"], message: 'only an openai channel has an api ("chat" or "responses")' });

/**
 * How chat requests reach upstream channels: timeouts, retry with backoff,
 * fallback and cooldown. A retryable failure (connect error, 429, 5xx, timeout
 * before the first byte) is retried on the same channel `retries` times with
 * exponential backoff (from `backoffMs`, capped by `maxBackoffMs`; a longer
 * retry-after moves on at once), then the next channel is tried, up to
 * `maxAttempts` attempts in all. After `cooldownAfterFailures` consecutive
 * failures a channel is skipped for `cooldownMs` (tried last while cooling).
 */
const upstreamSchema = z
  .object({
    connectTimeoutMs: positiveInt.default(10_000),
    /** Until the response headers arrive. */
    firstByteTimeoutMs: positiveInt.default(120_000),
    /** Longest silence between two chunks of a response body (streams included). */
    chunkTimeoutMs: positiveInt.default(120_000),
    retries: positiveInt.default(1),
    maxAttempts: positiveInt.default(4),
    backoffMs: positiveInt.default(250),
    maxBackoffMs: positiveInt.default(4_000),
    cooldownMs: positiveInt.default(30_000),
    cooldownAfterFailures: positiveInt.default(3),
    /** Keep-alive connections per upstream channel. */
    connections: positiveInt.default(64),
  })
  .strict()
  .default({
    connectTimeoutMs: 10_000,
    firstByteTimeoutMs: 120_000,
    chunkTimeoutMs: 120_000,
    retries: 1,
    maxAttempts: 4,
    backoffMs: 250,
    maxBackoffMs: 4_000,
    cooldownMs: 30_000,
    cooldownAfterFailures: 3,
    connections: 64,
  });

export type ChannelConfig = z.infer<typeof channelSchema>;

/** The image profiles of the spec; aliases map other model names onto them. */
export const IMAGE_PROFILE_IDS = ["IMG_MODEL_A", "IMG_MODEL_B", "IMG_MODEL_C", "IMG_MODEL_D"] as const;

/**
 * Default image aliases: the OpenAI models whose rules each profile carries.
 * IMG_MODEL_A = dall-e-2 (edits, variations, 256/512/1024), IMG_MODEL_B =
 * dall-e-3 (n=1, hd, style, rewritten prompts), IMG_MODEL_C = gpt-image-1
 * (multi-image edits, token usage), IMG_MODEL_D = gpt-image-1-mini (the smaller
 * gpt-image model: low/medium/high quality, n up to 8, output_format, background).
 */
export const DEFAULT_IMAGE_ALIASES: Record<string, (typeof IMAGE_PROFILE_IDS)[number]> = {
  "dall-e-2": "IMG_MODEL_A",
  "dall-e-3": "IMG_MODEL_B",
  "gpt-image-1": "IMG_MODEL_C",
  "gpt-image-1-mini": "IMG_MODEL_D",
};

/** Image generation (/v1/images) and the files it produces. */
const imagesSchema = z
  .object({
    /** Client model name -> profile (replaces the defaults when set); the profile ids themselves always work. */
    aliases: z.record(z.string().min(1), z.enum(IMAGE_PROFILE_IDS)).default(DEFAULT_IMAGE_ALIASES),
    /** How long generated files and their signed URLs stay valid (spec: 60 minutes). */
    urlTtlMs: positiveInt.default(60 * 60 * 1000),
    /** How often the sweeper deletes expired files. */
    sweepIntervalMs: positiveInt.default(60 * 1000),
    /**
     * File bytes that no metadata refers to (a crash between writing the
     * bytes and recording them) are deleted once they are this old; also how
     * often they are looked for. 0 turns this off.
     */
    orphanGraceMs: positiveInt.default(60 * 60 * 1000),
  })
  .strict()
  .default({ aliases: DEFAULT_IMAGE_ALIASES, urlTtlMs: 60 * 60 * 1000, sweepIntervalMs: 60 * 1000, orphanGraceMs: 60 * 60 * 1000 });

/**
 * Video generation (/v1/video/generations and /v1/videos): durable tasks of
 * kind "video" on the shared task runner, and the files they produce. Finished
 * videos, thumbnails and spritesheets stay in the blob store for `ttlMs` from
 * completion (the Video's expires_at; OpenAI keeps them 24 hours).
 */
const DEFAULT_VIDEO = {
  concurrency: 2,
  channelConcurrency: 16,
  queueSize: 1000,
  ttlMs: 24 * 3600 * 1000,
  timeoutMs: 30 * 60 * 1000,
  pollMs: 2_000,
  maxPollMs: 15_000,
  maxBytes: 256 * 1024 * 1024,
  allowPrivateUrls: false,
  fontFile: "",
  notifyHook: "",
};
const videoSchema = z
  .object({
    /** Video model names (or globs) the local engine serves. Unset: every name while no video channel is configured, none once one is. */
    localModels: z.array(z.string().min(1)).optional(),
    /** Local renders at once. */
    concurrency: positiveInt.default(DEFAULT_VIDEO.concurrency),
    /** Tasks running at once on each upstream video channel. */
    channelConcurrency: positiveInt.default(DEFAULT_VIDEO.channelConcurrency),
    /** Tasks that may wait for a slot, per queue. */
    queueSize: positiveInt.default(DEFAULT_VIDEO.queueSize),
    /** How long a finished video and its stills are kept. */
    ttlMs: positiveInt.default(DEFAULT_VIDEO.ttlMs),
    /** A video task not finished this long after it was queued or started fails. */
    timeoutMs: positiveInt.default(DEFAULT_VIDEO.timeoutMs),
    /** First wait between two polls of an upstream task; it doubles up to maxPollMs. */
    pollMs: positiveInt.default(DEFAULT_VIDEO.pollMs),
    maxPollMs: positiveInt.default(DEFAULT_VIDEO.maxPollMs),
    /** Largest video (or reference image) downloaded from anywhere. */
    maxBytes: positiveInt.default(DEFAULT_VIDEO.maxBytes),
    /** Whether reference image URLs may point to private or loopback addresses. */
    allowPrivateUrls: boolish.default(DEFAULT_VIDEO.allowPrivateUrls),
    /** Webhook URL told of every finished video (OpenAI's video.completed / video.failed events); "" for none. */
    notifyHook: z.string().default(DEFAULT_VIDEO.notifyHook),
    /** Font of the local engine's captions; empty: a DejaVu or Liberation font when installed, else no caption. */
    fontFile: z.string().default(DEFAULT_VIDEO.fontFile),
  })
  .strict()
  .default(DEFAULT_VIDEO);

/**
 * The durable task runner shared by image-bot and video tasks: the timeout
 * sweep, and callbacks (notifyHook) from the durable outbox, signed the
 * Standard Webhooks way with `callbackSecret` (a "whsec_<base64>" secret is
 * base64-decoded; any other is used as UTF-8; empty = unsigned).
 */
const DEFAULT_TASKS = {
  timeoutMs: 10 * 60 * 1000,
  sweepIntervalMs: 30 * 1000,
  notifyHook: "",
  callbackSecret: "",
  callbackAllowPrivate: false,
  callbackAttempts: 8,
  callbackBackoffMs: 1000,
  callbackMaxBackoffMs: 5 * 60 * 1000,
  callbackTimeoutMs: 10 * 1000,
  instanceId: "",
  leaseMs: 15 * 1000,
  claimPollMs: 1000,
};
const tasksSchema = z
  .object({
    /** A task still unfinished this long after it was queued, started or left waiting in MODAL fails. */
    timeoutMs: positiveInt.default(DEFAULT_TASKS.timeoutMs),
    /** How often the timeout sweep runs. */
    sweepIntervalMs: positiveInt.default(DEFAULT_TASKS.sweepIntervalMs),
    /** Callback URL for tasks that give no notifyHook of their own ("" = none). */
    notifyHook: z.string().default(DEFAULT_TASKS.notifyHook),
    callbackSecret: z.string().default(DEFAULT_TASKS.callbackSecret),
    /** Allow callbacks to private, loopback and link-local addresses (off: refused, against SSRF). */
    callbackAllowPrivate: boolish.default(DEFAULT_TASKS.callbackAllowPrivate),
    /** Delivery attempts per callback before it is given up. */
    callbackAttempts: z.coerce.number().int().min(1, "expected at least 1").default(DEFAULT_TASKS.callbackAttempts),
    /** First retry delay; it doubles per attempt up to callbackMaxBackoffMs. */
    callbackBackoffMs: positiveInt.default(DEFAULT_TASKS.callbackBackoffMs),
    callbackMaxBackoffMs: positiveInt.default(DEFAULT_TASKS.callbackMaxBackoffMs),
    /** Time limit of one delivery attempt. */
    callbackTimeoutMs: positiveInt.default(DEFAULT_TASKS.callbackTimeoutMs),
    /**
     * This instance's name in task leases, unique among the instances sharing
     * the database. Empty: "embedded" with SQLite (one process per data dir),
     * a random name per process with PostgreSQL.
     */
    instanceId: z
      .string()
      .regex(/^[\w.:-]{0,128}$/, "expected up to 128 letters, digits, '_', '.', ':' or '-'")
      .default(DEFAULT_TASKS.instanceId),
    /** How long a task lease lasts without renewal: a killed instance's tasks are taken over after it. */
    leaseMs: z.coerce.number().int("expected a whole number").min(300, "expected at least 300").default(DEFAULT_TASKS.leaseMs),
    /** How often each queue is checked for work to claim (waiting tasks, expired leases). */
    claimPollMs: z.coerce.number().int("expected a whole number").min(10, "expected at least 10").default(DEFAULT_TASKS.claimPollMs),
  })
  .strict()
  .default(DEFAULT_TASKS);

/**
 * An image-bot account. `channel` is "local" (the built-in engine) or the name
 * of a channel with provider "midjourney" (a midjourney-proxy upstream: its
 * baseUrl is the proxy's root, the "/mj" prefix added unless present, and its
 * apiKey is sent as mj-api-secret).
 */
export const imageBotAccountSchema = z
  .object({
    id: z.string().regex(/^[\w.:-]{1,64}$/, "expected 1-64 letters, digits, '_', '.', ':' or '-'"),
    channel: z.string().min(1).default("local"),
    channelId: z.string().default(""),
    instanceId: z.string().default(""),
    modes: z
      .array(z.enum(["RELAX", "FAST", "TURBO"]))
      .min(1)
      .default(["FAST"]),
    remark: z.string().default(""),
    /** Remix on: variation, reroll and pan wait in MODAL for /submit/modal... */
    remix: z.boolean().default(false),
    /** ...unless the account submits the modal itself. */
    remixAutoSubmit: z.boolean().default(false),
    enabled: z.boolean().default(true),
    /** Tasks running at once. */
    concurrency: z.number().int().min(1).max(100).default(3),
    /** Tasks that may wait for a slot (more: code 24). */
    queueSize: z.number().int().min(0).max(10_000).default(10),
    botTypes: z
      .array(z.enum(["PRIMARY_BOT", "ANIME_BOT"]))
      .min(1)
      .default(["PRIMARY_BOT", "ANIME_BOT"]),
  })
  .strict();

export type ImageBotAccountConfig = z.infer<typeof imageBotAccountSchema>;

const DEFAULT_IMAGE_BOT = { accounts: [], bannedWords: [], translateModel: "", tileSize: 512, pollIntervalMs: 2000 };
/** The image-bot proxy (/ib). */
const imageBotSchema = z
  .object({
    /** The account pool; empty: one local account "local" (concurrency 3, queue 10) plus one account per midjourney channel. */
    accounts: z.array(imageBotAccountSchema).default([]),
    /** Prompts containing one of these words are refused (code 21, properties.bannedWord). */
    bannedWords: z.array(z.string().min(1)).default([]),
    /** Chat model that translates Chinese prompts into promptEn; "" = passed on unchanged. */
    translateModel: z.string().default(""),
    /** Local engine: the long side of one image of a grid, in pixels (small values make tests fast). */
    tileSize: z.coerce.number().int().min(16, "expected at least 16").max(2048, "expected at most 2048").default(512),
    /** How often a midjourney-proxy upstream task is polled. */
    pollIntervalMs: positiveInt.default(2000),
  })
  .strict()
  .default(DEFAULT_IMAGE_BOT);

/** Responses the Responses API keeps for `store` (src/core/response/): how long, and how large a document may be. */
const DEFAULT_BACKGROUND = { concurrency: 64, queueSize: 10_000, timeoutMs: 3_600_000 };
const DEFAULT_RESPONSES = { retentionDays: 30, maxBytes: 32 * 1024 * 1024, background: DEFAULT_BACKGROUND };
const backgroundSchema = z
  .object({
    /** Background responses generated at once across every instance; more wait in line. */
    concurrency: atLeastOne.max(10_000, "expected at most 10000").default(DEFAULT_BACKGROUND.concurrency),
    /** Background responses that may wait for a slot; past it a create gets 429. */
    queueSize: atLeastOne.default(DEFAULT_BACKGROUND.queueSize),
    /** A background response not finished this long after it was queued or started fails (reasoning models take minutes). */
    timeoutMs: atLeastOne.default(DEFAULT_BACKGROUND.timeoutMs),
  })
  .strict()
  .default(DEFAULT_BACKGROUND);
const responsesSchema = z
  .object({
    /** Days a stored response is kept after it is saved (OpenAI keeps them 30). */
    retentionDays: atLeastOne.max(3650, "expected at most 3650").default(DEFAULT_RESPONSES.retentionDays),
    /** Largest document of a stored response (the Response object, its input items, its conversation so far), as JSON bytes; a larger one is not stored. */
    maxBytes: atLeastOne.default(DEFAULT_RESPONSES.maxBytes),
    /** `background: true` responses, run on the task runner. */
    background: backgroundSchema,
  })
  .strict()
  .default(DEFAULT_RESPONSES);

/** "*" (any origin) or one origin, scheme://host[:port], as a browser sends it in Origin. */
const corsOrigin = z.string().regex(/^(\*|https?:\/\/[^/\s?#]+)$/, "expected * or an origin such as https://app.example.com (no path)");
const corsOrigins = z.array(corsOrigin);

const databaseUrl = z.string().regex(/^postgres(ql)?:\/\//, "expected a postgres:// or postgresql:// URL");
const databaseSchema = z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, "expected a lower-case identifier ([a-z_][a-z0-9_]*)");
/** Where SQLite's WAL checkpoints run: in the writing connection's commits (SQLite's way) or on a worker thread. */
const sqliteCheckpoint = z.enum(["inline", "worker"]);
const databasePoolSize = z.coerce.number().int("expected a whole number").min(1, "expected at least 1").max(1000, "expected at most 1000");

export const fileSchema = z
  .object({
    port: port.optional(),
    grpcPort: port.optional(),
    host: z.string().min(1).optional(),
    dataDir: z.string().min(1).optional(),
    publicUrl: z.url().optional(),
    bootstrapKey: z.string().min(8, "must be at least 8 characters").optional(),
    logLevel: z.enum(LOG_LEVELS).optional(),
    shutdownGraceMs: positiveInt.optional(),
    bodyLimitBytes: positiveInt.optional(),
    maxConnections: atLeastOne.optional(),
    headersTimeoutMs: positiveInt.optional(),
    requestTimeoutMs: positiveInt.optional(),
    keepAliveTimeoutMs: atLeastOne.optional(),
    grpcMaxSessions: atLeastOne.optional(),
    grpcIdleTimeoutMs: positiveInt.optional(),
    fileMaxBytes: positiveInt.optional(),
    fileQuotaBytes: positiveInt.optional(),
    corsOrigins: corsOrigins.optional(),
    dev: z.boolean().optional(),
    coalesceWrites: z.boolean().optional(),
    gcMetrics: z.boolean().optional(),
    redisUrl: z
      .string()
      .regex(/^rediss?:\/\//, "expected a redis:// or rediss:// URL")
      .optional(),
    redisPrefix: z.string().optional(),
    databaseUrl: databaseUrl.optional(),
    databaseSchema: databaseSchema.optional(),
    databasePoolSize: databasePoolSize.optional(),
    sqliteCheckpoint: sqliteCheckpoint.optional(),
    filesDir: z.string().min(1).optional(),
    prices: priceSchema.optional(),
    local: localSchema.optional(),
    urlSecret: z.string().optional(),
    sealSecret: z.string().optional(),
    channels: z.array(channelSchema).optional(),
    images: imagesSchema.optional(),
    video: videoSchema.optional(),
    upstream: upstreamSchema.optional(),
    tasks: tasksSchema.optional(),
    imageBot: imageBotSchema.optional(),
    responses: responsesSchema.optional(),
  })
  .strict();

export const configSchema = z.object({
  port: port.default(8080),
  grpcPort: port.default(8081),
  host: z.string().min(1).default("127.0.0.1"),
  dataDir: z.string().min(1).default("./data"),
  publicUrl: z.url().optional(),
  bootstrapKey: z.string().min(8, "must be at least 8 characters").optional(),
  logLevel: z.enum(LOG_LEVELS).default("info"),
  shutdownGraceMs: positiveInt.default(10_000),
  bodyLimitBytes: positiveInt.default(32 * 1024 * 1024),
  /**
   * Most connections the HTTP/1.1 listener holds open. The last reserveConnections(n) of them (src/server/connection-limit.ts) answer only
   * /healthz and /readyz (anything else: 503, and closed), so health checks get through a flood of idle
   * connections; past the cap a new connection evicts the oldest reserve connection that has not sent a
   * request, or is closed at once. Unset: defaultMaxConnections() (half the open-file limit, at most 10,000).
   */
  maxConnections: atLeastOne.default(() => defaultMaxConnections()),
  /** Time a client has to send a request's headers, from its connection or its previous request (0: none). */
  headersTimeoutMs: positiveInt.default(30_000),
  /**
   * Time a client has to send a whole request, headers and body (0: none): 5 minutes lets a 32 MB body through
   * a 1 Mbit/s link. It ends when the request is read, so it never cuts an answer, however long it streams.
   */
  requestTimeoutMs: positiveInt.default(300_000),
  /** How long an idle keep-alive connection stays open between two requests. */
  keepAliveTimeoutMs: atLeastOne.default(72_000),
  /** Most sessions (TCP connections) the h2c listener holds open; more are refused. Unset: defaultGrpcMaxSessions(). */
  grpcMaxSessions: atLeastOne.default(() => defaultGrpcMaxSessions()),
  /**
   * An h2c session with no frame either way for this long is sent GOAWAY (its open streams may finish); still
   * silent as long again, it is closed (0: never). gRPC clients' keepalive pings count as frames.
   */
  grpcIdleTimeoutMs: positiveInt.default(72_000),
  /** Largest file /v1/files takes (a file a message names is sent upstream inline). */
  fileMaxBytes: positiveInt.default(DEFAULT_FILE_MAX_BYTES),
  /** Bytes of unexpired files one key may hold (/v1/files and Gemini's files together). */
  fileQuotaBytes: positiveInt.default(DEFAULT_FILE_QUOTA_BYTES),
  /**
   * Origins whose browser pages may call the wire formats (CORS), as the vendors' own APIs allow browser
   * SDKs to: ["*"] (any; keys travel in headers, never cookies) by default, [] for none.
   */
  corsOrigins: corsOrigins.default(["*"]),
  dev: z.boolean().default(false),
  /**
   * Send the HTTP answers and upstream requests written in one turn of the event loop together at
   * its end (src/server/write-coalescer.ts): fewer wake-ups of the peers, the same system calls.
   */
  coalesceWrites: z.boolean().default(true),
  /**
   * Export `omnigate_nodejs_gc_duration_seconds` (prom-client's GC histogram). Off by default: watching
   * every collection makes the old generation grow faster, so full collections come more often.
   */
  gcMetrics: z.boolean().default(false),
  /** Redis for limits shared across instances; in-process limits when unset. */
  redisUrl: z
    .string()
    .regex(/^rediss?:\/\//, "expected a redis:// or rediss:// URL")
    .optional(),
  /** Prefix of every Redis key the gateway writes. */
  redisPrefix: z.string().default("omnigate:"),
  /** PostgreSQL storage (see docs/storage.md); SQLite in dataDir when unset. */
  databaseUrl: databaseUrl.optional(),
  /** Schema holding omnigate's tables; created when missing. */
  databaseSchema: databaseSchema.default("public"),
  /** Most PostgreSQL connections one instance opens. */
  databasePoolSize: databasePoolSize.default(10),
  /**
   * "worker" moves SQLite's WAL checkpoints (two fsyncs each) off the event
   * loop, where they stall requests for 10-40 ms every few thousand writes, at
   * the cost of a worker thread (about 10 MB RSS).
   */
  sqliteCheckpoint: sqliteCheckpoint.default("inline"),
  /** Where the blob store keeps file bytes (a shared directory for several instances); default <dataDir>/files. */
  filesDir: z.string().min(1).optional(),
  /** Price table that turns usage into credits (see src/core/tenancy/prices.ts). */
  prices: priceSchema.default(EMPTY_PRICES),
  local: localSchema,
  /** Secret that signs file URLs (/files/:id?exp&sig); when empty, a random one kept in <dataDir>/url-secret. */
  urlSecret: z.string().default(""),
  /** Secret of the opaque blobs the Responses API hands out (reasoning, compaction); when empty, a random one kept in <filesDir or dataDir>/seal-secret. */
  sealSecret: z.string().default(""),
  /** Upstream channels (see channelSchema). */
  channels: z.array(channelSchema).default([]),
  images: imagesSchema,
  video: videoSchema,
  /** Timeouts, retries, fallback and cooldown towards upstream channels. */
  upstream: upstreamSchema,
  tasks: tasksSchema,
  imageBot: imageBotSchema,
  responses: responsesSchema,
});

export type Config = z.infer<typeof configSchema>;
export type LocalConfig = Config["local"];
export type UpstreamConfig = Config["upstream"];
export type VideoConfig = Config["video"];

/** Environment variable -> config key. */
const ENV: Record<string, { key: keyof z.input<typeof configSchema>; parse?: (v: string) => unknown }> = {
  OMNIGATE_PORT: { key: "port" },
  OMNIGATE_GRPC_PORT: { key: "grpcPort" },
  OMNIGATE_HOST: { key: "host" },
  OMNIGATE_DATA_DIR: { key: "dataDir" },
  OMNIGATE_PUBLIC_URL: { key: "publicUrl" },
  OMNIGATE_BOOTSTRAP_KEY: { key: "bootstrapKey" },
  OMNIGATE_LOG_LEVEL: { key: "logLevel" },
  OMNIGATE_SHUTDOWN_GRACE_MS: { key: "shutdownGraceMs" },
  OMNIGATE_BODY_LIMIT: { key: "bodyLimitBytes" },
  OMNIGATE_MAX_CONNECTIONS: { key: "maxConnections" },
  OMNIGATE_HEADERS_TIMEOUT_MS: { key: "headersTimeoutMs" },
  OMNIGATE_REQUEST_TIMEOUT_MS: { key: "requestTimeoutMs" },
  OMNIGATE_KEEP_ALIVE_TIMEOUT_MS: { key: "keepAliveTimeoutMs" },
  OMNIGATE_GRPC_MAX_SESSIONS: { key: "grpcMaxSessions" },
  OMNIGATE_GRPC_IDLE_TIMEOUT_MS: { key: "grpcIdleTimeoutMs" },
  OMNIGATE_FILE_MAX_BYTES: { key: "fileMaxBytes" },
  OMNIGATE_FILE_QUOTA_BYTES: { key: "fileQuotaBytes" },
  /** Comma-separated; "none" for no cross-origin access. */
  OMNIGATE_CORS_ORIGINS: {
    key: "corsOrigins",
    parse: (v) =>
      v.trim().toLowerCase() === "none"
        ? []
        : v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
  },
  OMNIGATE_DEV: { key: "dev", parse: (v) => boolish.parse(v) },
  OMNIGATE_COALESCE_WRITES: { key: "coalesceWrites", parse: (v) => boolish.parse(v) },
  OMNIGATE_GC_METRICS: { key: "gcMetrics", parse: (v) => boolish.parse(v) },
  OMNIGATE_REDIS_URL: { key: "redisUrl" },
  OMNIGATE_REDIS_PREFIX: { key: "redisPrefix" },
  OMNIGATE_DATABASE_URL: { key: "databaseUrl" },
  OMNIGATE_DATABASE_SCHEMA: { key: "databaseSchema" },
  OMNIGATE_DATABASE_POOL_SIZE: { key: "databasePoolSize" },
  OMNIGATE_SQLITE_CHECKPOINT: { key: "sqliteCheckpoint" },
  OMNIGATE_FILES_DIR: { key: "filesDir" },
  OMNIGATE_URL_SECRET: { key: "urlSecret" },
  OMNIGATE_SEAL_SECRET: { key: "sealSecret" },
  /** A JSON array of channels. */
  OMNIGATE_CHANNELS: { key: "channels", parse: (v) => JSON.parse(v) },
};

/** Nested environment overrides of the local engine. */
const LOCAL_ENV: Record<string, { key: keyof LocalConfig; parse: (v: string) => unknown }> = {
  OMNIGATE_LOCAL_CHUNK_MS: { key: "chunkDelayMs", parse: (v) => v },
  OMNIGATE_LOCAL_BLOCKLIST: {
    key: "blocklist",
    parse: (v) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
  },
  OMNIGATE_LOCAL_SIGNING_SECRET: { key: "signingSecret", parse: (v) => v },
  OMNIGATE_LOCAL_FAULT_INJECTION: { key: "faultInjection", parse: (v) => v },
  OMNIGATE_LOCAL_TASK_MS: { key: "taskMs", parse: (v) => v },
};

/** Nested environment overrides of the task runner and the image-bot proxy. */
const SECTION_ENV: Record<string, { section: "tasks" | "imageBot" | "video" | "responses"; key: string; parse: (v: string) => unknown }> = {
  OMNIGATE_TASK_TIMEOUT_MS: { section: "tasks", key: "timeoutMs", parse: (v) => v },
  OMNIGATE_TASK_SWEEP_MS: { section: "tasks", key: "sweepIntervalMs", parse: (v) => v },
  OMNIGATE_NOTIFY_HOOK: { section: "tasks", key: "notifyHook", parse: (v) => v },
  OMNIGATE_VIDEO_NOTIFY_HOOK: { section: "video", key: "notifyHook", parse: (v) => v },
  OMNIGATE_CALLBACK_SECRET: { section: "tasks", key: "callbackSecret", parse: (v) => v },
  OMNIGATE_CALLBACK_ALLOW_PRIVATE: { section: "tasks", key: "callbackAllowPrivate", parse: (v) => v },
  OMNIGATE_CALLBACK_ATTEMPTS: { section: "tasks", key: "callbackAttempts", parse: (v) => v },
  OMNIGATE_CALLBACK_BACKOFF_MS: { section: "tasks", key: "callbackBackoffMs", parse: (v) => v },
  OMNIGATE_INSTANCE_ID: { section: "tasks", key: "instanceId", parse: (v) => v },
  OMNIGATE_TASK_LEASE_MS: { section: "tasks", key: "leaseMs", parse: (v) => v },
  OMNIGATE_TASK_POLL_MS: { section: "tasks", key: "claimPollMs", parse: (v) => v },
  /** A JSON array of accounts. */
  OMNIGATE_IB_ACCOUNTS: { section: "imageBot", key: "accounts", parse: (v) => JSON.parse(v) },
  OMNIGATE_IB_BANNED_WORDS: {
    section: "imageBot",
    key: "bannedWords",
    parse: (v) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
  },
  OMNIGATE_IB_TRANSLATE_MODEL: { section: "imageBot", key: "translateModel", parse: (v) => v },
  OMNIGATE_IB_TILE_SIZE: { section: "imageBot", key: "tileSize", parse: (v) => v },
  OMNIGATE_RESPONSE_RETENTION_DAYS: { section: "responses", key: "retentionDays", parse: (v) => v },
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

function formatIssues(error: z.ZodError, names: (p: PropertyKey[]) => string): string {
  return error.issues.map((i) => `${names(i.path)}: ${i.message}`).join("; ");
}

function readFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(`OMNIGATE_CONFIG: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`OMNIGATE_CONFIG: ${file} is not valid ${/\.ya?ml$/i.test(file) ? "YAML" : "JSON"}: ${(err as Error).message}`);
  }
  const parsed = fileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new ConfigError(
      `invalid setting in ${file}: ${formatIssues(parsed.error, (p) =>
        p
          .map((s) => (typeof s === "number" ? `[${s}]` : String(s)))
          .join(".")
          .replace(/\.\[/g, "["),
      )}`,
    );
  }
  return parsed.data as Record<string, unknown>;
}

/** Loads and validates the configuration. Throws ConfigError naming the setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const fromFile = env.OMNIGATE_CONFIG ? readFile(env.OMNIGATE_CONFIG) : {};
  const merged: Record<string, unknown> = { ...fromFile };
  const origin = new Map<string, string>();
  for (const [name, { key, parse }] of Object.entries(ENV)) {
    const v = env[name];
    if (v === undefined || v === "") continue;
    try {
      merged[key] = parse ? parse(v) : v;
    } catch {
      throw new ConfigError(`${name}: invalid value ${JSON.stringify(v)}`);
    }
    origin.set(key, name);
  }
  const local: Record<string, unknown> = { ...((fromFile.local as Record<string, unknown> | undefined) ?? {}) };
  for (const [name, { key, parse }] of Object.entries(LOCAL_ENV)) {
    const v = env[name];
    if (v === undefined || v === "") continue;
    local[key] = parse(v);
    origin.set(`local.${key}`, name);
  }
  merged.local = local;
  for (const [name, { section, key, parse }] of Object.entries(SECTION_ENV)) {
    const v = env[name];
    if (v === undefined || v === "") continue;
    const target = { ...((merged[section] as Record<string, unknown> | undefined) ?? {}) };
    try {
      target[key] = parse(v);
    } catch {
      throw new ConfigError(`${name}: invalid value ${JSON.stringify(v)}`);
    }
    merged[section] = target;
    origin.set(`${section}.${key}`, name);
  }
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    throw new ConfigError(
      `invalid configuration: ${formatIssues(parsed.error, (p) => {
        const key = p.map(String).join(".");
        const envName = origin.get(key);
        const value = envName ? JSON.stringify(env[envName]) : undefined;
        return envName ? `${envName} (${value})` : env.OMNIGATE_CONFIG ? `${key} in ${env.OMNIGATE_CONFIG}` : key;
      })}`,
    );
  }
  const config = parsed.data;
  config.dataDir = path.resolve(config.dataDir);
  if (config.filesDir) config.filesDir = path.resolve(config.filesDir);
  return config;
}

/** The base for absolute URLs the gateway hands out. */
export function publicBaseUrl(config: Config, boundPort?: number): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, "");
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const h = host.includes(":") ? `[${host}]` : host;
  return `http://${h}:${boundPort ?? config.port}`;
}
