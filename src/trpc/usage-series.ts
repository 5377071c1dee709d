// Usage over time for the console's chart: the records of a time range, read
// through AdminService.QueryUsage a page at a time (newest first), summed into
// equal time buckets per key, model or format.
import { z } from "zod";
import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { UsageRecord } from "../../gen/omnigate/admin/v1/admin_pb.js";
import type { UsageTotals } from "../storage/types.js";
import type { TrpcContext } from "./context.js";
import { core } from "./trpc.js";

const PAGE = 1000;
/** Most records one series reads; past it the series is marked truncated (its oldest part is missing). */
export const MAX_SERIES_RECORDS = 50_000;

export const seriesInput = z
  .object({
    since: z.number().int().nonnegative(),
    until: z.number().int().positive(),
    buckets: z.number().int().min(1).max(500).default(24),
    groupBy: z.enum(["key", "model", "format", "none"]).default("model"),
    keyId: z.string().optional(),
    model: z.string().optional(),
    format: z.string().optional(),
  })
  .refine((i) => i.until > i.since, { message: "until must be after since", path: ["until"] });
export type SeriesInput = z.infer<typeof seriesInput>;

/** One bucket's sums: the storage totals plus the requests that failed. */
export interface Point extends UsageTotals {
  errors: number;
}

export interface Series {
  /** Key id, model or format ("all" when not grouped). */
  group: string;
  points: Point[];
  total: Point;
}

export interface UsageSeries {
  since: number;
  until: number;
  bucketMs: number;
  /** Start of each bucket (epoch ms). */
  starts: number[];
  /** Biggest total first. */
  series: Series[];
  total: Point;
  records: number;
  truncated: boolean;
}

const zero = (): Point => ({ requests: 0, inputTokens: 0, outputTokens: 0, images: 0, seconds: 0, credits: 0, errors: 0 });

function add(p: Point, r: UsageRecord): void {
  p.requests += 1;
  p.inputTokens += Number(r.inputTokens);
  p.outputTokens += Number(r.outputTokens);
  p.images += Number(r.images);
  p.seconds += r.seconds;
  p.credits += r.credits;
  if (r.status !== "ok") p.errors += 1;
}

const timeOf = (r: UsageRecord) => (r.time ? timestampDate(r.time).getTime() : 0);

/**
 * Every record of [since, until), newest first. Pages end at a time: the
 * records of a page's oldest millisecond are read again on their own so that
 * none is skipped or counted twice where a page boundary splits them.
 */
async function readRecords(ctx: TrpcContext, input: SeriesInput): Promise<{ records: UsageRecord[]; truncated: boolean }> {
  const filter = { keyId: input.keyId ?? "", model: input.model ?? "", format: input.format ?? "" };
  const query = (since: number, until: number) =>
    core(() => ctx.clients.admin.queryUsage({ ...filter, startTime: timestampFromMs(since), endTime: timestampFromMs(until), pageSize: PAGE }, ctx.call)).then((r) => r.records);
  const records: UsageRecord[] = [];
  let until = input.until;
  let truncated = false;
  while (until > input.since) {
    if (records.length >= MAX_SERIES_RECORDS) return { records, truncated: true };
    const page = await query(input.since, until);
    if (page.length < PAGE) {
      records.push(...page);
      break;
    }
    const oldest = timeOf(page[page.length - 1]!);
    records.push(...page.filter((r) => timeOf(r) > oldest));
    const same = await query(oldest, oldest + 1);
    records.push(...same);
    // More than a page within one millisecond: the rest of that millisecond is not read.
    if (same.length >= PAGE) truncated = true;
    until = oldest;
  }
  return { records, truncated };
}

export async function usageSeries(ctx: TrpcContext, input: SeriesInput): Promise<UsageSeries> {
  const { records, truncated } = await readRecords(ctx, input);
  const bucketMs = Math.max(1, Math.ceil((input.until - input.since) / input.buckets));
  const starts = Array.from({ length: input.buckets }, (_, i) => input.since + i * bucketMs);
  const groups = new Map<string, Series>();
  const total = zero();
  for (const r of records) {
    const t = timeOf(r);
    const i = Math.min(input.buckets - 1, Math.floor((t - input.since) / bucketMs));
    if (i < 0) continue;
    const name = input.groupBy === "key" ? r.keyId : input.groupBy === "model" ? r.model : input.groupBy === "format" ? r.format : "all";
    let s = groups.get(name);
    if (!s) groups.set(name, (s = { group: name, points: starts.map(zero), total: zero() }));
    add(s.points[i]!, r);
    add(s.total, r);
    add(total, r);
  }
  const series = [...groups.values()].sort((a, b) => b.total.requests - a.total.requests || a.group.localeCompare(b.group));
  return { since: input.since, until: input.until, bucketMs, starts, series, total, records: records.length, truncated };
}
