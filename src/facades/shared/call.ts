// How a facade calls the core for one HTTP request: the client's key forwarded
// as Bearer, the wire format and request id as headers, and an AbortSignal that
// fires when the client goes away.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { CallOptions } from "@connectrpc/connect";
import { FORMAT_HEADER, REQUEST_ID_HEADER } from "../../core/context.js";

/** Aborts when the client disconnects before the response is complete. */
export function clientGone(req: FastifyRequest, reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) ac.abort(new Error("client disconnected"));
  };
  reply.raw.once("close", onClose);
  req.raw.once("aborted", onClose);
  return ac.signal;
}

export function coreCallOptions(req: FastifyRequest, reply: FastifyReply, format: string, apiKey: string): CallOptions {
  return {
    headers: { authorization: `Bearer ${apiKey}`, [FORMAT_HEADER]: format, [REQUEST_ID_HEADER]: req.id },
    signal: clientGone(req, reply),
  };
}
