// The HTTP/1.1 listener's connection cap and timeouts: idle or slow clients
// must not take every file descriptor, and health checks must still get in
// while they try.
//
// Of `max` connections, the first max - reserve are ordinary. A connection
// opened past them is a reserve connection: it may ask only /healthz or
// /readyz and is closed after its answer; any other request on it gets the
// owning format's 503 and is closed. Past `max`, a new connection evicts the
// oldest reserve connection that has not sent a request yet (an idle flood
// can hold the reserve only until the next client comes), or is closed at
// once when every reserve connection is busy. Node's own server.maxConnections
// is not used: it closes the newcomer, where evicting lets a health check in.
// The cost is per connection; a request pays one Set size check.
//
// Node's headersTimeout (a connection that never sends a byte counts from its
// start) and requestTimeout (the whole request, body included: it ends when the
// request is read, so it never cuts a streamed answer) are swept every
// connectionsCheckingInterval, which Node leaves at 30 s; it is tied to the
// shortest of them here. A socket inactivity timeout (fastify's
// connectionTimeout) is left off: it would cut an answer still waiting for a
// slow upstream's first byte.
import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { Config } from "../config.js";

/** Connections of `max` kept for health checks: 2%, at least 16, at most half. */
export function reserveConnections(max: number): number {
  return Math.min(Math.max(16, Math.ceil(max / 50)), Math.floor(max / 2));
}

export interface ConnectionLimit {
  /** Whether `socket` is a reserve connection (health checks only); from then on it is busy, no longer evictable. */
  reserved(socket: Socket): boolean;
}

export function limitConnections(server: Server, max: number): ConnectionLimit {
  const ordinary = max - reserveConnections(max);
  let open = 0;
  const reserve = new Set<Socket>();
  /** Reserve connections that have not sent a request yet, oldest first. */
  const waiting = new Set<Socket>();
  const onClose = (socket: Socket) => {
    open--;
    reserve.delete(socket);
    waiting.delete(socket);
  };
  server.on("connection", (socket: Socket) => {
    if (open >= max) {
      const oldest = waiting.values().next().value;
      if (oldest === undefined) {
        socket.destroy();
        return;
      }
      // Counted until its close event, so the count may pass `max` by the evictions of one turn.
      waiting.delete(oldest);
      oldest.destroy();
    }
    open++;
    socket.once("close", () => onClose(socket));
    if (open > ordinary) {
      reserve.add(socket);
      waiting.add(socket);
    }
  });
  return {
    reserved(socket) {
      if (reserve.size === 0 || !reserve.has(socket)) return false;
      waiting.delete(socket);
      return true;
    },
  };
}

/** Node's http.Server options for the configured timeouts. */
export function serverTimeouts(config: Pick<Config, "headersTimeoutMs" | "requestTimeoutMs" | "keepAliveTimeoutMs">) {
  const request = config.requestTimeoutMs;
  // Node refuses headersTimeout > requestTimeout: the headers are part of the request.
  const headers = request > 0 && config.headersTimeoutMs > request ? request : config.headersTimeoutMs;
  const shortest = Math.min(...[headers, request].filter((ms) => ms > 0));
  // Node checks for expired requests every this many milliseconds: a tenth of the shortest timeout, 100 ms to 30 s.
  const connectionsCheckingInterval = Number.isFinite(shortest) ? Math.min(30_000, Math.max(100, Math.floor(shortest / 10))) : 30_000;
  return { headersTimeout: headers, requestTimeout: request, keepAliveTimeout: config.keepAliveTimeoutMs, connectionsCheckingInterval };
}
