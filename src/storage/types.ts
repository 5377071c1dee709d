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
   * Inserts the key only when the store holds no key at all, atomically even
   * across instances (the first-start admin key); false when a key existed.
   */
  insertIfEmpty(key: ApiKeyRecord): Promise<boolean>;
  /**
   * Atomically adds `amount` to `spent` when the budget allows it (budget 0 =
   * unlimited) and is not used up already (so an `amount` of 0 asks whether
   * any credit is left). Returns false, changing nothing, when it would overdraw.
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
  /** The queue that runs it ("" = none). Scheduling columns, kept by the task runner. */
  queue?: string | undefined;
  /** The instance whose lease lets it run the task, while one does. */
  leaseOwner?: string | undefined;
  /** When that lease ends (epoch ms; 0 = none). */
  leaseUntil?: number | undefined;
}

/**
 * The task statuses storage schedules by: a task waits in its queue in
 * TASK_WAITING and holds a slot in TASK_RUNNING (see docs/task-lifecycle.md).
 */
export const TASK_WAITING = "NOT_START";
export const TASK_RUNNING: readonly string[] = ["SUBMITTED", "IN_PROGRESS"];

/** A task write: status and data, optionally moving it to a queue or ending the writer's lease. */
export interface TaskPatch {
  status: string;
  data: unknown;
  /** Puts the task in this queue, at the end of its waiting line. */
  queue?: string | undefined;
  /** Ends the task's lease (its execution is over). */
  releaseLease?: boolean | undefined;
}

/**
 * An admission's limits: the write happens only while the task's queue holds
 * fewer than concurrency + queueSize unfinished tasks (waiting, running, or
 * still leased), checked atomically with the write; else NoRoomError.
 */
export interface QueueRoom {
  concurrency: number;
  queueSize: number;
  now: number;
}

export interface QueueClaim {
  /** The tasks now leased to the claimer (version incremented), oldest running ones first, then the waiting line. */
  claimed: TaskRecord[];
  /** Tasks of the queue holding a slot (an unexpired lease) after the claim. */
  running: number;
  /** Unfinished tasks of the queue without a lease after the claim. */
  waiting: number;
}

export interface TaskStore {
  insert(task: TaskRecord): Promise<void>;
  get(id: string): Promise<TaskRecord | undefined>;
  getMany(ids: string[]): Promise<TaskRecord[]>;
  /**
   * Writes status and data when the stored version equals `expectedVersion`;
   * returns the new record, or undefined when the version did not match.
   */
  update(id: string, expectedVersion: number, patch: TaskPatch): Promise<TaskRecord | undefined>;
  listByStatus(kind: string, statuses: string[], limit?: number): Promise<TaskRecord[]>;
  list(kind: string, opts?: ListPage & { order?: "asc" | "desc"; ownerKeyId?: string }): Promise<TaskRecord[]>;
  delete(id: string): Promise<boolean>;
  /**
   * Leases work of one queue to `owner` until now + leaseMs, atomically across
   * instances: counts the tasks holding a slot (unexpired lease) and leases up
   * to the free slots' worth of unleased tasks, running ones first (take-over
   * after an expired lease), then waiting ones in line order. Each claimed
   * task's version is incremented, so a former owner's next write fails.
   */
  claim(queue: string, opts: { owner: string; now: number; leaseMs: number; concurrency: number }): Promise<QueueClaim>;
  /** Extends the owner's unexpired leases of unfinished tasks to now + leaseMs; returns the ids still leased. */
  renewLeases(owner: string, ids: string[], now: number, leaseMs: number): Promise<string[]>;
  /** Ends the owner's leases (of `ids`, or all of them); returns how many. */
  releaseLeases(owner: string, ids?: string[]): Promise<number>;
  /** 1-based place of an unleased waiting task in its queue's line; 0 otherwise. */
  queuePosition(id: string, now: number): Promise<number>;
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
  /** Queues or writes one record; a store that only queues (and writes in batches) returns nothing. */
  record(rec: UsageRecord): Promise<void> | void;
  query(filter: UsageFilter): Promise<{ rows: UsageRecord[]; totals: UsageTotals }>;
}

/**
 * Records usage without waiting for the write. A failed write, thrown or
 * rejected, is dropped: it must not fail the request it describes.
 */
export function recordQuietly(store: UsageStore, rec: UsageRecord): void {
  try {
    const written = store.record(rec);
    if (written) written.catch(() => undefined);
  } catch {
    // dropped, as a rejected write is
  }
}

/** Metadata of a file in the blob store. */
export interface FileRecord {
  id: string;
  mimeType: string;
  size: number;
  createTime: number;
  expireTime?: number | undefined;
  ownerKeyId?: string | undefined;
  /** What produced it: "image", "image-bot", "video", "upload" (a video's reference image), "file" (the Files API). */
  kind: string;
  /** The client's name for it (Files API uploads). */
  filename?: string | undefined;
}

/** Where a listing of files resumes: after this file, in newest-first order. */
export interface FileCursor {
  createTime: number;
  id: string;
}

export interface FileListQuery {
  kind: string;
  /** Only this key's files; undefined: every key's. */
  ownerKeyId?: string | undefined;
  limit: number;
  /** Files older than this one (newest first: create_time, then id, descending). */
  after?: FileCursor | undefined;
  /** Instead: the `limit` files just newer than this one, still returned newest first. */
  before?: FileCursor | undefined;
}

export interface FileStore {
  insert(file: FileRecord): Promise<void>;
  get(id: string): Promise<FileRecord | undefined>;
  delete(id: string): Promise<boolean>;
  /** Files of one kind, newest first. */
  list(q: FileListQuery): Promise<FileRecord[]>;
  /** Bytes held by one key's files of one kind that have not expired at `now`. */
  totalSize(q: { kind: string; ownerKeyId: string; now: number }): Promise<number>;
  listExpired(now: number, limit: number): Promise<FileRecord[]>;
  /** Which of these ids have a record. */
  existing(ids: readonly string[]): Promise<Set<string>>;
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
 * A response of the OpenAI Responses API kept for `store` (core/response/).
 * Its documents are JSON text written by the core, opaque to storage.
 */
export interface StoredResponseRecord {
  /** "resp_…". */
  id: string;
  ownerKeyId: string;
  model: string;
  status: string;
  /** The response it continues ("" for none). */
  previousResponseId: string;
  createTime: number;
  expireTime: number;
  /** The Response object. */
  response: string;
  /** This response's input items, a JSON array. */
  input: string;
  /** Every input and output item of the conversation up to and including this response, a JSON array. */
  context: string;
}

/** The documents of a stored response; a read names those it needs (they can be large). */
export type StoredResponseDoc = "response" | "input" | "context";

/** Which row a read or delete means: the owner's, unexpired at `now`. */
export interface StoredResponseKey {
  id: string;
  ownerKeyId: string;
  now: number;
}

export interface StoredResponseStore {
  /** Inserts, or replaces the row with the same id when the same key owns it; false, writing nothing, when another key's row has the id. */
  put(rec: StoredResponseRecord): Promise<boolean>;
  /** The row with the documents asked for (the others ""), or undefined when it is another key's, expired at `now`, or missing. */
  get(key: StoredResponseKey, docs: readonly StoredResponseDoc[]): Promise<StoredResponseRecord | undefined>;
  /** Deletes the row on the same terms as get; false when there was none. */
  delete(key: StoredResponseKey): Promise<boolean>;
  /** Removes up to `limit` rows expired at `now`; returns how many. */
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
  /** Inserts the task and its messages; with `room`, only when the task's queue has room (else NoRoomError). */
  insertTask(task: TaskRecord, messages: OutboxMessage[], room?: QueueRoom): Promise<void>;
  /**
   * TaskStore.update plus the messages, atomically; undefined (and nothing
   * written) on a version mismatch. With `room`, only when the task's (new)
   * queue has room (else NoRoomError).
   */
  updateTask(id: string, expectedVersion: number, patch: TaskPatch, messages: OutboxMessage[], room?: QueueRoom): Promise<TaskRecord | undefined>;
  /** For each task, its lowest-seq pending message when that one is due at `now`; oldest first. */
  due(now: number, limit: number): Promise<OutboxMessage[]>;
  /**
   * due(), handing each message to one worker: the messages returned are
   * claimed by `owner` until now + claimMs, and skipped by other owners until
   * then (the owner's own claims count as free: a restart under the same name).
   */
  claimDue(owner: string, now: number, limit: number, claimMs: number): Promise<OutboxMessage[]>;
  /** Records an attempt's outcome and ends its claim; with `owner`, only while that owner holds the claim. */
  settle(
    id: string,
    patch: { status: OutboxMessage["status"]; attempts: number; nextAttemptTime: number; lastError?: string | undefined; updateTime: number; owner?: string | undefined },
  ): Promise<void>;
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
  readonly responses: StoredResponseStore;
  /** Migration versions applied, oldest first. */
  migrations(): Promise<number[]>;
  close(): Promise<void>;
}

export class StorageError extends Error {
  override name = "StorageError";
}

/** An admission refused because the queue has no room (see QueueRoom). */
export class NoRoomError extends Error {
  override name = "NoRoomError";
}
