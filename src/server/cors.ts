// Cross-origin access to the wire formats, for browser apps that call them
// with the vendors' own SDKs (the Anthropic SDK with dangerouslyAllowBrowser,
// the GenAI and OpenAI SDKs in a page), as the vendors' APIs and the peers
// (LiteLLM, new-api) allow. Keys travel in headers, never cookies, so "*"
// lends a page nothing its own code does not already hold. Only the facades'
// scope uses it: the console is served from the gateway's own origin, and
// tRPC and Connect stay same-origin.
//
// Written here rather than with @fastify/cors, whose hook does work on every
// request (it copies its options and sets headers whether a browser asked or
// not); nearly every request to a gateway comes from a server without an
// Origin, and this hook returns at once without one.
import type { FastifyReply, FastifyRequest } from "fastify";

/** Response headers a page's script may read: ids to quote in a support request, and when to retry. */
export const EXPOSED_HEADERS = "request-id, x-request-id, retry-after";
export const ALLOWED_METHODS = "GET, HEAD, POST, DELETE";
/** How long a browser may reuse a preflight's answer, in seconds. */
export const MAX_AGE = "600";

/**
 * The onRequest hook for `origins` ("*" for any). A preflight (OPTIONS with
 * Access-Control-Request-Method) is answered here with a 204; any other
 * request from an allowed origin gets the headers its page needs to read the
 * answer. A request without an Origin, or from another origin, is left alone.
 * A preflight has no route of its own: it reaches the hook through the
 * facades' not-found handlers, which run their scope's hooks, or through the
 * root one for the rest of /v1 (app.ts).
 */
export function corsHook(origins: readonly string[]) {
  const any = origins.includes("*");
  const allowed = new Set(origins);
  return function cors(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
    const origin = req.headers.origin;
    if (origin === undefined || (!any && !allowed.has(origin))) return done();
    if (any) reply.header("access-control-allow-origin", "*");
    else reply.header("access-control-allow-origin", origin).header("vary", "Origin");
    const method = req.headers["access-control-request-method"];
    if (req.method === "OPTIONS" && method !== undefined) {
      // The headers asked for are allowed as asked: the SDKs add their own (anthropic-version,
      // x-goog-api-key, x-stainless-*), and a fixed list would have to chase them.
      const headers = req.headers["access-control-request-headers"];
      if (headers) reply.header("access-control-allow-headers", headers);
      reply.header("access-control-allow-methods", ALLOWED_METHODS).header("access-control-max-age", MAX_AGE).code(204).send();
      return;
    }
    reply.header("access-control-expose-headers", EXPOSED_HEADERS);
    done();
  };
}
