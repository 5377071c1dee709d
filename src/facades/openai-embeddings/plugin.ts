// POST /v1/embeddings in OpenAI's shape, through the core's EmbeddingService:
// a string, strings, token ids or arrays of them; encoding_format float (the
// default) or base64 (little-endian float32, as OpenAI sends it); dimensions;
// usage. The key comes as `Authorization: Bearer`; errors leave in OpenAI's
// {"error":{...}} shape from ./errors.ts, the hooks and the error handler
// staying inside this plugin.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { bearerToken } from "../../core/auth/bearer.js";
import { promiseOf } from "../../core/iter.js";
import type { FacadeOptions } from "../shared/options.js";
import { edgeCall } from "../shared/call.js";
import { closeIfUnread } from "../shared/upload-cap.js";
import { MISSING_KEY, openAIError, type OpenAIWireError } from "../shared/openai-error.js";
import { FacadeError, toWireError, type ErrorContext } from "./errors.js";
import { clientField, fromCoreEmbed, toCoreEmbed } from "./translate.js";
import * as wire from "./wire.js";

/** The format name keys are scoped by (core/tenancy/scope.ts). */
export const FORMAT = "embeddings";

function send(req: FastifyRequest, reply: FastifyReply, e: OpenAIWireError): FastifyReply {
  closeIfUnread(req, reply);
  if (e.headers) reply.headers(e.headers);
  return reply.code(e.status).type("application/json").send(e.body);
}

function parse(body: unknown): wire.EmbeddingsBody {
  const r = wire.embeddingsBody.safeParse(body);
  if (r.success) return r.data;
  const { message, param, code } = wire.describeIssue(r.error, body);
  throw new FacadeError(openAIError(400, message, "invalid_request_error", code, param));
}

export const openaiEmbeddingsFacade: FastifyPluginAsync<FacadeOptions> = async (app, { deps }) => {
  const { embeddings } = deps.core.clients;

  await app.register(async (scope: FastifyInstance) => {
    scope.setErrorHandler((err, req, reply) => {
      const e = toWireError(err);
      if (e.status >= 500) req.log.error({ err }, "openai embeddings facade error");
      return send(req, reply, e);
    });

    const onRequest = (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
      if (bearerToken(req.headers.authorization)) return done();
      send(req, reply, openAIError(401, MISSING_KEY, "invalid_request_error", "invalid_api_key"));
    };

    // A promise chain, not an async frame (see the generate-content facade).
    scope.post("/v1/embeddings", { onRequest }, (req, reply) =>
      promiseOf(() => {
        const body = parse(req.body);
        const single = typeof body.input === "string" || body.input.every((x) => typeof x === "number");
        const ctx: ErrorContext = { model: body.model, clientField: (f) => clientField(f, single) };
        const init = edgeCall(req, reply, FORMAT, bearerToken(req.headers.authorization));
        return embeddings.embed(toCoreEmbed(body), init).then(
          (res) => reply.type("application/json").send(fromCoreEmbed(res, body.encoding_format ?? "float")),
          (err: unknown) => {
            const e = toWireError(err, ctx);
            if (e.status >= 500) req.log.error({ err }, "openai embeddings call failed");
            return send(req, reply, e);
          },
        );
      }),
    );
  });
};
