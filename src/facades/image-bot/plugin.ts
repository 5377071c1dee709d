// The image-bot proxy (/ib, and /mj for midjourney-proxy clients): every
// endpoint of spec 4.1 plus cancel, shorten, the task queue and list, the
// account pool, and an SSE stream of a task's changes. Bearer auth
// (mj-api-secret is accepted too); errors in the envelope of spec 7.2.
import { PassThrough } from "node:stream";
import { ConnectError } from "@connectrpc/connect";
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import { Status } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { bearerToken } from "../../core/auth/bearer.js";
import type { FacadeOptions } from "../shared/options.js";
import { edgeCall } from "../shared/call.js";
import { CODE, FacadeError, badRequest, fromConnectError, wireError, type WireError } from "./errors.js";
import {
  fromCoreAccount,
  fromCoreResult,
  fromCoreTask,
  toCoreAccountUpdate,
  toCoreAction,
  toCoreBlend,
  toCoreDescribe,
  toCoreImagine,
  toCoreModal,
  toCoreShorten,
  toCoreSwap,
  toCoreUpload,
} from "./translate.js";
import * as wire from "./wire.js";
import { sseEvent } from "./sse.js";
import { withBodyCheckFinding } from "../shared/body-check.js";

/** The format name keys are scoped by (core/tenancy/scope.ts). */
const FORMAT = "image-bot";
const SSE_PING_MS = 15_000;

function send(reply: FastifyReply, e: WireError): FastifyReply {
  return reply.code(e.status).headers(e.headers).type("application/json").send(e.body);
}

function toWire(err: unknown): WireError {
  if (err instanceof FacadeError) return err.wire;
  if (err instanceof ConnectError) return fromConnectError(err);
  const e = err as FastifyError;
  if (e?.code === "FST_ERR_CTP_BODY_TOO_LARGE") return wireError(400, CODE.PARAMETER_ERROR, "the request body is too large");
  if (e?.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return wireError(400, CODE.PARAMETER_ERROR, "send the body as application/json");
  if (e instanceof SyntaxError || e?.code === "FST_ERR_CTP_EMPTY_JSON_BODY" || e?.code === "FST_ERR_CTP_INVALID_JSON_BODY" || (e?.statusCode === 400 && /JSON/i.test(e.message ?? ""))) {
    return wireError(400, CODE.PARAMETER_ERROR, withBodyCheckFinding("the body is not valid JSON", err, ": "));
  }
  if (typeof e?.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) return wireError(400, CODE.PARAMETER_ERROR, "the request could not be processed");
  return wireError(500, CODE.SYSTEM_ERROR, "system error: the gateway could not process the request");
}

/** The first problem of a body, in words: "prompt is required", "base64Array must be an array". */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid request body";
  const path = issue.path
    .map((p) => (typeof p === "number" ? `[${p}]` : String(p)))
    .join(".")
    .replace(/\.\[/g, "[");
  if (!path) return "the body must be a JSON object";
  if (issue.code === "invalid_type" && /received undefined/.test(issue.message)) return `${path} is required`;
  if (issue.code === "invalid_type") return `${path} must be ${issue.expected === "array" ? "an array" : `a ${issue.expected}`}`;
  if (issue.code === "invalid_value") return `${path} must be one of ${issue.values.map(String).join(", ")}`;
  return `${path}: ${issue.message}`;
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body ?? undefined);
  if (!r.success) throw badRequest(describeIssue(r.error));
  return r.data;
}

/** Bearer, else midjourney-proxy's mj-api-secret header. */
function apiKey(req: FastifyRequest): string | undefined {
  const bearer = bearerToken(req.headers.authorization);
  if (bearer) return bearer;
  const secret = req.headers["mj-api-secret"];
  return typeof secret === "string" && secret.trim() ? secret.trim() : undefined;
}

export const imageBotFacade: FastifyPluginAsync<FacadeOptions> = async (app, { deps }) => {
  const client = deps.core.clients.imageBot;
  const call = (req: FastifyRequest, reply: FastifyReply) => edgeCall(req, reply, FORMAT, apiKey(req));

  const routes = async (scope: FastifyInstance) => {
    scope.setErrorHandler(async (err, req, reply) => {
      const w = toWire(err);
      if (w.status >= 500) req.log.error({ err }, "image-bot request failed");
      return send(reply, w);
    });
    scope.setNotFoundHandler(async (_req, reply) => send(reply, wireError(404, CODE.PARAMETER_ERROR, "no such endpoint")));
    scope.addHook("onRequest", async (req, reply) => {
      if (!apiKey(req)) return send(reply, wireError(401, CODE.PARAMETER_ERROR, "missing API key: send Authorization: Bearer <key>"));
    });

    const submit = (path: string, handler: (req: FastifyRequest, reply: FastifyReply) => Promise<wire.Envelope>) =>
      scope.post(path, async (req, reply) => reply.type("application/json").send(await handler(req, reply)));

    submit("/submit/imagine", async (req, reply) => fromCoreResult((await client.submitTask(toCoreImagine(parse(wire.imagine, req.body)), call(req, reply))).result));
    submit("/submit/blend", async (req, reply) => fromCoreResult((await client.submitTask(toCoreBlend(parse(wire.blend, req.body)), call(req, reply))).result));
    submit("/submit/describe", async (req, reply) => fromCoreResult((await client.submitTask(toCoreDescribe(parse(wire.describe, req.body)), call(req, reply))).result));
    submit("/submit/shorten", async (req, reply) => fromCoreResult((await client.submitTask(toCoreShorten(parse(wire.shorten, req.body)), call(req, reply))).result));
    for (const path of ["/face-service/swap", "/insight-face/swap"]) {
      submit(path, async (req, reply) => fromCoreResult((await client.submitTask(toCoreSwap(parse(wire.swap, req.body)), call(req, reply))).result));
    }
    submit("/submit/action", async (req, reply) => fromCoreResult((await client.submitAction(toCoreAction(parse(wire.action, req.body)), call(req, reply))).result));
    submit("/submit/modal", async (req, reply) => fromCoreResult((await client.submitModal(toCoreModal(parse(wire.modal, req.body)), call(req, reply))).result));
    for (const path of ["/submit/upload-chat-images", "/submit/upload-discord-images"]) {
      submit(path, async (req, reply) => {
        const res = await client.uploadImages(toCoreUpload(parse(wire.upload, req.body)), call(req, reply));
        return { code: CODE.SUBMITTED, description: "success", properties: {}, result: res.urls };
      });
    }

    for (const path of ["/task/list-by-condition", "/task/list-by-ids"]) {
      scope.post(path, async (req, reply) => {
        const body = parse(wire.listByCondition, req.body);
        const res = await client.listTasks({ ids: body.ids }, call(req, reply));
        return reply.type("application/json").send(res.tasks.map(fromCoreTask));
      });
    }
    scope.get("/task/queue", async (req, reply) => {
      const res = await client.listTasks({ statuses: [Status.NOT_START, Status.SUBMITTED, Status.IN_PROGRESS], pageSize: 1000 }, call(req, reply));
      return reply.type("application/json").send(res.tasks.map(fromCoreTask));
    });
    scope.get("/task/list", async (req, reply) => {
      const res = await client.listTasks({ pageSize: 100 }, call(req, reply));
      return reply.type("application/json").send(res.tasks.map(fromCoreTask));
    });
    scope.get<{ Params: { id: string } }>("/task/:id/fetch", async (req, reply) => {
      const res = await client.getTask({ id: req.params.id }, call(req, reply));
      return reply.type("application/json").send(fromCoreTask(res.task!));
    });
    scope.get<{ Params: { id: string } }>("/task/:id/image-seed", async (req, reply) => {
      const res = await client.getImageSeed({ id: req.params.id }, call(req, reply));
      return reply.type("application/json").send({ code: CODE.SUBMITTED, description: "success", properties: {}, result: res.seed } satisfies wire.Envelope);
    });
    scope.post<{ Params: { id: string } }>("/task/:id/cancel", async (req, reply) => {
      const res = await client.cancelTask({ id: req.params.id }, call(req, reply));
      return reply.type("application/json").send({ code: CODE.SUBMITTED, description: "cancelled", properties: { status: "CANCEL" }, result: res.task?.id ?? req.params.id } satisfies wire.Envelope);
    });
    scope.get<{ Params: { id: string } }>("/task/:id/events", async (req, reply) => {
      const opts = call(req, reply);
      const iterator = client.watchTask({ id: req.params.id }, opts)[Symbol.asyncIterator]();
      const first = await iterator.next();
      const out = new PassThrough();
      const ping = setInterval(() => out.write(": ping\n\n"), SSE_PING_MS);
      ping.unref();
      void (async () => {
        try {
          for (let r = first; !r.done; r = await iterator.next()) out.write(sseEvent("task", fromCoreTask(r.value.task!)));
          out.write(sseEvent("done", {}));
        } catch (err) {
          if (!opts.signal.aborted) out.write(sseEvent("error", toWire(err).body));
        } finally {
          clearInterval(ping);
          out.end();
        }
      })();
      return reply.header("content-type", "text/event-stream; charset=utf-8").header("cache-control", "no-cache").header("x-accel-buffering", "no").send(out);
    });

    scope.get("/account/list", async (req, reply) => {
      const res = await client.listAccounts({}, call(req, reply));
      return reply.type("application/json").send(res.accounts.map(fromCoreAccount));
    });
    scope.get<{ Params: { id: string } }>("/account/:id/fetch", async (req, reply) => {
      const res = await client.getAccount({ id: req.params.id }, call(req, reply));
      return reply.type("application/json").send(fromCoreAccount(res.account!));
    });
    scope.post<{ Params: { id: string } }>("/account/:id/update", async (req, reply) => {
      const res = await client.updateAccount(toCoreAccountUpdate(req.params.id, parse(wire.accountUpdate, req.body)), call(req, reply));
      return reply.type("application/json").send(fromCoreAccount(res.account!));
    });
  };

  await app.register(routes, { prefix: "/ib" });
  await app.register(routes, { prefix: "/mj" });
};
