// The Call a facade makes for one HTTP request: the client's key, the wire
// format it came in on, the request id, the public URL base the client used
// (for URLs in answers), and a signal that fires when the client goes away
// before its response is complete.
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

/** The origin the client reached the gateway at, when the Host header makes a valid one. */
export function urlBaseOf(req: FastifyRequest): string {
  const host = req.headers.host;
  const base = host ? `${req.protocol}://${host}` : "";
  return URL_BASE.test(base) ? base : "";
}

export function edgeCall(req: FastifyRequest, reply: FastifyReply, format: string, apiKey: string | undefined): CallInit {
  return { apiKey, format, requestId: req.id, urlBase: urlBaseOf(req), signal: clientGone(reply) };
}
