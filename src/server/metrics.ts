// Prometheus metrics: request counts and latency histograms per HTTP route and
// per RPC. One registry per app instance (no module-level singletons).
import type { Interceptor } from "@connectrpc/connect";
import { ConnectError } from "@connectrpc/connect";
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { watchStream } from "../core/transport-streams.js";

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<"method" | "route" | "status">;
  httpDuration: Histogram<"method" | "route">;
  rpcRequests: Counter<"service" | "method" | "code">;
  rpcDuration: Histogram<"service" | "method">;
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

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: "omnigate_" });
  const httpCounts = labelCache<"method" | "route" | "status">();
  const httpTimes = labelCache<"method" | "route">();
  const rpcCounts = labelCache<"service" | "method" | "code">();
  const rpcTimes = labelCache<"service" | "method">();
  const httpRequests: Counter<"method" | "route" | "status"> = new Counter({
    name: "omnigate_http_requests_total",
    help: "HTTP requests by route and status",
    labelNames: ["method", "route", "status"],
    registers: [registry],
    collect: () => httpCounts.fold(httpRequests),
  });
  const httpDuration = new Histogram({ name: "omnigate_http_request_duration_seconds", help: "HTTP request latency by route", labelNames: ["method", "route"], buckets: BUCKETS, registers: [registry] });
  const rpcRequests: Counter<"service" | "method" | "code"> = new Counter({
    name: "omnigate_rpc_requests_total",
    help: "Core RPCs by method and code",
    labelNames: ["service", "method", "code"],
    registers: [registry],
    collect: () => rpcCounts.fold(rpcRequests),
  });
  const rpcDuration = new Histogram({ name: "omnigate_rpc_duration_seconds", help: "Core RPC latency (streams: until the last message)", labelNames: ["service", "method"], buckets: BUCKETS, registers: [registry] });
  return {
    registry,
    httpRequests,
    httpDuration,
    rpcRequests,
    rpcDuration,
    http(method, route, status, seconds) {
      const key = method + " " + route;
      httpCounts.get(key + " " + status, () => ({ method, route, status: String(status) })).n++;
      httpDuration.observe(httpTimes.get(key, () => ({ method, route })).labels, seconds);
    },
    rpc(service, method, code, seconds) {
      const key = service + "/" + method;
      rpcCounts.get(key + " " + code, () => ({ service, method, code })).n++;
      rpcDuration.observe(rpcTimes.get(key, () => ({ service, method })).labels, seconds);
    },
  };
}

export function metricsInterceptor(m: Metrics): Interceptor {
  return (next) => async (req) => {
    const started = performance.now();
    const done = (err: unknown) => m.rpc(req.service.typeName, req.method.name, err === undefined ? "ok" : codeName(err), (performance.now() - started) / 1000);
    let res;
    try {
      res = await next(req);
    } catch (err) {
      done(err);
      throw err;
    }
    if (!res.stream) {
      done(undefined);
      return res;
    }
    return { ...res, message: watchStream(res.message, { end: (how) => done(how.failed ? (how.error ?? new Error("stream failed")) : undefined) }) };
  };
}

function codeName(err: unknown): string {
  const c = ConnectError.from(err).code;
  return String(c);
}
