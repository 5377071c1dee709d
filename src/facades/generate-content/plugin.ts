// The generate-content facade (Gemini wire format) under /v1beta and /v1 (the
// 3.x GenAI SDK calls /v1): models/{model}:generateContent,
// :streamGenerateContent (alt=sse or a JSON array), :countTokens,
// :embedContent and :batchEmbedContents (embed.ts), GET models, and the
// cachedContents resource. It validates, translates to the neutral
// chat model, calls the core, and translates back; errors leave as
// google.rpc.Status bodies from ./errors.ts. The key is checked first, from
// the headers: a wrong one gets Google's 400 API_KEY_INVALID whatever the body holds.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from "fastify";
import { keyIsValid, type Authenticator } from "../../core/auth/authenticator.js";
import type { z } from "zod";
import { Capability } from "../../../gen/omnigate/model/v1/model_pb.js";
import { bearerToken } from "../../core/auth/bearer.js";
import type { CallInit } from "../../core/call/call.js";
import { invalidArgument, unauthenticated } from "../../core/errors.js";
import { promiseOf } from "../../core/iter.js";
import type { FacadeOptions } from "../shared/options.js";
import { edgeCall } from "../shared/call.js";
import { closeIfUnread } from "../shared/upload-cap.js";
import { fromCoreCachedContent, toCoreCachedContent, toCoreExpiry } from "./cached-contents.js";
import { apiKeyInvalidError, atOrigin, fromZodError, notFoundError, toWireError, unauthenticatedError, type WireError } from "./errors.js";
import { embedErrorAt, fromCoreBatchEmbed, fromCoreEmbed, toCoreBatchEmbed, toCoreEmbed } from "./embed.js";
import { fileRoutes, uploadRoutes, type GeminiFilesOptions } from "./files.js";
import { DEFAULT_PAGE_SIZE, fromCoreModel, modelId } from "./models.js";
import { ChunkWriter, CONTENT_TYPES, primeStream, pumpStream, type StreamMode } from "./sse.js";
import { GenerateContentStreamTranslator } from "./stream.js";
import { SOURCE_FORMAT, responseOptions, toCoreRequest } from "./translate.js";
import { fromCoreCountTokens, fromCoreResponse } from "./translate-response.js";
import * as wire from "./wire.js";

type Query = Record<string, string | string[] | undefined>;

function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  // Parse options cost zod its fast path: a valid body is parsed without them,
  // an invalid one again with them for the error details.
  const ok = schema.safeParse(body);
  if (ok.success) return ok.data;
  const r = schema.safeParse(body, { reportInput: true });
  if (!r.success) throw r.error;
  return r.data;
}

const queryValue = (req: FastifyRequest, ...names: string[]): string | undefined => {
  const q = (req.query ?? {}) as Query;
  for (const n of names) {
    const v = q[n];
    if (typeof v === "string") return v;
    if (Array.isArray(v)) return v[0];
  }
  return undefined;
};

/** The API key: ?key= (spec), x-goog-api-key (what the SDK sends), or a Bearer token. */
function keyOf(req: FastifyRequest): string | undefined {
  const h = req.headers["x-goog-api-key"];
  return (typeof h === "string" ? h : undefined) || queryValue(req, "key") || bearerToken(req.headers.authorization);
}

function apiKey(req: FastifyRequest): string {
  const key = keyOf(req);
  if (!key) {
    throw unauthenticated(
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      "credentials_missing",
    );
  }
  return key;
}

function pageSize(req: FastifyRequest): number {
  const v = queryValue(req, "pageSize", "page_size");
  if (v === undefined || v === "") return 0;
  if (!/^\d{1,9}$/.test(v)) throw invalidArgument(`pageSize: ${JSON.stringify(v)} is not a non-negative integer`, "pageSize");
  return Number(v);
}

export function sendWireError(reply: FastifyReply, w: WireError): FastifyReply {
  return reply.code(w.httpStatus).headers(w.headers).type("application/json; charset=utf-8").send(w.body);
}

/**
 * An onRequest hook that checks the key before the body is read: missing, 401
 * UNAUTHENTICATED; unknown, Google's 400 API_KEY_INVALID. Callback-style, and
 * synchronous when the key cache knows the key (no promise per request).
 */
function keyChecks(auth: Authenticator) {
  const refuse = (req: FastifyRequest, reply: FastifyReply, w: WireError) => {
    closeIfUnread(req, reply);
    sendWireError(reply, w);
  };
  return (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void => {
    const key = keyOf(req);
    if (!key) return refuse(req, reply, unauthenticatedError());
    const valid = keyIsValid(auth, key);
    if (valid === true) return done();
    if (valid === false) return refuse(req, reply, apiKeyInvalidError());
    valid.then((ok) => (ok ? done() : refuse(req, reply, apiKeyInvalidError())), done);
  };
}

export async function generateContentFacade(app: FastifyInstance, { deps }: FacadeOptions): Promise<void> {
  const { chat, models, files, embeddings } = deps.core.clients;
  const bodyLimit = deps.config.bodyLimitBytes;
  const call = (req: FastifyRequest, reply: FastifyReply) => edgeCall(req, reply, SOURCE_FORMAT, apiKey(req));
  const filesApi: GeminiFilesOptions = {
    files,
    maxBytes: deps.config.fileMaxBytes,
    publicUrl: deps.config.publicUrl,
    call,
    apiKey,
    now: deps.now,
  };

  app.setErrorHandler((err, req, reply) => {
    const w = toWireError(err, bodyLimit);
    if (w.httpStatus >= 500) req.log.error({ err }, "generate-content request failed");
    return sendWireError(reply, w);
  });

  // A promise chain, not an async frame: with the route's handler passing it
  // straight to fastify, a call makes two promises instead of five.
  function generate(req: FastifyRequest, _reply: FastifyReply, model: string, opts: CallInit) {
    return promiseOf(() => {
      const body = parse(wire.generateContentRequest, req.body);
      const { input, origins } = toCoreRequest(body, model);
      return chat.generate({ input }, opts).then(
        (resp) => fromCoreResponse(resp, responseOptions(body)),
        (err: unknown) => {
          throw atOrigin(err, origins);
        },
      );
    });
  }

  async function streamGenerate(req: FastifyRequest, reply: FastifyReply, model: string, opts: CallInit) {
    const alt = queryValue(req, "alt");
    if (alt !== undefined && alt !== "sse" && alt !== "json") throw invalidArgument(`alt: ${JSON.stringify(alt)} is not supported; use sse or json`, "alt");
    const mode: StreamMode = alt === "sse" ? "sse" : "array";
    const body = parse(wire.generateContentRequest, req.body);
    const { input, origins } = toCoreRequest(body, model);
    const it = chat.streamGenerate({ input }, opts)[Symbol.asyncIterator]();
    const t = new GenerateContentStreamTranslator(responseOptions(body));
    const primed = await primeStream(it, t).catch((err: unknown) => {
      throw atOrigin(err, origins);
    });
    // The chunks go straight to the socket (no stream in between); the
    // onResponse hooks still run when the response finishes.
    reply.hijack();
    for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) reply.raw.setHeader(k, v);
    reply.raw.writeHead(200, { "content-type": CONTENT_TYPES[mode], "cache-control": "no-cache", "x-accel-buffering": "no" });
    const w = new ChunkWriter(mode, reply.raw);
    void pumpStream(it, t, w, primed, (err) => {
      const we = toWireError(atOrigin(err, origins), bodyLimit);
      if (we.httpStatus >= 500) req.log.warn({ err }, "generate-content stream failed");
      return we.body;
    });
    return reply;
  }

  async function countTokens(req: FastifyRequest, _reply: FastifyReply, model: string, opts: CallInit) {
    const body = parse(wire.countTokensRequest, req.body);
    if (body.contents && body.generateContentRequest) throw invalidArgument("set contents or generateContentRequest, not both", "generateContentRequest");
    const gcr = body.generateContentRequest ?? (body.contents ? { contents: body.contents } : undefined);
    if (!gcr) throw invalidArgument("contents: contents is not specified", "contents");
    if (body.generateContentRequest?.model && modelId(body.generateContentRequest.model) !== model) {
      throw invalidArgument("generateContentRequest.model must name the model of the path", "generateContentRequest.model");
    }
    const { input, origins } = toCoreRequest(gcr, model);
    const r = await chat.countTokens({ input }, opts).catch((err: unknown) => {
      throw atOrigin(err, origins);
    });
    return fromCoreCountTokens(r);
  }

  /** :embedContent (one content) and :batchEmbedContents (several), one core call each. */
  function embed(batch: boolean) {
    return (req: FastifyRequest, reply: FastifyReply, model: string, opts: CallInit): Promise<unknown> =>
      promiseOf(() => {
        const r = batch ? wire.batchEmbedContentsRequest.safeParse(req.body, { reportInput: true }) : wire.embedContentRequest.safeParse(req.body, { reportInput: true });
        if (!r.success) return Promise.resolve(sendWireError(reply, fromZodError(r.error, "", batch ? "BatchEmbedContentsRequest" : "EmbedContentRequest")));
        const request = batch ? toCoreBatchEmbed(r.data as wire.BatchEmbedContentsRequest, model) : toCoreEmbed(r.data as wire.EmbedContentRequest, model);
        return embeddings.embed(request, opts).then(
          (res): unknown => (batch ? fromCoreBatchEmbed(res) : fromCoreEmbed(res)),
          (err: unknown) => {
            throw embedErrorAt(err, batch);
          },
        );
      });
  }

  const ACTIONS: Record<string, (req: FastifyRequest, reply: FastifyReply, model: string, opts: CallInit) => Promise<unknown>> = {
    generateContent: generate,
    streamGenerateContent: streamGenerate,
    countTokens,
    embedContent: embed(false),
    batchEmbedContents: embed(true),
  };

  const onRequest = keyChecks(deps.auth);

  /** Routes under one version prefix; `constrained` carries the wire constraint on shared /v1 paths. */
  const routes = async (scope: FastifyInstance, constrained: RouteShorthandOptions, version: string) => {
    const modelsOpts = { ...constrained, onRequest };
    const keyed = { onRequest };
    fileRoutes(scope, filesApi, version, modelsOpts);

    scope.get("/models", modelsOpts, async (req, reply) => {
      const r = await models.listModels(
        { pageSize: pageSize(req) || DEFAULT_PAGE_SIZE, pageToken: queryValue(req, "pageToken", "page_token") ?? "", anyCapability: [Capability.CHAT, Capability.EMBEDDING] },
        call(req, reply),
      );
      return { models: r.models.map(fromCoreModel), ...(r.nextPageToken ? { nextPageToken: r.nextPageToken } : {}) };
    });

    scope.get<{ Params: { id: string } }>("/models/:id", modelsOpts, async (req, reply) => {
      const opts = call(req, reply);
      const id = modelId(req.params.id);
      if (id.includes(":")) return sendWireError(reply, notFoundError(`Method not found: GET models/${id}`));
      const r = await models.getModel({ id }, opts);
      if (!r.model || !(r.model.capabilities.includes(Capability.CHAT) || r.model.capabilities.includes(Capability.EMBEDDING))) {
        return sendWireError(reply, notFoundError(`models/${id} is not found or is not a chat or embedding model`));
      }
      return fromCoreModel(r.model);
    });

    // Not async: the action's promise goes to fastify as it is (an async
    // handler returning it would add a promise and two turns).
    scope.post<{ Params: { id: string } }>("/models/:id", modelsOpts, (req, reply) => {
      const opts = call(req, reply);
      const segment = req.params.id;
      const at = segment.lastIndexOf(":");
      const action = at >= 0 ? ACTIONS[segment.slice(at + 1)] : undefined;
      if (!action) return sendWireError(reply, notFoundError(`Method not found: POST models/${segment}`));
      return action(req, reply, modelId(segment.slice(0, at)), opts);
    });

    scope.post("/cachedContents", keyed, async (req, reply) => {
      const opts = call(req, reply);
      const body = parse(wire.cachedContent, req.body);
      const r = await chat.createCachedContent(toCoreCachedContent(body), opts);
      return fromCoreCachedContent(r.cachedContent!);
    });

    scope.get("/cachedContents", keyed, async (req, reply) => {
      const opts = call(req, reply);
      const r = await chat.listCachedContents({ pageSize: pageSize(req), pageToken: queryValue(req, "pageToken", "page_token") ?? "" }, opts);
      return { cachedContents: r.cachedContents.map(fromCoreCachedContent), ...(r.nextPageToken ? { nextPageToken: r.nextPageToken } : {}) };
    });

    scope.get<{ Params: { id: string } }>("/cachedContents/:id", keyed, async (req, reply) => {
      const r = await chat.getCachedContent({ name: `cachedContents/${req.params.id}` }, call(req, reply));
      return fromCoreCachedContent(r.cachedContent!);
    });

    scope.patch<{ Params: { id: string } }>("/cachedContents/:id", keyed, async (req, reply) => {
      const opts = call(req, reply);
      const body = parse(wire.cachedContentPatch, req.body ?? {});
      const expiry = toCoreExpiry(body, queryValue(req, "updateMask", "update_mask"));
      const r = await chat.updateCachedContent({ name: `cachedContents/${req.params.id}`, ...expiry }, opts);
      return fromCoreCachedContent(r.cachedContent!);
    });

    scope.delete<{ Params: { id: string } }>("/cachedContents/:id", keyed, async (req, reply) => {
      await chat.deleteCachedContent({ name: `cachedContents/${req.params.id}` }, call(req, reply));
      return {};
    });
  };

  await app.register(
    async (scope) => {
      scope.setNotFoundHandler((req, reply) => sendWireError(reply, notFoundError(`Method not found: ${req.method} ${req.url.split("?")[0]}`)));
      await routes(scope, {}, "v1beta");
    },
    { prefix: "/v1beta" },
  );
  await app.register(async (scope) => routes(scope, { constraints: { wire: "gemini" } }, "v1"), { prefix: "/v1" });
  // The Files API's uploads (both versions: the 2.x SDK uploads to v1beta, the 3.x one to v1).
  for (const version of ["v1beta", "v1"]) await app.register(uploadRoutes(filesApi, version), { prefix: `/upload/${version}/files` });
}
