// Prometheus metrics: request counts and latency histograms per HTTP route and
// per RPC. One registry per app instance (no module-level singletons).
import type { Interceptor } from "@connectrpc/connect";
import { ConnectError } from "@connectrpc/connect";
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<"method" | "route" | "status">;
  httpDuration: Histogram<"method" | "route">;
  rpcRequests: Counter<"service" | "method" | "code">;
  rpcDuration: Histogram<"service" | "method">;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: "omnigate_" });
  return {
    registry,
    httpRequests: new Counter({ name: "omnigate_http_requests_total", help: "HTTP requests by route and status", labelNames: ["method", "route", "status"], registers: [registry] }),
    httpDuration: new Histogram({ name: "omnigate_http_request_duration_seconds", help: "HTTP request latency by route", labelNames: ["method", "route"], buckets: BUCKETS, registers: [registry] }),
    rpcRequests: new Counter({ name: "omnigate_rpc_requests_total", help: "Core RPCs by method and code", labelNames: ["service", "method", "code"], registers: [registry] }),
    rpcDuration: new Histogram({ name: "omnigate_rpc_duration_seconds", help: "Core RPC latency (streams: until the last message)", labelNames: ["service", "method"], buckets: BUCKETS, registers: [registry] }),
  };
}

export function metricsInterceptor(m: Metrics): Interceptor {
  return (next) => async (req) => {
    const labels = { service: req.service.typeName, method: req.method.name };
    const end = m.rpcDuration.startTimer(labels);
    const done = (err: unknown) => {
      end();
      m.rpcRequests.inc({ ...labels, code: err === undefined ? "ok" : codeName(err) });
    };
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
    const inner = res.message;
    return {
      ...res,
      message: (async function* () {
        let failure: unknown;
        try {
          yield* inner;
        } catch (err) {
          failure = err ?? new Error("stream failed");
          throw err;
        } finally {
          done(failure);
        }
      })(),
    };
  };
}

function codeName(err: unknown): string {
  const c = ConnectError.from(err).code;
  return String(c);
}
