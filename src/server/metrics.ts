// Prometheus metrics: request counts and latency histograms per HTTP route and
// per RPC. One registry per app instance (no module-level singletons).
import type { DescMethod } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import { createRequire } from "node:module";
import { Counter, Registry, type MetricValueWithName } from "prom-client";

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<"method" | "route" | "status">;
  httpDuration: BucketHistogram<"method" | "route">;
  rpcRequests: Counter<"service" | "method" | "code">;
  rpcDuration: BucketHistogram<"service" | "method">;
  /** Records one finished HTTP request. */
  http(method: string, route: string, status: number, seconds: number): void;
  /** Records one finished core call (a stream: at its last message). */
  rpc(service: string, method: string, code: string, seconds: number): void;
}

type Labels<N extends string> = Record<N, string>;

/**
 * Entries found by two or three keys through nested Maps. The keys are the
 * route, method, service and status strings the caller already holds, so a
 * lookup hashes no new string (a key built by concatenation is a new string
 * to flatten and hash on every request), and nothing is allocated unless the
 * entry is new.
 */
class Nested<V> {
  private readonly m = new Map<string, Map<string, V | Map<string, V>>>();
  find2(a: string, b: string): V | undefined {
    return this.m.get(a)?.get(b) as V | undefined;
  }
  find3(a: string, b: string, c: string): V | undefined {
    return (this.m.get(a)?.get(b) as Map<string, V> | undefined)?.get(c);
  }
  add2(a: string, b: string, v: V): V {
    let inner = this.m.get(a);
    if (!inner) this.m.set(a, (inner = new Map()));
    inner.set(b, v);
    return v;
  }
  add3(a: string, b: string, c: string, v: V): V {
    let inner = this.m.get(a);
    if (!inner) this.m.set(a, (inner = new Map()));
    let last = inner.get(b) as Map<string, V> | undefined;
    if (!last) inner.set(b, (last = new Map()));
    last.set(c, v);
    return v;
  }
}

/**
 * Per-request recording made cheap: one label object per label set (made
 * once, found by its label values), and counts kept in a plain number that is
 * folded into the prom-client counter when the registry is scraped. What the
 * registry exposes is unchanged.
 */
class CountCache<N extends string> {
  private readonly entries: { labels: Labels<N>; n: number }[] = [];
  private readonly byKey = new Nested<{ labels: Labels<N>; n: number }>();
  /** Counts one for the label set found by three label values (`labels` is used the first time). */
  inc(a: string, b: string, c: string, labels: (a: string, b: string, c: string) => Labels<N>): void {
    const e = this.byKey.find3(a, b, c);
    if (e) e.n++;
    else this.entries.push(this.byKey.add3(a, b, c, { labels: labels(a, b, c), n: 1 }));
  }
  fold(counter: Counter<N>): void {
    for (const e of this.entries) {
      if (e.n) counter.inc(e.labels, e.n);
      e.n = 0;
    }
  }
}

/**
 * A Prometheus histogram whose observations cost an array increment: each
 * label set is found once by a string key and keeps its own bucket counts;
 * the exposition (the same text prom-client's Histogram writes: cumulative
 * `_bucket` lines with `le`, then `_sum` and `_count`) is built when scraped.
 * prom-client's own observe hashes the label object on every call.
 */
export class BucketHistogram<N extends string> {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private sets: { labels: Labels<N>; counts: Float64Array; sum: number; count: number }[] = [];
  private byKey = new Nested<{ labels: Labels<N>; counts: Float64Array; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }
  /** One observation for the label set found by two label values (made by `make` the first time). */
  observe(k1: string, k2: string, labels: (k1: string, k2: string) => Labels<N>, value: number): void {
    let e = this.byKey.find2(k1, k2);
    if (!e) {
      e = this.byKey.add2(k1, k2, { labels: labels(k1, k2), counts: new Float64Array(this.buckets.length), sum: 0, count: 0 });
      this.sets.push(e);
    }
    const b = this.buckets;
    for (let i = 0; i < b.length; i++) {
      if (value <= b[i]!) {
        e.counts[i]!++;
        break;
      }
    }
    e.sum += value;
    e.count++;
  }
  /** What a prom-client Registry reads from a metric when it is scraped. */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: MetricValueWithName<string>[] }> {
    const values: MetricValueWithName<string>[] = [];
    for (const e of this.sets) {
      let acc = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        acc += e.counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: this.buckets[i]!, ...e.labels }, value: acc });
      }
      values.push({ metricName: `${this.name}_bucket`, labels: { le: "+Inf", ...e.labels }, value: e.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...e.labels }, value: e.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...e.labels }, value: e.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
  reset(): void {
    this.sets = [];
    this.byKey = new Nested();
  }
}

/**
 * prom-client's default process metrics (its `collectDefaultMetrics`), each
 * from its own module so the GC one can be left out: CPU, memory, file
 * descriptors, event-loop lag, handles and requests, heap spaces, version.
 */
const PROCESS_METRICS = [
  "processCpuTotal",
  "processStartTime",
  "osMemoryHeap",
  "processOpenFileDescriptors",
  "processMaxFileDescriptors",
  "eventLoopLag",
  ...(typeof process.getActiveResourcesInfo === "function" ? ["processResources"] : []),
  "processHandles",
  "processRequests",
  "heapSizeAndUsed",
  "heapSpacesSizeAndUsed",
  "version",
];

const requireMetric = createRequire(import.meta.url);

/**
 * Registers the process metrics, with `nodejs_gc_duration_seconds` only when
 * asked for: that histogram observes every collection, and Node makes each
 * collection's entry in the old generation, so under load it makes full
 * collections come noticeably more often.
 */
function registerProcessMetrics(registry: Registry, gcDurations: boolean): void {
  for (const name of gcDurations ? [...PROCESS_METRICS, "gc"] : PROCESS_METRICS) {
    const register = requireMetric(`prom-client/lib/metrics/${name}`) as (registry: Registry, config: object) => void;
    register(registry, { prefix: "omnigate_", eventLoopMonitoringPrecision: 10 });
  }
}

export function createMetrics(opts: { defaultMetrics?: boolean; gcDurations?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) registerProcessMetrics(registry, opts.gcDurations ?? false);
  const httpCounts = new CountCache<"method" | "route" | "status">();

  const rpcCounts = new CountCache<"service" | "method" | "code">();

  const httpRequests: Counter<"method" | "route" | "status"> = new Counter({
    name: "omnigate_http_requests_total",
    help: "HTTP requests by route and status",
    labelNames: ["method", "route", "status"],
    registers: [registry],
    collect: () => httpCounts.fold(httpRequests),
  });
  const httpDuration = new BucketHistogram<"method" | "route">("omnigate_http_request_duration_seconds", "HTTP request latency by route", BUCKETS, registry);
  const rpcRequests: Counter<"service" | "method" | "code"> = new Counter({
    name: "omnigate_rpc_requests_total",
    help: "Core RPCs by method and code",
    labelNames: ["service", "method", "code"],
    registers: [registry],
    collect: () => rpcCounts.fold(rpcRequests),
  });
  const rpcDuration = new BucketHistogram<"service" | "method">("omnigate_rpc_duration_seconds", "Core RPC latency (streams: until the last message)", BUCKETS, registry);
  return {
    registry,
    httpRequests,
    httpDuration,
    rpcRequests,
    rpcDuration,
    http(method, route, status, seconds) {
      httpCounts.inc(route, method, statusText(status), httpCountLabels);
      httpDuration.observe(route, method, httpLabels, seconds);
    },
    rpc(service, method, code, seconds) {
      rpcCounts.inc(service, method, code, rpcCountLabels);
      rpcDuration.observe(service, method, rpcLabels, seconds);
    },
  };
}

/** The core pipeline's report of each call, as RPC metrics. */
export function observeCalls(m: Metrics): (method: DescMethod, error: ConnectError | undefined, seconds: number) => void {
  return (method, error, seconds) => m.rpc(method.parent.typeName, method.name, error === undefined ? "ok" : String(error.code), seconds);
}

// Label objects for a new label set, from the lookup keys (module functions: no closure per call).
const httpCountLabels = (route: string, method: string, status: string) => ({ method, route, status });
const httpLabels = (route: string, method: string) => ({ method, route });
const rpcCountLabels = (service: string, method: string, code: string) => ({ service, method, code });
const rpcLabels = (service: string, method: string) => ({ service, method });

/** Status codes as strings, made once each (String(200) is a new string every time). */
const statusTexts: string[] = [];
function statusText(status: number): string {
  return (statusTexts[status] ??= String(status));
}
