// buildApp(deps) -> a FastifyInstance with every HTTP surface, not listening:
// the wire-format facades, Connect and gRPC-Web for the core services, tRPC,
// health, readiness and metrics.
import type { Socket } from "node:net";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from "@trpc/server/adapters/fastify";
import { appRouter, type AppRouter } from "../trpc/router.js";
import { trpcContextFactory } from "../trpc/context.js";
import { consoleRoute } from "./console.js";
import type { AppDeps } from "./deps.js";
import { randomHex } from "../lib/ids.js";
import { facades } from "./facades.js";
import { lazyChildLogger } from "./request-logger.js";
import { filesRoute } from "./files-route.js";
import { upstreamNotifyRoute } from "./upstream-notify-route.js";
import { wireConstraint, wireOf } from "./wire-constraint.js";
import { badUrlMessage, badUrlReply, overloadedReply, under, unknownUrlReply } from "./bad-url.js";
import { useFacadeJsonParser } from "./json-body.js";
import { decodeRequestBody } from "./request-encoding.js";
import { corsHook } from "./cors.js";
import { logRefusals } from "./refusal-log.js";
import { limitConnections, serverTimeouts } from "./connection-limit.js";
import { trpcErrorHandler } from "../trpc/http-errors.js";
import { keyCheck, rpcLimits, unauthenticatedAnswer } from "./rpc-edge.js";
import { answerUpgrades } from "./upgrade.js";

const SAFE_ID = /^[\w.:-]{1,128}$/;

export function requestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers["request-id"] ?? req.headers["x-request-id"];
  if (typeof given === "string" && SAFE_ID.test(given)) return given;
  return "req_" + randomHex(12);
}

/** Paths a reserve connection may ask (connection-limit.ts). */
const isHealthCheck = (url: string) => under(url, "/healthz") || under(url, "/readyz");

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const timeouts = serverTimeouts(config);
  // Made before the deps (logger.ts): the task runner logs through it too.
  const loggerInstance: FastifyBaseLogger = deps.log;
  const app = Fastify({
    loggerInstance,
    genReqId: (req) => requestId(req),
    childLoggerFactory: lazyChildLogger,
    logController: new LogController({ requestIdLogLabel: "requestId" }),
    bodyLimit: config.bodyLimitBytes,
    // Slow or silent clients are cut (connection-limit.ts): fastify sets the last two on the server itself.
    http: timeouts,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    requestTimeout: timeouts.requestTimeout,
    return503OnClosing: true,
    // tRPC batches put every procedure name of a batch into one path parameter ("a.b,c.d,..."): 100 characters is too few.
    routerOptions: { constraints: { wire: wireConstraint }, maxParamLength: 5000 },
    // A URL the router cannot take (bad percent-encoding, an over-long segment): the owning format's 400 (bad-url.ts).
    frameworkErrors: (err, req, res) => {
      // fastify types this reply with its generic defaults, which take no status code.
      const reply = res as unknown as FastifyReply;
      const message = badUrlMessage(err.code, req.url.split("?")[0]!);
      if (message === undefined) return reply.code(err.statusCode ?? 500).send(err);
      const r = badUrlReply(req.url, wireOf(req.raw), req.id, message);
      // No hook has run either: the request-id header the onRequest hook below sets on every other answer.
      return reply.code(r.status).header("request-id", req.id).type("application/json").send(r.body);
    },
  });

  // Each connection's answers leave at the end of the loop's turn (write-coalescer.ts).
  if (deps.writes) {
    const writes = deps.writes;
    app.server.on("connection", (socket: Socket) => writes.attach(socket));
  }

  const connections = limitConnections(app.server, config.maxConnections);
  // WebSocket upgrades: a 426 where a client falls back to HTTP (upgrade.ts).
  answerUpgrades(app.server, requestId);

  // Per-request hooks in callback style: an async hook costs a promise and a
  // microtask on every request.
  app.addHook("onRequest", (req, reply, done) => {
    reply.header("request-id", req.id);
    if (connections.reserved(req.raw.socket)) {
      // A connection past the ordinary cap: a health check is answered, anything else gets the format's 503; both close it.
      reply.header("connection", "close");
      if (isHealthCheck(req.url)) return done();
      const r = overloadedReply(req.url, wireOf(req.raw), req.id);
      reply.code(r.status).header("retry-after", "1").type("application/json").send(r.body);
      return;
    }
    done();
  });
  // A refused request says why in the log (refusal-log.ts).
  app.addHook("onSend", logRefusals);
  app.addHook("onResponse", (req, reply, done) => {
    deps.metrics.http(req.method, req.routeOptions.url ?? "unmatched", reply.statusCode, reply.elapsedTime / 1000);
    // While shutting down, a keep-alive connection that just finished its last
    // in-flight response is closed at once instead of idling until its timeout.
    if (deps.lifecycle.shuttingDown) setImmediate(() => app.server.closeIdleConnections());
    done();
  });

  app.addHook("onClose", async () => {
    if (deps.stateRefresh) clearInterval(deps.stateRefresh);
    await deps.chat.close();
    await deps.embeddings.close();
  });
  app.addHook("onClose", async () => {
    await deps.limiter.close();
    await deps.keySignal?.close();
  });
  app.addHook("onClose", async () => {
    await deps.tasks.close();
  });
  app.addHook("onClose", async () => {
    await deps.videos.close();
  });
  app.addHook("onClose", async () => {
    deps.responseSweeper.stop();
    deps.files.sweeper.stop();
    await deps.images.close();
  });

  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, reply) => {
    if (deps.lifecycle.shuttingDown) return reply.code(503).send({ status: "shutting down" });
    try {
      await deps.storage.migrations();
    } catch {
      return reply.code(503).send({ status: "storage unavailable" });
    }
    return { status: "ready" };
  });
  app.get("/metrics", async (_req, reply) => {
    reply.header("content-type", deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });

  // Connect and gRPC-Web over HTTP/1.1 (gRPC itself needs the h2c listener).
  // A call without a valid key is refused from its headers, before its body is read (rpc-edge.ts).
  await app.register(async (scope) => {
    const check = keyCheck(deps.auth);
    const refuse = (req: FastifyRequest, reply: FastifyReply, message: string) => {
      const a = unauthenticatedAnswer(req.headers["content-type"], message, false);
      return reply.code(a.status).headers(a.headers).send(Buffer.from(a.body));
    };
    scope.addHook("onRequest", (req, reply, done) => {
      const verdict = check(req.headers.authorization);
      if (verdict === undefined) return done();
      if (typeof verdict === "string") return refuse(req, reply, verdict);
      verdict.then(
        (why) => (why === undefined ? done() : refuse(req, reply, why)),
        (err: unknown) => done(err as Error),
      );
    });
    await scope.register(fastifyConnectPlugin, { routes: deps.core.routes, ...rpcLimits(config.bodyLimitBytes) });
  });

  const trpcContext = trpcContextFactory(deps);
  // Live subscriptions never end by themselves: end them before the server waits for its connections.
  app.addHook("preClose", async () => trpcContext.close());
  // A path no route and no facade's own not-found handler took: the 404 of the format whose client sent it.
  // Under /v1 it is the wire formats' ground, so a browser's preflight for a shared path such as GET /v1/models
  // (whose routes have no scope of their own to hold a not-found handler) is answered as in the facades' scope.
  const cors = config.corsOrigins.length ? corsHook(config.corsOrigins) : undefined;
  const notFound = (req: FastifyRequest, reply: FastifyReply) => {
    const send = () => {
      const r = unknownUrlReply(req.url, wireOf(req.raw), req.id, req.method);
      reply.code(r.status).type("application/json").send(r.body);
    };
    if (cors && under(req.url, "/v1")) cors(req, reply, send);
    else send();
    return reply;
  };
  app.setNotFoundHandler(notFound);
  // A path nobody serves is answered the same whatever its body: fastify parses a body (an OPTIONS with a JSON
  // content type and none) before the not-found handler, and its refusal must not replace the 404 or the preflight.
  // Every other error goes on to fastify's own handler, as before.
  app.setErrorHandler((err, req, reply) => (req.is404 ? notFound(req, reply) : reply.send(err)));

  const trpcOptions = {
    router: appRouter,
    createContext: trpcContext,
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") app.log.error({ err: error.cause ?? error, path }, "trpc error");
    },
  } satisfies FastifyTRPCPluginOptions<AppRouter>["trpcOptions"];
  await app.register(async (scope) => {
    // What fastify refuses before tRPC runs (a body over bodyLimit) in tRPC's own error shape (trpc/http-errors.ts).
    scope.setErrorHandler(trpcErrorHandler(trpcOptions));
    await scope.register(fastifyTRPCPlugin, { prefix: "/trpc", trpcOptions });
  });

  await app.register(filesRoute, { deps });
  await app.register(consoleRoute);
  await app.register(upstreamNotifyRoute, { deps });
  // The wire formats in one scope that decompresses request bodies (request-encoding.ts) and allows
  // cross-origin calls (cors.ts); Connect, tRPC and the rest stay outside it.
  await app.register(async (scope) => {
    scope.addHook("preParsing", decodeRequestBody);
    useFacadeJsonParser(scope);
    if (cors) scope.addHook("onRequest", cors);
    for (const f of facades) await scope.register(f.plugin, { deps, openaiUnknownUrl: (url, requestId, method) => unknownUrlReply(url, "openai", requestId, method) });
  });

  return app;
}
