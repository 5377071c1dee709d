// The Chat Completions facade: POST /v1/chat/completions, as the openai SDKs
// and OpenAI-compatible clients call it. It checks the key first, from the
// headers (a wrong key is a 401 whatever the body holds, as on OpenAI's API),
// validates with zod, translates to the neutral model and back, streams as
// data-only server-sent events, and renders every error, its own and
// fastify's, in OpenAI's {"error":{...}} shape.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { ChatService } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { bearerToken } from "../../core/auth/bearer.js";
import type { CallInit } from "../../core/call/call.js";
import type { CoreClient } from "../../core/call/service.js";
import { randomHex } from "../../lib/ids.js";
import { edgeCall } from "../shared/call.js";
import type { FacadeOptions } from "../shared/options.js";
import { openAIHeaderChecks, sendOpenAIError, type Hook } from "../shared/openai-edge.js";
import { INVALID_JSON, invalidRequest, toWireError, type ErrorContext, type OpenAIWireError } from "../shared/openai-error.js";
import { describeIssues } from "./issues.js";
import { writeChatStream } from "./sse.js";
import { ChatStreamTranslator } from "./stream.js";
import { SOURCE_FORMAT, toCoreChatInput, type CoreRequest } from "./translate.js";
import { completionId, fromCoreCompletion } from "./translate-response.js";
import * as wire from "./wire.js";

/** The format name keys are scoped by (core/tenancy/scope.ts). */
const FORMAT = SOURCE_FORMAT;
/** Quiet time after which a stream gets a keep-alive comment. */
const HEARTBEAT_MS = 15_000;

const sendError = (req: FastifyRequest, reply: FastifyReply, e: OpenAIWireError, cause?: unknown) => sendOpenAIError(req, reply, e, cause, "chat completions facade error");

type Parsed = { ok: true; value: wire.ChatRequest } | { ok: false; error: OpenAIWireError };

function parseBody(body: unknown): Parsed {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return { ok: false, error: invalidRequest(INVALID_JSON) };
  // Parse options cost zod its fast path: a valid body is parsed without
  // them, an invalid one again with them for the error text.
  const ok = wire.chatRequest.safeParse(body);
  if (ok.success) return { ok: true, value: ok.data };
  const r = wire.chatRequest.safeParse(body, { reportInput: true });
  if (r.success) return { ok: true, value: r.data };
  const i = describeIssues(r.error.issues, body);
  return { ok: false, error: invalidRequest(i.message, i.param, i.code) };
}

function chatRoutes(chat: CoreClient<typeof ChatService>, checks: Hook, now: () => number) {
  return async (scope: FastifyInstance) => {
    scope.setErrorHandler((err, req, reply) => sendError(req, reply, toWireError(err), err));

    /** A streamed completion: the first event is read before the 200 goes out, so that errors the core raises up front (auth, validation, routing, rate limits) keep their status. */
    async function stream(req: FastifyRequest, reply: FastifyReply, body: wire.ChatRequest, core: CoreRequest, call: CallInit, errors: ErrorContext): Promise<void> {
      const it = chat.streamGenerate({ input: core.input }, call)[Symbol.asyncIterator]();
      const first = await it.next();
      // The frames go straight to the socket (no stream in between); the
      // onResponse hooks still run when the response finishes.
      reply.hijack();
      for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) reply.raw.setHeader(k, v);
      reply.raw.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" });
      const t = new ChatStreamTranslator({
        freshId: "chatcmpl-" + randomHex(12),
        created: Math.floor(now() / 1000),
        model: body.model,
        legacyFunctions: core.legacyFunctions,
        ...serviceTier(body),
        includeUsage: body.stream_options?.include_usage === true,
        errors,
        // A failure after the 200 is a warning when it is the server's; a client that left or a refusal is not.
        onError: (err) => {
          if (toWireError(err, errors).status >= 500) req.log.warn({ err }, "chat completions stream failed after the 200");
        },
      });
      void writeChatStream(it, first, reply.raw, t, HEARTBEAT_MS).catch((err: unknown) => req.log.error({ err }, "chat completions stream failed"));
    }

    // Not async: a unary call is one promise chain handed to fastify. Every error is answered in this format.
    scope.post("/", { onRequest: checks }, (req, reply) => {
      const parsed = parseBody(req.body);
      if (!parsed.ok) return sendError(req, reply, parsed.error);
      const body = parsed.value;
      const errors: ErrorContext = { model: body.model };
      const failed = (err: unknown) => void sendError(req, reply, toWireError(err, errors), err);
      try {
        const core = toCoreChatInput(body, { requestId: req.id });
        errors.clientField = core.clientField;
        const call = edgeCall(req, reply, FORMAT, bearerToken(req.headers.authorization));
        if (body.stream) return stream(req, reply, body, core, call, errors).catch(failed);
        return chat.generate({ input: core.input }, call).then((resp) => {
          const id = completionId(resp.id, "chatcmpl-" + randomHex(12));
          reply.type("application/json").send(fromCoreCompletion(resp, { id, created: Math.floor(now() / 1000), model: body.model, legacyFunctions: core.legacyFunctions, ...serviceTier(body) }));
        }, failed);
      } catch (err) {
        return sendError(req, reply, toWireError(err, errors), err);
      }
    });
  };
}

/** The client's service_tier, echoed in the answer when the upstream names none. */
function serviceTier(body: wire.ChatRequest): { serviceTier?: string } {
  const tier = (body as Record<string, unknown>).service_tier;
  return typeof tier === "string" ? { serviceTier: tier } : {};
}

export const openaiChatFacade: FastifyPluginAsync<FacadeOptions> = async (app, { deps }) => {
  await app.register(chatRoutes(deps.core.clients.chat, openAIHeaderChecks(deps.auth, { json: true }), deps.now), { prefix: "/v1/chat/completions" });
};
