// Prometheus metrics: request counts and latency histograms per HTTP route and
// per RPC. One registry per app instance (no module-level singletons).
import type { Interceptor } from "@connectrpc/connect";
import { ConnectError } from "@connectrpc/connect";
import { Counter, Registry, collectDefaultMetrics, type MetricValueWithName } from "prom-client";
import { watchStream } from "../core/transport-streams.js";

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
 * Per-request recording made cheap: one label object per label set (made
 * once, found by a string key), and counts kept in a plain number that is
 * folded into the prom-client counter when the registry is scraped. What the
 * registry exposes is unchanged.
 */
function labelCache<N extends string>() {
  const m = new Map<string, { labels: Labels<N>; n: number }>();
  return {
    get(key: string, make: () => Labels<N>) {
      let e = m.get(key);
      if (!e) {
        e = { labels: make(), n: 0 };
        m.set(key, e);
      }
      return e;
    },
    fold(c: Counter<N>) {
      for (const e of m.values()) {
        if (e.n) c.inc(e.labels, e.n);
        e.n = 0;
      }
    },
  };
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
  private readonly sets = new Map<string, { labels: Labels<N>; counts: Float64Array; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }
  observe(key: string, make: () => Labels<N>, value: number): void {
    let e = this.sets.get(key);
    if (!e) {
      e = { labels: make(), counts: new Float64Array(this.buckets.length), sum: 0, count: 0 };
      this.sets.set(key, e);
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
    for (const e of this.sets.values()) {
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
    this.sets.clear();
  }
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: "omnigate_" });
  const httpCounts = labelCache<"method" | "route" | "status">();

  const rpcCounts = labelCache<"service" | "method" | "code">();

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
      const key = method + " " + route;
      httpCounts.get(key + " " + status, () => ({ method, route, status: String(status) })).n++;
      httpDuration.observe(key, () => ({ method, route }), seconds);
    },
    rpc(service, method, code, seconds) {
      const key = service + "/" + method;
      rpcCounts.get(key + " " + code, () => ({ service, method, code })).n++;
      rpcDuration.observe(key, () => ({ service, method }), seconds);
    },
  };
}

export function metricsInterceptor(m: Metrics): Interceptor {
  // Promise callbacks rather than an async function: one frame fewer per call.
  return (next) => (req) => {
    const started = performance.now();
    const done = (err: unknown) => m.rpc(req.service.typeName, req.method.name, err === undefined ? "ok" : codeName(err), (performance.now() - started) / 1000);
    let pending;
    try {
      pending = next(req);
    } catch (err) {
      done(err);
      return Promise.reject(err);
    }
    return pending.then(
      (res) => {
        if (!res.stream) {
          done(undefined);
          return res;
        }
        return { ...res, message: watchStream(res.message, { end: (how) => done(how.failed ? (how.error ?? new Error("stream failed")) : undefined) }) };
      },
      (err: unknown) => {
        done(err);
        return Promise.reject(err);
      },
    );
  };
}

function codeName(err: unknown): string {
  const c = ConnectError.from(err).code;
  return String(c);
}
