// Storage interfaces. Every caller depends on these, never on a driver, so
// SQLite (the embedded default) and PostgreSQL (scale-out) are interchangeable.
// All times are epoch milliseconds.

export interface RateLimitsRecord {
  requestsPerMinute: number;
  tokensPerMinute: number;
  concurrentRequests: number;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  /** sha256 of the secret, hex. The secret itself is never stored. */
  hash: string;
  /** First characters of the secret, for recognising it in lists. */
  prefix: string;
  admin: boolean;
  /** Wire formats the key may use; empty = all. */
  formats: string[];
  /** Model globs the key may use; empty = all. */
  models: string[];
  /** Credit budget; 0 = unlimited. */
  budget: number;
  spent: number;
  limits: RateLimitsRecord;
  createTime: number;
  expireTime?: number | undefined;
  revokeTime?: number | undefined;
}

export interface ListPage {
  limit?: number;
  /** Exclusive cursor: the id of the last row of the previous page. */
  after?: string;
}

export interface KeyStore {
  insert(key: ApiKeyRecord): Promise<void>;
  /** Inserts, or replaces the row with the same id. */
  upsert(key: ApiKeyRecord): Promise<void>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  list(opts?: ListPage & { includeRevoked?: boolean }): Promise<ApiKeyRecord[]>;
  update(id: string, patch: Partial<Omit<ApiKeyRecord, "id" | "hash">>): Promise<ApiKeyRecord | undefined>;
  count(): Promise<number>;
  /**
   * Atomically adds `amount` to `spent` when the budget allows it (budget 0 =
   * unlimited). Returns false, changing nothing, when it would overdraw.
   */
  reserveCredits(id: string, amount: number): Promise<boolean>;
  /** Adds `delta` (may be negative) to `spent`, unconditionally. */
  adjustSpent(id: string, delta: number): Promise<void>;
}

/** A durable task (image-bot or video). `data` is the task's own JSON. */
export interface TaskRecord {
  id: string;
  kind: string;
  status: string;
  ownerKeyId?: string | undefined;
  data: unknown;
  createTime: number;
  updateTime: number;
  /** Incremented on every update; used for optimistic concurrency. */
  version: number;
}

export interface TaskStore {
  insert(task: TaskRecord): Promise<void>;
  get(id: string): Promise<TaskRecord | undefined>;
  getMany(ids: string[]): Promise<TaskRecord[]>;
  /**
   * Writes status and data when the stored version equals `expectedVersion`;
   * returns the new record, or undefined when the version did not match.
   */
  update(id: string, expectedVersion: number, patch: { status: string; data: unknown }): Promise<TaskRecord | undefined>;
  listByStatus(kind: string, statuses: string[], limit?: number): Promise<TaskRecord[]>;
  list(kind: string, opts?: ListPage & { order?: "asc" | "desc"; ownerKeyId?: string }): Promise<TaskRecord[]>;
  delete(id: string): Promise<boolean>;
}

export interface UsageRecord {
  time: number;
  keyId: string;
  format: string;
  model: string;
  channel: string;
  inputTokens: number;
  outputTokens: number;
  images: number;
  seconds: number;
  credits: number;
  status: string;
  latencyMs: number;
  requestId: string;
}

export interface UsageFilter {
  keyId?: string;
  format?: string;
  model?: string;
  since?: number;
  until?: number;
  limit?: number;
}

export interface UsageTotals {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  images: number;
  seconds: number;
  credits: number;
}

export interface UsageStore {
  record(rec: UsageRecord): Promise<void>;
  query(filter: UsageFilter): Promise<{ rows: UsageRecord[]; totals: UsageTotals }>;
}

/** Metadata of a file in the blob store. */
export interface FileRecord {
  id: string;
  mimeType: string;
  size: number;
  createTime: number;
  expireTime?: number | undefined;
  ownerKeyId?: string | undefined;
  /** What produced it: "image", "image-bot", "video", "upload". */
  kind: string;
}

export interface FileStore {
  insert(file: FileRecord): Promise<void>;
  get(id: string): Promise<FileRecord | undefined>;
  delete(id: string): Promise<boolean>;
  listExpired(now: number, limit: number): Promise<FileRecord[]>;
}

/** A cached chat context (the generate-content cachedContents resource). */
export interface CachedContentRecord {
  /** The id part of "cachedContents/{id}"; ids sort by creation time. */
  id: string;
  ownerKeyId: string;
  model: string;
  displayName: string;
  /** The cached context, serialized by the core (opaque to storage). */
  content: Uint8Array;
  totalTokens: number;
  createTime: number;
  updateTime: number;
  expireTime: number;
}

export interface CachedContentStore {
  insert(rec: CachedContentRecord): Promise<void>;
  get(id: string): Promise<CachedContentRecord | undefined>;
  /** The owner's entries that have not expired at `now`, in id order, after the cursor id. */
  list(ownerKeyId: string, now: number, page?: ListPage): Promise<CachedContentRecord[]>;
  update(id: string, patch: { expireTime: number; updateTime: number }): Promise<CachedContentRecord | undefined>;
  delete(id: string): Promise<boolean>;
  /** Removes up to `limit` entries expired at `now`; returns how many. */
  deleteExpired(now: number, limit: number): Promise<number>;
}

/**
 * A callback in the durable outbox of the task runner: one per task change,
 * delivered in `seq` order per task. `id` is the webhook-id, stable across attempts.
 */
export interface OutboxMessage {
  id: string;
  taskId: string;
  seq: number;
  url: string;
  /** The exact body to POST. */
  body: string;
  status: "pending" | "delivered" | "dead";
  attempts: number;
  nextAttemptTime: number;
  lastError?: string | undefined;
  createTime: number;
  updateTime: number;
}

/** Task writes together with their outbox messages, each in one transaction (the transactional outbox). */
export interface TaskOutboxStore {
  insertTask(task: TaskRecord, messages: OutboxMessage[]): Promise<void>;
  /** TaskStore.update plus the messages, atomically; undefined (and nothing written) on a version mismatch. */
  updateTask(id: string, expectedVersion: number, patch: { status: string; data: unknown }, messages: OutboxMessage[]): Promise<TaskRecord | undefined>;
  /** For each task, its lowest-seq pending message when that one is due at `now`; oldest first. */
  due(now: number, limit: number): Promise<OutboxMessage[]>;
  /** Records an attempt's outcome. */
  settle(id: string, patch: { status: OutboxMessage["status"]; attempts: number; nextAttemptTime: number; lastError?: string | undefined; updateTime: number }): Promise<void>;
  listForTask(taskId: string): Promise<OutboxMessage[]>;
  /** Removes delivered and dead messages last updated before `time`; returns how many. */
  deleteSettledBefore(time: number, limit: number): Promise<number>;
}

/** Mutable state of a task-runner account (e.g. an image-bot account's admin overrides and last error). */
export interface TaskAccountRecord {
  kind: string;
  id: string;
  data: unknown;
  updateTime: number;
}

export interface TaskAccountStore {
  list(kind: string): Promise<TaskAccountRecord[]>;
  get(kind: string, id: string): Promise<TaskAccountRecord | undefined>;
  put(rec: TaskAccountRecord): Promise<void>;
}

export interface Storage {
  readonly kind: "sqlite" | "postgres";
  readonly outbox: TaskOutboxStore;
  readonly taskAccounts: TaskAccountStore;
  readonly keys: KeyStore;
  readonly tasks: TaskStore;
  readonly usage: UsageStore;
  readonly files: FileStore;
  readonly cachedContents: CachedContentStore;
  /** Migration versions applied, oldest first. */
  migrations(): Promise<number[]>;
  close(): Promise<void>;
}

export class StorageError extends Error {
  override name = "StorageError";
}
