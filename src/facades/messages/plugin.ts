// The Messages facade: POST /v1/messages, POST /v1/messages/count_tokens,
// the Files API (/v1/files, files.ts) and the Anthropic-shaped GET /v1/models
// (selected by the anthropic-version header). It checks the key first, from
// the headers (a wrong key is a 401 whatever the body holds, as on Anthropic's
// API), validates with zod, translates to the neutral model and back, and
// renders every error, its own and fastify's, as an Anthropic error body.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { ChatService } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { Capability, type ModelService } from "../../../gen/omnigate/model/v1/model_pb.js";
import { keyIsValid, type Authenticator } from "../../core/auth/authenticator.js";
import { bearerToken } from "../../core/auth/bearer.js";
import type { CallInit } from "../../core/call/call.js";
import type { CoreClient } from "../../core/call/service.js";
import { randomHex } from "../../lib/ids.js";
import type { FacadeOptions } from "../shared/options.js";
import { edgeCall } from "../shared/call.js";
import { closeIfUnread } from "../shared/upload-cap.js";
import { errorBody, invalidRequest, toWireError, type WireError } from "./errors.js";
import { describeIssues, issueText, pydanticMessages } from "./issues.js";
import { isChatModel, pageModels, toModelInfo, UnknownCursorError } from "./models.js";
import { fileRoutes } from "./files.js";
import { writeMessagesStream } from "./sse.js";
import { fromCoreMessage, toCoreChatInput, type CoreRequest } from "./translate.js";
import * as wire from "./wire.js";

const FORMAT = "messages";
/** Quiet time after which a stream gets a keep-alive ping. */
const HEARTBEAT_MS = 15_000;

/** The client's key: x-api-key (0.x SDKs) or Authorization: Bearer (1.x SDKs). */
export function apiKeyOf(headers: FastifyRequest["headers"]): string | undefined {
  const x = headers["x-api-key"];
  if (typeof x === "string" && x.trim()) return x.trim();
  return bearerToken(headers.authorization);
}

/** anthropic-beta as a comma list, a repeated header, or both. */
export function betasOf(headers: FastifyRequest["headers"]): string[] {
  const h = headers["anthropic-beta"];
  const all = Array.isArray(h) ? h : h ? [h] : [];
  return all
    .flatMap((v) => v.split(","))
    .map((s) => s.trim())
    .filter(Boolean);
}

function sendError(req: FastifyRequest, reply: FastifyReply, e: WireError, cause?: unknown): FastifyReply {
  if (e.status >= 500 && cause !== undefined) req.log.error({ err: cause }, "messages facade error");
  if (e.retryAfter !== undefined) reply.header("retry-after", String(e.retryAfter));
  closeIfUnread(req, reply);
  return reply.code(e.status).type("application/json").send(errorBody(e, req.id));
}

type Hook = (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void;

/**
 * The header checks every Messages call makes before its body is read: the
 * key, present (401) and valid (401), then anthropic-version and a JSON
 * content type (400), in that order. One callback-style hook (an async hook
 * costs a promise per request; so does the key check only when the key cache
 * does not know the key); a refusal sends the error and does not call done.
 */
function headerChecks(auth: Authenticator, opts: { version: boolean; json: boolean }): Hook {
  const rest = (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (opts.version && !req.headers["anthropic-version"]) return void sendError(req, reply, invalidRequest("anthropic-version: header is required"));
    if (opts.json) {
      // A body that is not JSON (fastify parses text/plain too) is refused before it is parsed.
      const type = String(req.headers["content-type"] ?? "")
        .split(";")[0]!
        .trim()
        .toLowerCase();
      if (type !== "application/json" && !type.endsWith("+json")) return void sendError(req, reply, invalidRequest("content-type must be application/json"));
    }
    done();
  };
  const refused = (req: FastifyRequest, reply: FastifyReply) => void sendError(req, reply, { status: 401, type: "authentication_error", message: "invalid x-api-key" });
  return (req, reply, done) => {
    const key = apiKeyOf(req.headers);
    if (!key) return void sendError(req, reply, { status: 401, type: "authentication_error", message: "x-api-key header is required" });
    const valid = keyIsValid(auth, key);
    if (valid === true) return rest(req, reply, done);
    if (valid === false) return refused(req, reply);
    valid.then((ok) => (ok ? rest(req, reply, done) : refused(req, reply)), done);
  };
}

/**
 * /v1/files is Anthropic's here, but OpenAI's API has the same path: a caller
 * with neither anthropic-version nor x-api-key (an OpenAI client: a Bearer key
 * and no version) gets the 404 an OpenAI client gets for any path this gateway
 * does not serve, not an Anthropic error about a header it never heard of.
 */
function fileChecks(versionedChecks: Hook, openaiUnknownUrl: FacadeOptions["openaiUnknownUrl"]): Hook {
  return (req, reply, done) => {
    if (req.headers["anthropic-version"] === undefined && req.headers["x-api-key"] === undefined) {
      const r = openaiUnknownUrl(req.url, req.id, req.method);
      return void reply.code(r.status).type("application/json").send(r.body);
    }
    versionedChecks(req, reply, done);
  };
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: WireError };

function parseBody<T>(schema: z.ZodType<T>, body: unknown): Parsed<T> {
  if (body === undefined || body === null) return { ok: false, error: invalidRequest("request body must be a JSON object") };
  // Parse options cost zod its fast path: a valid body is parsed
  // without them, an invalid one again with them for the error text.
  const ok = schema.safeParse(body);
  if (ok.success) return { ok: true, value: ok.data };
  const r = schema.safeParse(body, { error: pydanticMessages, reportInput: true });
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, error: invalidRequest(issueText(describeIssues(r.error.issues))) };
}

function messageRoutes(chat: CoreClient<typeof ChatService>, postChecks: Hook) {
  return async (scope: FastifyInstance) => {
    scope.setErrorHandler((err, req, reply) => sendError(req, reply, toWireError(err), err));
    scope.setNotFoundHandler((req, reply) => sendError(req, reply, { status: 404, type: "not_found_error", message: `no route ${req.method} ${req.url.split("?")[0]}` }));

    /** A streamed message: the first event is read before the 200 goes out, so that errors the core raises up front (auth, validation, rate limits) keep their status. */
    async function stream(req: FastifyRequest, reply: FastifyReply, body: wire.MessagesRequest, core: CoreRequest, call: CallInit): Promise<void> {
      const it = chat.streamGenerate({ input: core.input }, call)[Symbol.asyncIterator]();
      const first = await it.next();
      // The frames go straight to the socket (no stream in between); the
      // onResponse hooks still run when the response finishes.
      reply.hijack();
      for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) reply.raw.setHeader(k, v);
      reply.raw.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" });
      // A failure after the 200 is a warning when it is the server's (5xx, as
      // in the GenAI facade); a client that left or a refusal is not.
      const onError = (err: unknown) => {
        if (toWireError(err, core.clientField).status >= 500) req.log.warn({ err }, "messages stream failed after the 200");
      };
      const opts = { requestId: req.id, fallbackId: "msg_" + randomHex(12), model: body.model, onError, clientField: core.clientField, heartbeatMs: HEARTBEAT_MS };
      void writeMessagesStream(it, first, reply.raw, opts).catch((err: unknown) => req.log.error({ err }, "messages stream failed"));
    }

    // Not async: a unary call is one promise chain handed to fastify (an async
    // handler awaiting it, and returning the reply as a thenable, cost two
    // promises and three turns more). Every error is answered in this format.
    scope.post("/", { onRequest: postChecks }, (req, reply) => {
      const parsed = parseBody(wire.messagesRequest, req.body);
      if (!parsed.ok) return sendError(req, reply, parsed.error);
      const body = parsed.value;
      let core: CoreRequest | undefined;
      const failed = (err: unknown) => void sendError(req, reply, toWireError(err, core?.clientField), err);
      try {
        core = toCoreChatInput(body, { betas: betasOf(req.headers), requestId: req.id });
        const call = edgeCall(req, reply, FORMAT, apiKeyOf(req.headers));
        if (body.stream) return stream(req, reply, body, core, call).catch(failed);
        return chat.generate({ input: core.input }, call).then((resp) => {
          // The upstream's id when it gave one; ours otherwise.
          reply.type("application/json").send(fromCoreMessage(resp, { id: resp.id ? "" : "msg_" + randomHex(12), model: body.model }));
        }, failed);
      } catch (err) {
        return sendError(req, reply, toWireError(err, core?.clientField), err);
      }
    });

    scope.post("/count_tokens", { onRequest: postChecks }, async (req, reply) => {
      const parsed = parseBody(wire.countTokensRequest, req.body);
      if (!parsed.ok) return sendError(req, reply, parsed.error);
      let core: CoreRequest | undefined;
      try {
        core = toCoreChatInput(parsed.value, { betas: betasOf(req.headers), requestId: req.id });
        const resp = await chat.countTokens({ input: core.input }, edgeCall(req, reply, FORMAT, apiKeyOf(req.headers)));
        return reply.type("application/json").send({ input_tokens: Number(resp.inputTokens) });
      } catch (err) {
        return sendError(req, reply, toWireError(err, core?.clientField), err);
      }
    });
  };
}

function modelRoutes(models: CoreClient<typeof ModelService>, keyCheck: Hook) {
  return async (scope: FastifyInstance) => {
    scope.setErrorHandler((err, req, reply) => sendError(req, reply, toWireError(err), err));
    const anthropic = { constraints: { wire: "anthropic" }, onRequest: keyCheck };

    scope.get("/v1/models", anthropic, async (req, reply) => {
      const q = parseBody(wire.listModelsQuery, req.query ?? {});
      if (!q.ok) return sendError(req, reply, q.error);
      try {
        const call = edgeCall(req, reply, FORMAT, apiKeyOf(req.headers));
        const all = [];
        let pageToken = "";
        do {
          const page = await models.listModels({ capability: Capability.CHAT, pageSize: 1000, pageToken }, call);
          all.push(...page.models.filter(isChatModel));
          pageToken = page.nextPageToken;
        } while (pageToken);
        return reply.type("application/json").send(pageModels(all.map(toModelInfo), q.value));
      } catch (err) {
        if (err instanceof UnknownCursorError) return sendError(req, reply, invalidRequest(err.message));
        return sendError(req, reply, toWireError(err), err);
      }
    });

    scope.get<{ Params: { model_id: string } }>("/v1/models/:model_id", anthropic, async (req, reply) => {
      try {
        const { model } = await models.getModel({ id: req.params.model_id }, edgeCall(req, reply, FORMAT, apiKeyOf(req.headers)));
        if (!model || !isChatModel(model)) return sendError(req, reply, { status: 404, type: "not_found_error", message: `model: ${req.params.model_id}` });
        return reply.type("application/json").send(toModelInfo(model));
      } catch (err) {
        return sendError(req, reply, toWireError(err), err);
      }
    });
  };
}

export const messagesFacade: FastifyPluginAsync<FacadeOptions> = async (app, { deps, openaiUnknownUrl }) => {
  const { chat, models, files } = deps.core.clients;
  await app.register(messageRoutes(chat, headerChecks(deps.auth, { version: true, json: true })), { prefix: "/v1/messages" });
  await app.register(
    fileRoutes({
      files,
      maxBytes: deps.config.fileMaxBytes,
      onRequest: fileChecks(headerChecks(deps.auth, { version: true, json: false }), openaiUnknownUrl),
      call: (req, reply) => edgeCall(req, reply, FORMAT, apiKeyOf(req.headers)),
      sendError,
    }),
    { prefix: "/v1/files" },
  );
  await app.register(modelRoutes(models, headerChecks(deps.auth, { version: false, json: false })));
};
