// POST /v1/images/generations (JSON), /v1/images/edits and /v1/images/variations
// (multipart), in the OpenAI Images shape, through the core's ImageService;
// generations and edits with `stream: true` as server-sent events (sse.ts).
// Multipart parsing, hooks and the error handler stay inside this plugin; every
// failure under /v1/images, unknown routes included, answers in the OpenAI
// error shape.
import multipart from "@fastify/multipart";
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ConnectError } from "@connectrpc/connect";
import { bearerToken } from "../../core/auth/bearer.js";
import { MAX_INPUT_BYTES, MAX_INPUT_IMAGES, MAX_MASK_BYTES, modelResolver } from "../../core/image/profiles.js";
import type { FacadeOptions } from "../shared/options.js";
import { edgeCall } from "../shared/call.js";
import { closeIfUnread } from "../shared/upload-cap.js";
import { facadeError, FacadeError, fromConnectError, wireError, type WireError } from "./errors.js";
import { readForm, typedFields } from "./multipart.js";
import { writeImagesStream, type StreamMessage } from "./sse.js";
import { fromCoreBatch, toCoreEdit, toCoreGenerate, toCoreStreamEdit, toCoreStreamGenerate, toCoreVariation } from "./translate.js";
import * as wire from "./wire.js";
import { withBodyCheckFinding } from "../shared/body-check.js";

/** The format name keys are scoped by (core/tenancy/scope.ts). */
const FORMAT = "images";
/** Quiet time after which a stream gets a keep-alive comment. */
const HEARTBEAT_MS = 15_000;

function send(req: FastifyRequest, reply: FastifyReply, e: WireError): FastifyReply {
  closeIfUnread(req, reply);
  return reply.code(e.status).headers(e.headers).type("application/json").send(e.body);
}

/** Any error under /v1/images -> the OpenAI shape. */
function toWire(err: unknown): WireError {
  if (err instanceof FacadeError) return err.wire;
  if (err instanceof ConnectError) return fromConnectError(err);
  const e = err as FastifyError;
  switch (e?.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return wireError(400, withBodyCheckFinding("We could not parse the JSON body of your request. The body must be a valid JSON object.", err), null, "invalid_json");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return wireError(413, "The request body is too large.", null, "request_too_large");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return wireError(415, "Unsupported Content-Type; send application/json (generations) or multipart/form-data (edits, variations).", null, "invalid_content_type");
  }
  if (e instanceof SyntaxError || (e?.statusCode === 400 && /JSON/i.test(e.message))) {
    return wireError(400, "We could not parse the JSON body of your request. The body must be a valid JSON object.", null, "invalid_json");
  }
  if (typeof e?.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) return wireError(e.statusCode, "The request could not be processed.", null, null);
  return wireError(500, "The server had an error while processing your request.", null, null, "server_error");
}

function parse<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: import("zod").ZodError } }, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) {
    const e = wire.describeIssue(r.error, input);
    throw new FacadeError({ status: 400, body: { error: e }, headers: {} });
  }
  return r.data;
}

export const openaiImagesFacade: FastifyPluginAsync<FacadeOptions> = async (app, { deps }) => {
  const { images } = deps.core.clients;
  const models = modelResolver(deps.config.images.aliases);
  const formLimits = (op: "edit" | "variation") => ({
    maxImageBytes: op === "edit" ? MAX_INPUT_BYTES : 4 * 1024 * 1024,
    maxMaskBytes: MAX_MASK_BYTES,
    maxTotalBytes: Math.max(deps.config.bodyLimitBytes, MAX_INPUT_BYTES + MAX_MASK_BYTES),
    maxFiles: MAX_INPUT_IMAGES + 1,
    maxFieldBytes: 256 * 1024,
    imageBytesFor: (model: string) => models.resolve(model)?.profile[op]?.maxBytes,
  });

  const call = (req: FastifyRequest, reply: FastifyReply) => edgeCall(req, reply, FORMAT, bearerToken(req.headers.authorization));

  /**
   * A streamed call: the first message is read before the 200 goes out, so
   * that errors the core raises up front (validation, a model that does not
   * stream, budgets) keep their status; the rest goes out as server-sent events.
   */
  async function stream(req: FastifyRequest, reply: FastifyReply, prefix: wire.StreamPrefix, it: AsyncIterator<StreamMessage>): Promise<void> {
    const first = await it.next();
    reply.hijack();
    for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) reply.raw.setHeader(k, v);
    reply.raw.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" });
    const onError = (err: unknown) => {
      if (toWire(err).status >= 500) req.log.warn({ err }, "openai images stream failed after the 200");
    };
    void writeImagesStream(it, first, reply.raw, { prefix, heartbeatMs: HEARTBEAT_MS, onError }).catch((err: unknown) => req.log.error({ err }, "openai images stream failed"));
  }

  await app.register(
    async (scope: FastifyInstance) => {
      await scope.register(multipart, { throwFileSizeLimit: false });

      scope.addHook("onRequest", async (req, reply) => {
        reply.header("x-request-id", req.id);
        if (!bearerToken(req.headers.authorization)) {
          return send(
            req,
            reply,
            wireError(401, "You didn't provide an API key. Provide it in the Authorization header (Bearer auth), e.g. 'Authorization: Bearer YOUR_KEY'.", null, "invalid_api_key"),
          );
        }
      });

      scope.setErrorHandler((err, req, reply) => {
        const e = toWire(err);
        if (e.status >= 500) req.log.error({ err }, "openai images facade error");
        return send(req, reply, e);
      });

      scope.setNotFoundHandler((req, reply) => send(req, reply, wireError(404, `Invalid URL (${req.method} ${req.url.split("?")[0]})`, null, "unknown_url")));

      scope.post("/generations", async (req, reply) => {
        if (req.isMultipart()) throw facadeError(400, "Invalid Content-Type header (multipart/form-data), expected application/json.", null, "invalid_content_type");
        if (!/^application\/([\w.+-]*\+)?json\b/i.test(req.headers["content-type"] ?? "")) {
          throw facadeError(415, `Invalid Content-Type header (${req.headers["content-type"] ?? "none"}), expected application/json.`, null, "invalid_content_type");
        }
        const body = parse(wire.generationsBody, req.body);
        if (body.stream) return stream(req, reply, "image_generation", images.streamGenerateImages(toCoreStreamGenerate(body), call(req, reply))[Symbol.asyncIterator]());
        const res = await images.generateImages(toCoreGenerate(body), call(req, reply));
        return reply.type("application/json").send(fromCoreBatch(res.batch));
      });

      scope.post("/edits", async (req, reply) => {
        const form = await readForm(req, formLimits("edit"));
        const body = parse(wire.editFields, typedFields(omitFiles(form.fields), wire.NUMERIC_FIELDS, wire.BOOLEAN_FIELDS));
        const imgs = form.files.filter((f) => wire.IMAGE_FIELD.test(f.field));
        const mask = form.files.find((f) => f.field === "mask");
        const stray = form.files.find((f) => !wire.IMAGE_FIELD.test(f.field) && f.field !== "mask");
        if (stray) throw facadeError(400, `Unknown parameter: '${stray.field}'.`, stray.field, "unknown_parameter");
        if (!imgs.length) throw facadeError(400, "Missing required parameter: 'image'.", "image", "missing_required_parameter");
        if (body.stream) return stream(req, reply, "image_edit", images.streamEditImages(toCoreStreamEdit(body, imgs, mask), call(req, reply))[Symbol.asyncIterator]());
        const res = await images.editImages(toCoreEdit(body, imgs, mask), call(req, reply));
        return reply.type("application/json").send(fromCoreBatch(res.batch));
      });

      scope.post("/variations", async (req, reply) => {
        const form = await readForm(req, formLimits("variation"));
        const body = parse(wire.variationFields, typedFields(omitFiles(form.fields), wire.NUMERIC_FIELDS, wire.BOOLEAN_FIELDS));
        const stray = form.files.find((f) => f.field !== "image");
        if (stray) {
          if (wire.IMAGE_FIELD.test(stray.field) || stray.field === "mask") throw facadeError(400, "Variations take exactly one file, in the field 'image'.", "image", "too_many_images");
          throw facadeError(400, `Unknown parameter: '${stray.field}'.`, stray.field, "unknown_parameter");
        }
        const imgs = form.files.filter((f) => f.field === "image");
        if (!imgs.length) throw facadeError(400, "Missing required parameter: 'image'.", "image", "missing_required_parameter");
        if (imgs.length > 1) throw facadeError(400, "Variations take exactly one file, in the field 'image'.", "image", "too_many_images");
        const res = await images.createImageVariations(toCoreVariation(body, imgs[0]!), call(req, reply));
        return reply.type("application/json").send(fromCoreBatch(res.batch));
      });
    },
    { prefix: "/v1/images" },
  );
};

/** Text fields named like file fields (e.g. image sent as text) are not parameters of their own. */
function omitFiles(fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) if (!wire.IMAGE_FIELD.test(k) && k !== "mask") out[k] = v;
  return out;
}
