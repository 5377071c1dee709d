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

export interface Storage {
  readonly kind: "sqlite" | "postgres";
  readonly keys: KeyStore;
  readonly tasks: TaskStore;
  readonly usage: UsageStore;
  readonly files: FileStore;
  /** Migration versions applied, oldest first. */
  migrations(): Promise<number[]>;
  close(): Promise<void>;
}

export class StorageError extends Error {
  override name = "StorageError";
}
