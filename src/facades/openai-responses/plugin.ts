// The Responses facade: POST /v1/responses, as the openai SDKs, the AI SDK,
// LangChain, the Agents SDK and Codex call it. It checks the key first, from
// the headers (a wrong key is a 401 whatever the body holds), validates with
// zod, translates to the neutral model and back, streams server-sent events
// in the B.6 order, and renders every error, its own and fastify's, in
// OpenAI's {"error":{...}} shape. The stored-response routes (GET, DELETE,
// input_items) are ./stored.ts's.
import type { JsonObject } from "@bufbuild/protobuf";
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
import type { ResponseMeta } from "./meta.js";
import { sealer, type Sealer } from "./seal.js";
import { writeResponsesStream } from "./sse.js";
import { responseStore, storedRoutes } from "./stored.js";
import { ResponsesStreamTranslator } from "./stream.js";
import { responseMeta, SOURCE_FORMAT, toCoreChatInput, type CoreRequest } from "./translate.js";
import { fromCoreResponse } from "./translate-response.js";
import * as wire from "./wire.js";

/** The format name keys are scoped by (core/tenancy/scope.ts). */
const FORMAT = SOURCE_FORMAT;
/** Quiet time after which a stream gets a keep-alive comment. */
const HEARTBEAT_MS = 15_000;
/** Codex's sticky-routing token: what a response carries, the next request of the turn sends back. */
const TURN_STATE = "x-codex-turn-state";

/**
 * Where stored responses meet a POST, and only here: `context` gives the
 * items a previous_response_id continues from (they go before the request's
 * own input), `save` keeps an answer whose request had `store` on.
 */
export interface ResponseStore {
  context(id: string, call: CallInit): Promise<JsonObject[]>;
  save(body: wire.ResponsesRequest, response: JsonObject, call: CallInit): Promise<void>;
}

/** The header Codex names its session by, the same on every request of a conversation. */
const SESSION = "session-id";

const sendError = (req: FastifyRequest, reply: FastifyReply, e: OpenAIWireError, cause?: unknown) => sendOpenAIError(req, reply, e, cause, "responses facade error");

/** Codex's turn state goes back on every answer, errors included. */
function echoTurnState(req: FastifyRequest, reply: FastifyReply): void {
  const turnState = req.headers[TURN_STATE];
  if (typeof turnState === "string" && turnState) reply.header(TURN_STATE, turnState);
}

type Parsed = { ok: true; value: wire.ResponsesRequest } | { ok: false; error: OpenAIWireError };

function parseBody(body: unknown): Parsed {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return { ok: false, error: invalidRequest(INVALID_JSON) };
  // Parse options cost zod its fast path: a valid body is parsed without
  // them, an invalid one again with them for the error text.
  const ok = wire.responsesRequest.safeParse(body);
  if (ok.success) return { ok: true, value: ok.data };
  const r = wire.responsesRequest.safeParse(body, { reportInput: true });
  if (r.success) return { ok: true, value: r.data };
  const i = describeIssues(r.error.issues, body);
  return { ok: false, error: invalidRequest(i.message, i.param, i.code) };
}

/** What the gateway cannot do for a request that is otherwise valid: a 400 naming the field. */
function unsupported(body: wire.ResponsesRequest): OpenAIWireError | undefined {
  if (body.background) return invalidRequest("Background mode is not supported yet: send the request without background, or with background set to false.", "background");
  if (body.conversation != null) return invalidRequest("Conversations are not supported: send the conversation in input, or continue with previous_response_id.", "conversation");
  if (body.prompt != null) return invalidRequest("Prompt templates are not supported: send the prompt in instructions and input.", "prompt");
  return undefined;
}

interface Deps {
  chat: CoreClient<typeof ChatService>;
  checks: Hook;
  now: () => number;
  sealer: Sealer;
  store: ResponseStore;
}

function responsesRoutes(d: Deps) {
  const { chat, store, now } = d;
  return async (scope: FastifyInstance) => {
    scope.setErrorHandler((err, req, reply) => sendError(req, reply, toWireError(err), err));

    // Saves still under way, by response id: a follow-up naming one waits for it
    // (a client may send it the moment the answer's last event arrives).
    const saving = new Map<string, Promise<void>>();
    const keep = (req: FastifyRequest, body: wire.ResponsesRequest, response: JsonObject | undefined, call: CallInit) => {
      if (body.store === false || !response) return;
      const id = String(response.id);
      const done = store
        .save(body, response, call)
        .catch((err: unknown) => req.log.warn({ err }, "storing a response failed"))
        .finally(() => saving.delete(id));
      saving.set(id, done);
    };
    const contextOf = (id: string, call: CallInit) => {
      const pending = saving.get(id);
      return pending ? pending.then(() => store.context(id, call)) : store.context(id, call);
    };

    /** A streamed answer: the first event is read before the 200 goes out, so that errors the core raises up front (auth, validation, routing, rate limits) keep their status. */
    async function stream(req: FastifyRequest, reply: FastifyReply, body: wire.ResponsesRequest, core: CoreRequest, meta: ResponseMeta, call: CallInit, errors: ErrorContext): Promise<void> {
      const it = chat.streamGenerate({ input: core.input }, call)[Symbol.asyncIterator]();
      const first = await it.next();
      // The frames go straight to the socket (no stream in between); the onResponse hooks still run when the response finishes.
      reply.hijack();
      for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) reply.raw.setHeader(k, v);
      reply.raw.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" });
      const t = new ResponsesStreamTranslator(meta, {
        now,
        // A failure after the 200 is a warning when it is the server's; a client that left or a refusal is not.
        onError: (err) => {
          if (toWireError(err, errors).status >= 500) req.log.warn({ err }, "responses stream failed after the 200");
        },
      });
      void writeResponsesStream(it, first, reply.raw, t, HEARTBEAT_MS).then(
        () => keep(req, body, t.final(), call),
        (err: unknown) => req.log.error({ err }, "responses stream failed"),
      );
    }

    /** Translates and answers; `context` is what a previous response left (before the input). */
    function answer(req: FastifyRequest, reply: FastifyReply, sent: wire.ResponsesRequest, context: JsonObject[], call: CallInit, errors: ErrorContext): Promise<void> {
      const body = context.length ? withContext(sent, context) : sent;
      const core = toCoreChatInput(body, { requestId: req.id, sealer: d.sealer });
      errors.clientField = core.clientField;
      const meta = responseMeta(sent, core, { id: "resp_" + randomHex(24), createdAt: Math.floor(now() / 1000), sealer: d.sealer });
      // The conversation's name, for channel affinity: the client's prompt cache key, else Codex's session.
      const session = req.headers[SESSION];
      const affinity = sent.prompt_cache_key ?? (typeof session === "string" ? session : "");
      if (affinity && core.input.metadata) core.input.metadata.affinityKey = affinity.slice(0, 256);
      if (body.stream) return stream(req, reply, sent, core, meta, call, errors);
      return chat.generate({ input: core.input }, call).then((resp) => {
        const response = fromCoreResponse(resp, meta, Math.floor(now() / 1000));
        reply.type("application/json").send(response);
        keep(req, sent, response, call);
      });
    }

    /** The request with the stored conversation it continues, when it names one. */
    const continued = (body: wire.ResponsesRequest, call: CallInit): Promise<wire.ResponsesRequest> =>
      body.previous_response_id ? contextOf(body.previous_response_id, call).then((items) => withContext(body, items)) : Promise.resolve(body);

    // What a request's input would cost in tokens, on the upstream that would serve it.
    scope.post("/input_tokens", { onRequest: d.checks }, (req, reply) => {
      const parsed = parseBody(withDefaultInput(req.body));
      if (!parsed.ok) return sendError(req, reply, parsed.error);
      const errors: ErrorContext = { model: parsed.value.model };
      const call = edgeCall(req, reply, FORMAT, bearerToken(req.headers.authorization));
      return continued(parsed.value, call)
        .then((body) => {
          const core = toCoreChatInput(withInstructionsOnly(body), { requestId: req.id, sealer: d.sealer });
          errors.clientField = core.clientField;
          return chat.countTokens({ input: core.input }, call);
        })
        .then(
          (r) => void reply.type("application/json").send({ object: "response.input_tokens", input_tokens: Number(r.inputTokens + r.cachedTokens) }),
          (err: unknown) => void sendError(req, reply, toWireError(err, errors), err),
        );
    });

    // Remote compaction (v1): the conversation's user messages, then one sealed compaction item holding a handoff summary.
    scope.post("/compact", { onRequest: d.checks }, (req, reply) => {
      const parsed = parseBody(withDefaultInput(req.body));
      if (!parsed.ok) return sendError(req, reply, parsed.error);
      const errors: ErrorContext = { model: parsed.value.model };
      const call = edgeCall(req, reply, FORMAT, bearerToken(req.headers.authorization));
      return continued(parsed.value, call)
        .then((body) => {
          const items = inputItems(body);
          const core = toCoreChatInput({ ...body, input: [...items, { type: "compaction_trigger" }], stream: false, store: false, tools: body.tools ?? [] }, { requestId: req.id, sealer: d.sealer });
          errors.clientField = core.clientField;
          // Nothing of a compaction is stored: its reasoning is sealed only when include asks.
          const meta = responseMeta({ ...body, store: false }, core, { id: "resp_" + randomHex(24), createdAt: Math.floor(now() / 1000), sealer: d.sealer });
          return chat.generate({ input: core.input }, call).then((resp) => {
            const answered = fromCoreResponse(resp, meta);
            const kept = items.filter((i) => (i as { role?: unknown }).role === "user" && ((i as { type?: unknown }).type ?? "message") === "message");
            reply
              .type("application/json")
              .send({ id: meta.id, object: "response.compaction", created_at: meta.createdAt, output: [...kept, ...(answered.output as JsonObject[])], usage: answered.usage });
          });
        })
        .catch((err: unknown) => void sendError(req, reply, toWireError(err, errors), err));
    });

    // Not async: a unary call without a previous response is one promise chain handed to fastify. Every error is answered in this format.
    scope.post("/", { onRequest: d.checks }, (req, reply) => {
      const parsed = parseBody(req.body);
      if (!parsed.ok) return sendError(req, reply, parsed.error);
      const body = parsed.value;
      const refused = unsupported(body);
      if (refused) return sendError(req, reply, refused);
      const errors: ErrorContext = { model: body.model };
      const failed = (err: unknown) => void sendError(req, reply, toWireError(err, errors), err);
      try {
        const call = edgeCall(req, reply, FORMAT, bearerToken(req.headers.authorization));
        if (body.previous_response_id)
          return contextOf(body.previous_response_id, call)
            .then((items) => answer(req, reply, body, items, call, errors))
            .catch(failed);
        return answer(req, reply, body, [], call, errors).catch(failed);
      } catch (err) {
        return sendError(req, reply, toWireError(err, errors), err);
      }
    });
  };
}

/** input_tokens and compact may omit `input` (a previous response or instructions say it all). */
const withDefaultInput = (body: unknown): unknown => (body !== null && typeof body === "object" && !Array.isArray(body) && !("input" in body) ? { ...body, input: [] } : body);

/** A request's input as items (a string is one user message). */
function inputItems(body: wire.ResponsesRequest): wire.InputItem[] {
  return typeof body.input === "string" ? [{ role: "user", content: body.input }] : (body.input ?? []);
}

/** For counting: a request whose only content is its instructions still counts them (the translator wants some input). */
function withInstructionsOnly(body: wire.ResponsesRequest): wire.ResponsesRequest {
  return inputItems(body).length ? body : { ...body, input: [{ role: "user", content: "" }] };
}

/** The request with the items of the response it continues before its own input (items the facade cannot read are left out). */
function withContext(body: wire.ResponsesRequest, context: JsonObject[]): wire.ResponsesRequest {
  const own = inputItems(body);
  const earlier = context.flatMap((item) => {
    const r = wire.inputItem.safeParse(item);
    return r.success ? [r.data] : [];
  });
  return { ...body, input: [...earlier, ...own] };
}

export const openaiResponsesFacade: FastifyPluginAsync<FacadeOptions> = async (app, { deps }) => {
  const d: Deps = {
    chat: deps.core.clients.chat,
    checks: openAIHeaderChecks(deps.auth, { json: true, echo: echoTurnState }),
    now: deps.now,
    sealer: sealer(deps.sealSecret),
    store: responseStore(deps.core.clients.responses),
  };
  await app.register(responsesRoutes(d), { prefix: "/v1/responses" });
  await app.register(storedRoutes(deps), { prefix: "/v1/responses" });
};
