// GET /v1/models and /v1/models/{id} in the OpenAI shape: the fallback for
// callers that are neither Anthropic (anthropic-version) nor Gemini
// (x-goog-api-key / ?key=). Lists every model the gateway offers.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Model } from "../../../gen/omnigate/model/v1/model_pb.js";
import { bearerToken } from "../../core/auth/bearer.js";
import type { FacadeOptions } from "../shared/options.js";
import { edgeCall } from "../shared/call.js";
import { MISSING_KEY } from "../shared/openai-error.js";
import { openAIError, toOpenAIError, type OpenAIWireError } from "./errors.js";
import { fromCoreModel, fromCoreModels } from "./translate.js";

const FORMAT = "openai-models";

function sendError(req: FastifyRequest, reply: FastifyReply, e: OpenAIWireError, cause?: unknown): FastifyReply {
  if (e.status >= 500 && cause !== undefined) req.log.error({ err: cause }, "openai models facade error");
  return reply.code(e.status).type("application/json").send(e.body);
}

const requireKey = async (req: FastifyRequest, reply: FastifyReply) => {
  if (!bearerToken(req.headers.authorization)) {
    return sendError(req, reply, openAIError(401, MISSING_KEY, "invalid_request_error"));
  }
};

export const openaiModelsFacade: FastifyPluginAsync<FacadeOptions> = async (app, { deps }) => {
  const { models } = deps.core.clients;
  const call = (req: FastifyRequest, reply: FastifyReply) => edgeCall(req, reply, FORMAT, bearerToken(req.headers.authorization));

  await app.register(async (scope: FastifyInstance) => {
    scope.setErrorHandler((err, req, reply) => sendError(req, reply, toOpenAIError(err), err));

    scope.get("/v1/models", { onRequest: requireKey }, async (req, reply) => {
      try {
        const opts = call(req, reply);
        const all: Model[] = [];
        let pageToken = "";
        do {
          const page = await models.listModels({ pageSize: 1000, pageToken }, opts);
          all.push(...page.models);
          pageToken = page.nextPageToken;
        } while (pageToken);
        return reply.type("application/json").send(fromCoreModels(all));
      } catch (err) {
        return sendError(req, reply, toOpenAIError(err), err);
      }
    });

    scope.get<{ Params: { id: string } }>("/v1/models/:id", { onRequest: requireKey }, async (req, reply) => {
      try {
        const { model } = await models.getModel({ id: req.params.id }, call(req, reply));
        if (!model) return sendError(req, reply, openAIError(404, `The model '${req.params.id}' does not exist`, "invalid_request_error", "model_not_found", "model"));
        return reply.type("application/json").send(fromCoreModel(model));
      } catch (err) {
        return sendError(req, reply, toOpenAIError(err), err);
      }
    });
  });
};
