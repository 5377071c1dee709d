// Table rows as both SQL drivers read them, and their mapping to records.
// Column values arrive the same from SQLite and PostgreSQL (the pool parses
// int8/numeric to numbers), except booleans: SQLite stores them as 0/1, and
// its key store converts that before keyFromRow.
import type { ApiKeyRecord, CachedContentRecord, FileRecord, OutboxMessage, StoredResponseDoc, StoredResponseRecord, TaskAccountRecord, TaskRecord, UsageRecord } from "./types.js";

export interface TaskRow {
  id: string;
  kind: string;
  status: string;
  owner_key_id: string | null;
  data: string;
  create_time: number;
  update_time: number;
  version: number;
  queue: string;
  queue_order: number;
  lease_owner: string | null;
  lease_until: number;
}

export function taskFromRow(r: TaskRow): TaskRecord {
  return {
    id: r.id,
    kind: r.kind,
    status: r.status,
    ownerKeyId: r.owner_key_id ?? undefined,
    data: JSON.parse(r.data),
    createTime: r.create_time,
    updateTime: r.update_time,
    version: r.version,
    queue: r.queue,
    leaseOwner: r.lease_owner ?? undefined,
    leaseUntil: r.lease_until,
  };
}

export interface OutboxRow {
  id: string;
  task_id: string;
  seq: number;
  url: string;
  body: string;
  status: OutboxMessage["status"];
  attempts: number;
  next_attempt_time: number;
  last_error: string | null;
  create_time: number;
  update_time: number;
}

export function outboxFromRow(r: OutboxRow): OutboxMessage {
  return {
    id: r.id,
    taskId: r.task_id,
    seq: r.seq,
    url: r.url,
    body: r.body,
    status: r.status,
    attempts: r.attempts,
    nextAttemptTime: r.next_attempt_time,
    lastError: r.last_error ?? undefined,
    createTime: r.create_time,
    updateTime: r.update_time,
  };
}

export interface UsageRow {
  time: number;
  key_id: string;
  format: string;
  model: string;
  channel: string;
  input_tokens: number;
  output_tokens: number;
  images: number;
  seconds: number;
  credits: number;
  status: string;
  latency_ms: number;
  request_id: string;
}

export const usageFromRow = (r: UsageRow): UsageRecord => ({
  time: r.time,
  keyId: r.key_id,
  format: r.format,
  model: r.model,
  channel: r.channel,
  inputTokens: r.input_tokens,
  outputTokens: r.output_tokens,
  images: r.images,
  seconds: r.seconds,
  credits: r.credits,
  status: r.status,
  latencyMs: r.latency_ms,
  requestId: r.request_id,
});

export interface CachedContentRow {
  id: string;
  owner_key_id: string;
  model: string;
  display_name: string;
  content: Buffer;
  total_tokens: number;
  create_time: number;
  update_time: number;
  expire_time: number;
}

export function cachedContentFromRow(r: CachedContentRow): CachedContentRecord {
  return {
    id: r.id,
    ownerKeyId: r.owner_key_id,
    model: r.model,
    displayName: r.display_name,
    content: new Uint8Array(r.content),
    totalTokens: r.total_tokens,
    createTime: r.create_time,
    updateTime: r.update_time,
    expireTime: r.expire_time,
  };
}

/** An api_keys row with admin as a boolean (PostgreSQL); SQLite's 0/1 is converted first. */
export interface KeyRow {
  id: string;
  name: string;
  hash: string;
  prefix: string;
  admin: boolean;
  formats: string;
  models: string;
  budget: number;
  spent: number;
  limits: string;
  create_time: number;
  expire_time: number | null;
  revoke_time: number | null;
}

export function keyFromRow(r: KeyRow): ApiKeyRecord {
  const limits = JSON.parse(r.limits) as Partial<ApiKeyRecord["limits"]>;
  return {
    id: r.id,
    name: r.name,
    hash: r.hash,
    prefix: r.prefix,
    admin: r.admin,
    formats: JSON.parse(r.formats) as string[],
    models: JSON.parse(r.models) as string[],
    budget: r.budget,
    spent: r.spent,
    limits: { requestsPerMinute: limits.requestsPerMinute ?? 0, tokensPerMinute: limits.tokensPerMinute ?? 0, concurrentRequests: limits.concurrentRequests ?? 0 },
    createTime: r.create_time,
    expireTime: r.expire_time ?? undefined,
    revokeTime: r.revoke_time ?? undefined,
  };
}

export interface FileRow {
  id: string;
  mime_type: string;
  size: number;
  create_time: number;
  expire_time: number | null;
  owner_key_id: string | null;
  kind: string;
  filename: string | null;
}

export function fileFromRow(r: FileRow): FileRecord {
  return {
    id: r.id,
    mimeType: r.mime_type,
    size: r.size,
    createTime: r.create_time,
    expireTime: r.expire_time ?? undefined,
    ownerKeyId: r.owner_key_id ?? undefined,
    kind: r.kind,
    ...(r.filename !== null && r.filename !== undefined ? { filename: r.filename } : {}),
  };
}

export interface TaskAccountRow {
  kind: string;
  id: string;
  data: string;
  update_time: number;
}

export const taskAccountFromRow = (r: TaskAccountRow): TaskAccountRecord => ({ kind: r.kind, id: r.id, data: JSON.parse(r.data), updateTime: r.update_time });

export interface StoredResponseRow {
  id: string;
  owner_key_id: string;
  model: string;
  status: string;
  previous_response_id: string;
  create_time: number;
  expire_time: number;
  response: string;
  input: string;
  context: string;
}

export function storedResponseFromRow(r: StoredResponseRow): StoredResponseRecord {
  return {
    id: r.id,
    ownerKeyId: r.owner_key_id,
    model: r.model,
    status: r.status,
    previousResponseId: r.previous_response_id,
    createTime: r.create_time,
    expireTime: r.expire_time,
    response: r.response,
    input: r.input,
    context: r.context,
  };
}

const STORED_RESPONSE_DOCS: readonly StoredResponseDoc[] = ["response", "input", "context"];

/** The select list of a stored-response read: the row's fields, and of its documents those named ('' for the rest). */
export function storedResponseColumns(docs: readonly StoredResponseDoc[]): string {
  const chosen = STORED_RESPONSE_DOCS.map((d) => (docs.includes(d) ? d : `'' AS ${d}`));
  return ["id", "owner_key_id", "model", "status", "previous_response_id", "create_time", "expire_time", ...chosen].join(", ");
}
