// The video facade: /v1/video/generations (submit and query a video task) and
// OpenAI's /v1/videos (create, retrieve, list, delete, remix, content), both
// over the core's VideoService, so a video made through one is visible through
// the other. Each wire keeps its own auth check, error body and 404 handler.
import multipart from "@fastify/multipart";
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import { bearerToken } from "../../core/auth/bearer.js";
import type { CallInit } from "../../core/call/call.js";
import type { CoreClient } from "../../core/call/service.js";
import { MAX_REFERENCE_BYTES } from "../../core/video/reference.js";
import type { FacadeOptions } from "../shared/options.js";
import { edgeCall } from "../shared/call.js";
import { closeIfUnread } from "../shared/upload-cap.js";
import { errorBody, facadeError, toErrorFields, type Wire } from "./errors.js";
import { readVideoForm } from "./multipart.js";
import { fromCoreList, fromCoreSubmit, fromCoreTask, fromCoreVideo, GENERATIONS_PARAMS, OPENAI_PARAMS, toCoreGenerations, toCoreList, toCoreVariant, toCoreVideosCreate } from "./translate.js";
import * as wire from "./wire.js";

/** The format name keys are scoped by (core/tenancy/scope.ts). */
const FORMAT = "video";

type Videos = CoreClient<typeof VideoService>;
type Call = (req: FastifyRequest, reply: FastifyReply) => CallInit;

function parse<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: import("zod").ZodError } }, input: unknown, names: Record<string, string> = {}): T {
  const r = schema.safeParse(input ?? {});
  if (!r.success) {
    const i = wire.describeIssue(r.error, input, names);
    throw facadeError(400, i.message, i.param, i.code);
  }
  return r.data;
}

/** Hooks every scope of one wire shares: request id, key presence, errors and unknown paths in the wire's shape. */
function guard(scope: FastifyInstance, which: Wire, params: Record<string, string>): void {
  const send = (reply: FastifyReply, err: unknown) => {
    const e = toErrorFields(err, params);
    closeIfUnread(reply.request, reply);
    return reply.code(e.status).headers(e.headers).type("application/json").send(errorBody(which, e));
  };
  scope.addHook("onRequest", async (req, reply) => {
    reply.header("x-request-id", req.id);
    if (!bearerToken(req.headers.authorization)) {
      return send(
        reply,
        facadeError(
          401,
          "You didn't provide an API key. Provide it in the Authorization header (Bearer auth), e.g. 'Authorization: Bearer YOUR_KEY'.",
          null,
          "invalid_api_key",
          "authentication_error",
        ),
      );
    }
  });
  scope.setErrorHandler((err, req, reply) => {
    const e = toErrorFields(err, params);
    if (e.status >= 500) req.log.error({ err }, "video facade error");
    return send(reply, err);
  });
  scope.setNotFoundHandler((req, reply) => send(reply, facadeError(404, `Invalid URL (${req.method} ${req.url.split("?")[0]})`, null, "unknown_url", "not_found_error")));
}

function checkId(id: string, param: string): string {
  if (!wire.TASK_ID.test(id)) throw facadeError(400, `Invalid '${param}': expected an id such as 'video_...'.`, param, "invalid_value");
  return id;
}

const generationsRoutes =
  (videos: Videos, call: Call): FastifyPluginAsync =>
  async (scope) => {
    guard(scope, "generations", GENERATIONS_PARAMS);

    scope.post("/", async (req, reply) => {
      const body = parse(wire.generationsBody, req.body);
      const res = await videos.createVideo(toCoreGenerations(body), call(req, reply));
      return reply.type("application/json").send(fromCoreSubmit(res.video!));
    });

    scope.get<{ Params: { task_id: string } }>("/:task_id", async (req, reply) => {
      const res = await videos.getVideo({ id: checkId(req.params.task_id, "task_id") }, call(req, reply));
      return reply.type("application/json").send(fromCoreTask(res.video!));
    });
  };

const openaiRoutes =
  (videos: Videos, call: Call): FastifyPluginAsync =>
  async (scope) => {
    await scope.register(multipart, { throwFileSizeLimit: false });
    guard(scope, "openai", OPENAI_PARAMS);

    scope.post("/", async (req, reply) => {
      let body: wire.VideosCreateBody;
      let file;
      if (req.isMultipart()) {
        const form = await readVideoForm(req, MAX_REFERENCE_BYTES);
        body = parse(wire.videosCreateBody, form.fields);
        file = form.file;
      } else body = parse(wire.videosCreateBody, req.body);
      if (body.input_reference?.file_id)
        throw facadeError(400, "input_reference[file_id] is not supported here; upload the image as 'input_reference' or give input_reference[image_url].", "input_reference", "unsupported_parameter");
      if (file && body.input_reference) throw facadeError(400, "Give input_reference either as a file or as an image_url, not both.", "input_reference", "invalid_value");
      const res = await videos.createVideo(toCoreVideosCreate(body, file), call(req, reply));
      return reply.type("application/json").send(fromCoreVideo(res.video!));
    });

    scope.get("/", async (req, reply) => {
      const q = parse(wire.listQuery, req.query);
      const res = await videos.listVideos(toCoreList(q), call(req, reply));
      return reply.type("application/json").send(fromCoreList(res));
    });

    scope.get<{ Params: { id: string } }>("/:id", async (req, reply) => {
      const res = await videos.getVideo({ id: checkId(req.params.id, "video_id") }, call(req, reply));
      return reply.type("application/json").send(fromCoreVideo(res.video!));
    });

    scope.delete<{ Params: { id: string } }>("/:id", async (req, reply) => {
      const res = await videos.deleteVideo({ id: checkId(req.params.id, "video_id") }, call(req, reply));
      return reply.type("application/json").send({ id: res.id, object: "video.deleted", deleted: res.deleted });
    });

    scope.post<{ Params: { id: string } }>("/:id/remix", async (req, reply) => {
      const id = checkId(req.params.id, "video_id");
      const body = req.isMultipart() ? parse(wire.remixBody, (await readVideoForm(req, 0)).fields) : parse(wire.remixBody, req.body);
      const res = await videos.remixVideo({ id, prompt: body.prompt }, call(req, reply));
      return reply.type("application/json").send(fromCoreVideo(res.video!));
    });

    scope.get<{ Params: { id: string } }>("/:id/content", async (req, reply) => {
      const id = checkId(req.params.id, "video_id");
      const q = parse(wire.contentQuery, req.query);
      const res = await videos.getVideoContent({ id, variant: toCoreVariant(q.variant) }, call(req, reply));
      const file = res.file!;
      return reply.type(file.mimeType).header("content-length", String(file.data.byteLength)).header("x-content-type-options", "nosniff").send(Buffer.from(file.data));
    });
  };

export const videoFacade: FastifyPluginAsync<FacadeOptions> = async (app, { deps }) => {
  const { video: videos } = deps.core.clients;
  const call: Call = (req, reply) => edgeCall(req, reply, FORMAT, bearerToken(req.headers.authorization));
  await app.register(generationsRoutes(videos, call), { prefix: "/v1/video/generations" });
  await app.register(openaiRoutes(videos, call), { prefix: "/v1/videos" });
};
