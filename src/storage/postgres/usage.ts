// Usage records on PostgreSQL, written in batches like the SQLite store: one
// multi-row INSERT (unnest of column arrays) per batch instead of one round
// trip per request. Queries and close() flush first.
import type { UsageRecord, UsageStore, UsageTotals } from "../types.js";
import type { Db } from "./db.js";
import { usageFromRow as fromRow, type UsageRow as Row } from "../rows.js";

/** Records wait at most this long, or until this many are queued, before one INSERT writes them. */
const FLUSH_MS = 25;
const FLUSH_AT = 256;
/** While the database is unreachable, at most this many records wait for it; older ones are dropped. */
const MAX_QUEUED = 20_000;

export interface BatchedUsageStore extends UsageStore {
  /** Writes every queued record now; rejects when the write fails (the records stay queued). */
  flush(): Promise<void>;
}

const INSERT =
  "INSERT INTO usage_records (time, key_id, format, model, channel, input_tokens, output_tokens, images, seconds, credits, status, latency_ms, request_id) " +
  "SELECT * FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int8[], $7::int8[], $8::int8[], $9::float8[], $10::float8[], $11::text[], $12::int8[], $13::text[])";

export function pgUsageStore(db: Db, onError: (err: unknown) => void = () => undefined): BatchedUsageStore {
  let pending: UsageRecord[] = [];
  let timer: NodeJS.Timeout | undefined;
  /** The batch being written, if any: one at a time, in order. */
  let running: Promise<void> | undefined;
  /** After a failed write, background writes wait until then. */
  let retryAfter = 0;

  const write = async (rows: UsageRecord[]) => {
    const col = <K extends keyof UsageRecord>(k: K) => rows.map((r) => r[k]);
    await db.query(INSERT, [
      col("time"),
      col("keyId"),
      col("format"),
      col("model"),
      col("channel"),
      col("inputTokens"),
      col("outputTokens"),
      col("images"),
      col("seconds"),
      col("credits"),
      col("status"),
      col("latencyMs"),
      col("requestId"),
    ]);
  };
  // A failed batch goes back to the front of the queue; it rejects the caller.
  const flush = async (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    while (running) await running.catch(() => undefined);
    if (!pending.length) return;
    const rows = pending;
    pending = [];
    running = write(rows)
      .then(() => {
        retryAfter = 0;
      })
      .catch((err: unknown) => {
        pending = rows.concat(pending).slice(-MAX_QUEUED);
        throw err;
      })
      .finally(() => {
        running = undefined;
      });
    await running;
  };
  const background = () => {
    flush().catch((err) => {
      onError(err);
      retryAfter = Date.now() + 1000;
      schedule();
    });
  };
  const schedule = () => {
    if (timer) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        if (running) schedule();
        else background();
      },
      Math.max(FLUSH_MS, retryAfter - Date.now()),
    );
    timer.unref();
  };

  return {
    flush,
    async record(rec) {
      pending.push(rec);
      if (pending.length > MAX_QUEUED) pending.splice(0, pending.length - MAX_QUEUED);
      if (pending.length >= FLUSH_AT && !running && Date.now() >= retryAfter) background();
      else schedule();
    },
    async query(f) {
      await flush();
      const where: string[] = [];
      const args: unknown[] = [];
      const add = (sql: string, v: unknown) => {
        args.push(v);
        where.push(`${sql} $${args.length}`);
      };
      if (f.keyId) add("key_id =", f.keyId);
      if (f.format) add("format =", f.format);
      if (f.model) add("model =", f.model);
      if (f.since !== undefined) add("time >=", f.since);
      if (f.until !== undefined) add("time <", f.until);
      const w = where.length ? `WHERE ${where.join(" AND ")}` : "";
      const [rows, totals] = await Promise.all([
        db.query<Row>(`SELECT * FROM usage_records ${w} ORDER BY time DESC, id DESC LIMIT $${args.length + 1}`, [...args, f.limit ?? 100]),
        db.query<UsageTotals>(
          `SELECT COUNT(*) AS requests, COALESCE(SUM(input_tokens), 0) AS "inputTokens", COALESCE(SUM(output_tokens), 0) AS "outputTokens",
                  COALESCE(SUM(images), 0) AS images, COALESCE(SUM(seconds), 0) AS seconds, COALESCE(SUM(credits), 0) AS credits
           FROM usage_records ${w}`,
          args,
        ),
      ]);
      return { rows: rows.rows.map(fromRow), totals: totals.rows[0]! };
    },
  };
}
