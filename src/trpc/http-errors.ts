// tRPC's own error answer for a request fastify refused before the tRPC
// handler ran (a body over bodyLimit, a media type no parser takes): the
// envelope @trpc/client parses, one error per call of a batch, with the
// code's HTTP status (PAYLOAD_TOO_LARGE: 413), instead of fastify's generic
// {statusCode, code, error, message} body.
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { TRPCError } from "@trpc/server";
import { resolveResponse } from "@trpc/server/http";
import { createURL } from "@trpc/server/adapters/node-http";
import type { FastifyTRPCPluginOptions } from "@trpc/server/adapters/fastify";
import type { AppRouter } from "./router.js";
import { toTrpcError } from "./errors.js";

type TrpcOptions = FastifyTRPCPluginOptions<AppRouter>["trpcOptions"];

/** fastify's 4xx statuses as tRPC codes; any other 4xx is BAD_REQUEST. */
const BY_STATUS: Record<number, TRPCError["code"]> = { 408: "TIMEOUT", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE" };

/** Request headers that decide how tRPC reads the call (batch, content type, streaming). */
const HEADERS = ["content-type", "accept", "trpc-accept"];

export function trpcError(err: FastifyError): TRPCError {
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return new TRPCError({ code: BY_STATUS[status] ?? "BAD_REQUEST", message: err.message, cause: err });
  return toTrpcError(err);
}

/** The tRPC scope's error handler: answers with resolveResponse's `error`, which fails every call before its input is read. */
export function trpcErrorHandler(opts: TrpcOptions) {
  return async (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const headers = new Headers();
    for (const name of HEADERS) {
      const v = req.headers[name];
      if (typeof v === "string") headers.set(name, v);
    }
    const response = await resolveResponse<AppRouter>({
      router: opts.router,
      req: new Request(createURL(req.raw), { method: req.method, headers }),
      path: (req.params as { path?: string }).path ?? "",
      error: trpcError(err),
      createContext: async ({ info }) => opts.createContext!({ req, res: reply, info }),
      onError: ({ error, path }) => opts.onError?.({ error, path, req, type: "unknown", ctx: undefined, input: undefined }),
    });
    return reply.send(response);
  };
}
