// Keep-alive connection pools towards upstreams: one undici Pool per channel,
// created on first use and closed together when the app closes. Requests go
// through the pool's dispatch (request.ts) and Node streams, never `fetch`,
// which costs several times the CPU per request.
import type { Socket } from "node:net";
import { buildConnector, Pool } from "undici";
import type { UpstreamLogger } from "./log.js";

export interface PoolOptions {
  connectTimeoutMs: number;
  connections: number;
}

/** What every upstream channel client is given: where, with which key and extra headers, timeouts, pool size, log. */
export interface UpstreamChannelOptions {
  channel: string;
  /** Base URL including the version path, e.g. "https://api.example.com/v1". */
  baseUrl: string;
  apiKey: string;
  headers?: Record<string, string> | undefined;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  connections?: number;
  log: UpstreamLogger;
  now?: () => number;
}

export interface UpstreamPools {
  /** The pool of one channel (keyed by channel name and origin). */
  get(channel: string, origin: string, opts: PoolOptions): Pool;
  /** Closes every pool; in-flight requests are destroyed. */
  close(): Promise<void>;
}

/**
 * onSocket: called with each new upstream connection once it is open (the
 * server's write coalescer attaches to it there).
 */
export function upstreamPools(opts: { onSocket?: (socket: Socket) => void } = {}): UpstreamPools {
  const { onSocket } = opts;
  const pools = new Map<string, Pool>();
  let closed = false;
  return {
    get(channel, origin, opts) {
      const key = `${channel}\u0000${origin}`;
      let p = pools.get(key);
      if (!p || closed) {
        p = new Pool(origin, {
          connections: opts.connections || null,
          connect: onSocket ? connectWith(opts.connectTimeoutMs, onSocket) : { timeout: opts.connectTimeoutMs },
          keepAliveTimeout: 30_000,
          keepAliveMaxTimeout: 120_000,
        });
        if (!closed) pools.set(key, p);
      }
      return p;
    },
    async close() {
      closed = true;
      const all = [...pools.values()];
      pools.clear();
      await Promise.allSettled(all.map((p) => p.destroy()));
    },
  };
}

/** undici's own connector, with each socket it opens handed to onSocket first. */
function connectWith(timeout: number, onSocket: (socket: Socket) => void): buildConnector.connector {
  const connect = buildConnector({ timeout });
  return (options, callback) =>
    connect(options, (...answer) => {
      if (answer[1]) onSocket(answer[1]);
      callback(...answer);
    });
}
