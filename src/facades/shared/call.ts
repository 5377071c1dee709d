// The Call a facade makes for one HTTP request: the client's key, the wire
// format it came in on, the request id, the public URL base the client used
// (for URLs in answers), and a signal that fires when the client goes away
// before its response is complete.
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { URL_BASE, type CallInit } from "../../core/call/call.js";

/** Aborts when the client disconnects before the response is complete. */
export function clientGone(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  // The response's 'close' comes when it finished or when the connection went
  // away before that (the request's 'aborted' event says no more than this).
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) ac.abort(new Error("client disconnected"));
  });
  return ac.signal;
}

interface SocketWatch {
  ac: AbortController;
  /** The response the socket is serving now (the last one begun). */
  current: ServerResponse;
}
const watches = new WeakMap<Socket, SocketWatch>();
/** The listener that stays on a connection's signal (see connectionGone). */
const keepListening = (): void => {};

/**
 * Aborts when the client disconnects before the response is complete, like
 * clientGone, with one controller and one listener a connection instead of a
 * request: the requests of a keep-alive connection come one after another, and
 * its close matters only when it finds a response unfinished. A signal is used
 * only during its call, so one that fires after its own response finished
 * (the connection's next response was cut) touches nothing.
 */
export function connectionGone(reply: FastifyReply): AbortSignal {
  const res = reply.raw;
  const socket = res.socket;
  if (!socket || reply.request.raw.httpVersionMajor !== 1) return clientGone(reply);
  if (socket.destroyed) return AbortSignal.abort(new Error("client disconnected"));
  let w = watches.get(socket);
  if (w === undefined || w.ac.signal.aborted) {
    const watch: SocketWatch = { ac: new AbortController(), current: res };
    // Requests add and remove their "abort" listeners on this long-lived signal; one that stays keeps
    // its listener map from emptying, which made V8 rehash the map into the old generation each time.
    watch.ac.signal.addEventListener("abort", keepListening);
    socket.once("close", () => {
      if (!watch.current.writableFinished) watch.ac.abort(new Error("client disconnected"));
    });
    watches.set(socket, watch);
    w = watch;
  }
  w.current = res;
  return w.ac.signal;
}

/** The last Host and protocol seen, and the base they make: a gateway's clients reach it under one name or few. */
let lastHost: string | undefined;
let lastProtocol = "";
let lastBase = "";

/** The origin the client reached the gateway at, when the Host header makes a valid one. */
export function urlBaseOf(req: FastifyRequest): string {
  const host = req.headers.host;
  if (!host) return "";
  const protocol = req.protocol;
  if (host === lastHost && protocol === lastProtocol) return lastBase;
  const base = `${protocol}://${host}`;
  lastHost = host;
  lastProtocol = protocol;
  lastBase = URL_BASE.test(base) ? base : "";
  return lastBase;
}

export function edgeCall(req: FastifyRequest, reply: FastifyReply, format: string, apiKey: string | undefined): CallInit {
  return { apiKey, format, requestId: req.id, urlBase: urlBaseOf(req), signal: connectionGone(reply) };
}
