import type Database from "better-sqlite3";
import type { UsageRecord, UsageStore, UsageTotals } from "../types.js";
import { usageFromRow, type UsageRow } from "../rows.js";

/** Records wait at most this long, or until this many are queued, before one transaction writes them. */
const FLUSH_MS = 25;
const FLUSH_AT = 256;
const ROWS_PER_INSERT = 32;

export interface BatchedUsageStore extends UsageStore {
  /** Writes every queued record now (before queries and on close). */
  flush(): void;
}

// Usage is written in batches, to keep an INSERT per request off the CPU of
// each proxied request. A crash loses at most FLUSH_MS of records;
// budgets are not affected (they are charged in api_keys, synchronously).
export function sqliteUsageStore(db: Database.Database): BatchedUsageStore {
  const cols = "(time, key_id, format, model, channel, input_tokens, output_tokens, images, seconds, credits, status, latency_ms, request_id)";
  const one = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  // Rows go in groups of ROWS_PER_INSERT per statement (positional
  // parameters): one call into SQLite per group instead of one per row. The
  // rest of a batch (a timer's flush rarely holds a multiple of the group)
  // goes in groups of 16, 8, 4, 2 and 1, since a row inserted alone costs
  // several times what it costs in a group.
  const statements = new Map<number, Database.Statement>();
  const insertOf = (rows: number) => {
    let st = statements.get(rows);
    if (st === undefined) {
      st = db.prepare(`INSERT INTO usage_records ${cols} VALUES ${Array(rows).fill(one).join(", ")}`);
      statements.set(rows, st);
    }
    return st;
  };
  const push = (out: unknown[], r: UsageRecord) => {
    out.push(r.time, r.keyId, r.format, r.model, r.channel, r.inputTokens, r.outputTokens, r.images, r.seconds, r.credits, r.status, r.latencyMs, r.requestId);
  };
  let pending: UsageRecord[] = [];
  let timer: NodeJS.Timeout | undefined;
  const writeAll = db.transaction((rows: UsageRecord[]) => {
    let i = 0;
    for (let group = ROWS_PER_INSERT; group >= 1; group >>= 1) {
      for (; i + group <= rows.length; i += group) {
        const values: unknown[] = [];
        for (let j = i; j < i + group; j++) push(values, rows[j]!);
        insertOf(group).run(values);
      }
    }
  });
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!pending.length) return;
    const rows = pending;
    pending = [];
    writeAll(rows);
  };
  return {
    flush,
    // Queued only: no promise to make (one a request otherwise).
    record(rec) {
      pending.push(rec);
      if (pending.length >= FLUSH_AT) flush();
      else if (!timer) {
        timer = setTimeout(flush, FLUSH_MS);
        timer.unref();
      }
    },
    async query(f) {
      flush();
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (sql: string, v: unknown) => {
        where.push(sql);
        params.push(v);
      };
      if (f.keyId) add("key_id = ?", f.keyId);
      if (f.format) add("format = ?", f.format);
      if (f.model) add("model = ?", f.model);
      if (f.since !== undefined) add("time >= ?", f.since);
      if (f.until !== undefined) add("time < ?", f.until);
      const w = where.length ? `WHERE ${where.join(" AND ")}` : "";
      const rows = (db.prepare(`SELECT * FROM usage_records ${w} ORDER BY time DESC, id DESC LIMIT ?`).all(...params, f.limit ?? 100) as UsageRow[]).map(usageFromRow);
      const t = db
        .prepare(
          `SELECT COUNT(*) AS requests, COALESCE(SUM(input_tokens),0) AS inputTokens, COALESCE(SUM(output_tokens),0) AS outputTokens,
                  COALESCE(SUM(images),0) AS images, COALESCE(SUM(seconds),0) AS seconds, COALESCE(SUM(credits),0) AS credits
           FROM usage_records ${w}`,
        )
        .get(...params) as UsageTotals;
      return { rows, totals: t };
    },
  };
}
