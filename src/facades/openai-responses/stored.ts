// The stored-response routes of the Responses facade, which its plugin
// registers under /v1/responses: GET /{id} (the Response object as the
// client got it; a background one as it is doing, or, with ?stream=true, its
// events again after `starting_after` and live to the end), DELETE /{id},
// POST /{id}/cancel (a background one), GET /{id}/input_items (a page of the
// input it was given). They read the core's StoredResponseService; a response
// of another key is a 404 like a missing one. A finished background response
// is rendered and saved finished by whichever read comes first
// (./background-store.ts). The key is checked first, from the headers; every
// error is OpenAI's {"error":{...}}.
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ListInputItemsRequest_Order, type StoredResponseService } from "../../../gen/omnigate/response/v1/response_pb.js";
import { bearerToken } from "../../core/auth/bearer.js";
import type { CallInit } from "../../core/call/call.js";
import type { CoreClient } from "../../core/call/service.js";
import { coreError, errorDetail } from "../../core/errors.js";
import { randomHex } from "../../lib/ids.js";
import { edgeCall } from "../shared/call.js";
import type { FacadeDeps } from "../shared/options.js";
import { openAIHeaderChecks, sendOpenAIError } from "../shared/openai-edge.js";
import { openAIError, toWireError, type OpenAIWireError } from "../shared/openai-error.js";
import { isFinishedState, liveStatus } from "./background.js";
import { settle, streamBackground } from "./background-store.js";
import { sealer as makeSealer, type Sealer } from "./seal.js";
import type * as wire from "./wire.js";

/** The format name keys are scoped by (core/tenancy/scope.ts), for every /v1/responses route. */
export const RESPONSES_FORMAT = "openai-responses";
/** Quiet time after which a resumed stream gets a keep-alive comment. */
const HEARTBEAT_MS = 15_000;

const reasonOf = (err: unknown): string | undefined => (err instanceof ConnectError ? errorDetail(err)?.reason : undefined);

/**
 * The input items a Responses request is stored with: a string input as one
 * user message, and a message whose content is a string as one with a text
 * part, as OpenAI lists them. Ids are added by the core.
 */
export function inputItemsToStore(input: string | readonly JsonObject[]): JsonObject[] {
  if (typeof input === "string") return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  return input.map((item) => {
    const message = item.type === "message" || (item.type === undefined && typeof item.role === "string");
    if (!message || typeof item.content !== "string") return item;
    return { ...item, type: "message", content: [{ type: item.role === "assistant" ? "output_text" : "input_text", text: item.content }] };
  });
}

/** The request fields a stored response keeps. */
export type StoredRequest = Pick<wire.ResponsesRequest, "input" | "previous_response_id">;

/**
 * What a POST needs of stored responses, over the core's client: `context`
 * gives the items a previous_response_id continues from (NotFound, reason
 * previous_response_not_found, field previous_response_id, when it names no
 * response of the caller's); `save` keeps an answer, with the request's input
 * and, for a follow-up's context, `output` (default: the Response's own
 * output; pass more when the client saw less, such as reasoning without its
 * encrypted_content).
 */
export function responseStore(responses: CoreClient<typeof StoredResponseService>, sealer: Sealer = makeSealer(randomHex(16))) {
  return {
    context(id: string, call: CallInit): Promise<JsonObject[]> {
      const get = () => responses.getContext({ id }, call).then((r) => r.items);
      return get()
        .catch((err: unknown) => {
          // A background response that finished unread: saved finished first, then its context is whole.
          if (reasonOf(err) === "background_unsaved") return settle(responses, id, call, sealer).then(get);
          throw err;
        })
        .catch((err: unknown) => {
          // The core names its own request's field; the client named previous_response_id.
          if (err instanceof ConnectError && err.code === Code.NotFound)
            throw coreError(Code.NotFound, `Previous response with id '${id.slice(0, 128)}' not found.`, { reason: "previous_response_not_found", field: "previous_response_id" });
          if (reasonOf(err) === "response_in_progress")
            throw coreError(Code.FailedPrecondition, err instanceof ConnectError ? err.rawMessage : "", { reason: "response_in_progress", field: "previous_response_id" });
          throw err;
        });
    },
    save(body: StoredRequest, response: JsonObject, call: CallInit, output?: JsonObject[]): Promise<void> {
      const created = typeof response.created_at === "number" ? response.created_at * 1000 : undefined;
      return responses
        .saveResponse(
          {
            id: String(response.id ?? ""),
            status: String(response.status ?? ""),
            model: String(response.model ?? ""),
            ...(created !== undefined ? { createTime: timestampFromMs(created) } : {}),
            previousResponseId: body.previous_response_id ?? "",
            response,
            input: inputItemsToStore((body.input ?? []) as string | JsonObject[]),
            output: output ?? (Array.isArray(response.output) ? (response.output as JsonObject[]) : []),
          },
          call,
        )
        .then(() => undefined);
    },
  };
}

/** A core error in the facade's table (errors.ts); a missing response is OpenAI's 404, which names neither a parameter nor a code. */
export function storedWireError(err: unknown): OpenAIWireError {
  if (err instanceof ConnectError && err.code === Code.NotFound && errorDetail(err)?.reason === "response_not_found") return openAIError(404, err.rawMessage, "invalid_request_error");
  return toWireError(err);
}

const send = (req: FastifyRequest, reply: FastifyReply, e: OpenAIWireError, cause?: unknown) => sendOpenAIError(req, reply, e, cause, "stored responses route error");

const badParam = (message: string, param: string, code: string | null = null) => openAIError(400, message, "invalid_request_error", code, param);

/** `limit` of the input-items listing: 1 to 100, default 20. */
function limitOf(raw: unknown): number | OpenAIWireError {
  if (raw === undefined || raw === "") return 20;
  const n = Number(raw);
  if (typeof raw !== "string" || !Number.isInteger(n)) return badParam(`Invalid 'limit': expected an integer, but got ${JSON.stringify(raw).slice(0, 64)} instead.`, "limit", "invalid_type");
  if (n < 1) return badParam(`Invalid 'limit': integer below minimum value. Expected a value >= 1, but got ${n} instead.`, "limit", "integer_below_min_value");
  if (n > 100) return badParam(`Invalid 'limit': integer above maximum value. Expected a value <= 100, but got ${n} instead.`, "limit", "integer_above_max_value");
  return n;
}

function orderOf(raw: unknown): ListInputItemsRequest_Order | OpenAIWireError {
  if (raw === undefined || raw === "desc") return ListInputItemsRequest_Order.DESC;
  if (raw === "asc") return ListInputItemsRequest_Order.ASC;
  return badParam(`Invalid value: ${JSON.stringify(raw).slice(0, 64)}. Supported values are: 'asc' and 'desc'.`, "order", "invalid_value");
}

const isWireError = (v: unknown): v is OpenAIWireError => typeof v === "object" && v !== null && "status" in v;

type IdRoute = { Params: { id: string }; Querystring: Record<string, unknown> };

/** `starting_after` of a resumed stream: a sequence number, or -1 when unset. */
function startingAfterOf(raw: unknown): number | OpenAIWireError {
  if (raw === undefined || raw === "") return -1;
  const n = Number(raw);
  if (typeof raw !== "string" || !Number.isInteger(n) || n < 0)
    return badParam(`Invalid 'starting_after': expected a non-negative integer, but got ${JSON.stringify(raw).slice(0, 64)} instead.`, "starting_after", "invalid_type");
  return n;
}

const NOT_STREAMABLE = "Only background responses can be streamed; this response was not created with background=true.";
const NOT_CANCELLABLE = "Only responses created with background=true can be cancelled.";

/**
 * The stored-response routes, for the facade's plugin to register with
 * `app.register(storedRoutes(deps), { prefix: "/v1/responses" })`.
 */
export function storedRoutes(deps: Pick<FacadeDeps, "core" | "auth"> & { sealSecret?: string | undefined }) {
  const responses = deps.core.clients.responses;
  const sealer = makeSealer(deps.sealSecret ?? randomHex(16));
  const checks = openAIHeaderChecks(deps.auth, { json: false });
  return async (scope: FastifyInstance) => {
    scope.setErrorHandler((err, req, reply) => send(req, reply, storedWireError(err), err));
    const call = (req: FastifyRequest, reply: FastifyReply) => edgeCall(req, reply, RESPONSES_FORMAT, bearerToken(req.headers.authorization));
    const failed = (req: FastifyRequest, reply: FastifyReply) => (err: unknown) => void send(req, reply, storedWireError(err), err);

    /** The Response as it is now: a background one not saved finished shows its state, or is saved finished first. */
    const current = (id: string, c: CallInit): Promise<JsonObject> =>
      responses.getResponse({ id }, c).then((r) => {
        const body = r.response?.response ?? {};
        const bg = r.response?.background;
        if (!bg) return body;
        return isFinishedState(bg.state) ? settle(responses, id, c, sealer) : { ...body, status: liveStatus(bg.state) };
      });

    scope.get<IdRoute>("/:id", { onRequest: checks }, (req, reply) => {
      const c = call(req, reply);
      if (req.query.stream === "true") {
        const after = startingAfterOf(req.query.starting_after);
        if (isWireError(after)) return send(req, reply, after);
        const onSaveError = (err: unknown) => req.log.warn({ err }, "saving a finished background response failed");
        return streamBackground(reply, responses, req.params.id, c, sealer, { startingAfter: after, heartbeatMs: HEARTBEAT_MS, onSaveError }).catch((err: unknown) => {
          if (reasonOf(err) === "not_background") return void send(req, reply, badParam(NOT_STREAMABLE, "stream"));
          return failed(req, reply)(err);
        });
      }
      return current(req.params.id, c).then((body) => void reply.type("application/json").send(body), failed(req, reply));
    });

    scope.delete<IdRoute>("/:id", { onRequest: checks }, (req, reply) =>
      responses.deleteResponse({ id: req.params.id }, call(req, reply)).then((r) => void reply.type("application/json").send({ id: r.id, object: "response", deleted: true }), failed(req, reply)),
    );

    // A queued or running background response stops and answers cancelled, and
    // a cancelled one answers again as it is; one that finished otherwise is
    // OpenAI's 400 "Cannot cancel a completed response."
    scope.post<IdRoute>("/:id/cancel", { onRequest: checks }, (req, reply) => {
      const c = call(req, reply);
      const id = req.params.id;
      return responses
        .cancelBackgroundResponse({ id }, c)
        .then(
          () => settle(responses, id, c, sealer),
          (err: unknown) => {
            if (reasonOf(err) === "response_finished") return current(id, c);
            throw err;
          },
        )
        .then(
          (body) => {
            if (body.status === "cancelled") return void reply.type("application/json").send(body);
            send(req, reply, openAIError(400, `Cannot cancel a ${String(body.status)} response.`, "invalid_request_error", null, null));
          },
          (err: unknown) => {
            if (reasonOf(err) === "not_background") return void send(req, reply, badParam(NOT_CANCELLABLE, "response_id"));
            return failed(req, reply)(err);
          },
        );
    });

    scope.get<IdRoute>("/:id/input_items", { onRequest: checks }, (req, reply) => {
      const limit = limitOf(req.query.limit);
      if (isWireError(limit)) return send(req, reply, limit);
      const order = orderOf(req.query.order);
      if (isWireError(order)) return send(req, reply, order);
      const after = typeof req.query.after === "string" ? req.query.after : "";
      return responses
        .listInputItems({ id: req.params.id, after, limit, order }, call(req, reply))
        .then((r) => void reply.type("application/json").send({ object: "list", data: r.items, first_id: r.firstId || null, last_id: r.lastId || null, has_more: r.hasMore }), failed(req, reply));
    });
  };
}
