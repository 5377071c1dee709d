// The h2c listener: the core services over gRPC (and Connect over HTTP/2),
// and gRPC server reflection (grpc-reflection.ts), which needs no key.
// Node's h2c has no HTTP/1 fallback, so HTTP/1.1 traffic stays on the main port.
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { AppDeps } from "./deps.js";
import { keyCheck, rpcLimits, unauthenticatedAnswer } from "./rpc-edge.js";
import { reflectionRoutes, servicesOf } from "./grpc-reflection.js";

const REFLECTION = /^\/grpc\.reflection\.v1(?:alpha)?\.ServerReflection\//;

export interface GrpcListener {
  server: http2.Http2Server;
  port: number;
  /** Stops accepting, lets open streams finish, and resolves when all sessions closed (or were destroyed after graceMs). */
  close(graceMs: number): Promise<void>;
}

/** Refuses a call without a valid key from its headers, before its body is read; passes the rest to `handler`. */
function keyed(check: ReturnType<typeof keyCheck>, handler: (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void) {
  const refuse = (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse, message: string) => {
    const a = unauthenticatedAnswer(req.headers["content-type"], message, true);
    res.writeHead(a.status, a.headers);
    if (a.trailers) res.addTrailers(a.trailers);
    res.end(a.body);
  };
  return (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => {
    const verdict = check(req.headers.authorization);
    if (verdict === undefined) return handler(req, res);
    if (typeof verdict === "string") return refuse(req, res, verdict);
    verdict.then(
      (why) => (why === undefined ? handler(req, res) : refuse(req, res, why)),
      () => refuse(req, res, "API key could not be checked"),
    );
  };
}

/**
 * Bounds the listener's sessions (config grpcMaxSessions, grpcIdleTimeoutMs; 0: no bound): idle or byte-less
 * sessions must not hold file descriptors for ever. Past `maxSessions`, Node closes a connection as soon as
 * it is accepted (h2c has no health path to keep room for). A session with no frame either way for
 * `idleTimeoutMs` gets GOAWAY, which closes it at once when no stream is open and lets open streams finish;
 * still silent as long again, it is destroyed. An answer that streams is never idle, so it is never cut.
 */
export function limitSessions(server: http2.Http2Server, maxSessions: number, idleTimeoutMs: number): void {
  if (maxSessions > 0) server.maxConnections = maxSessions;
  if (idleTimeoutMs <= 0) return;
  // Node arms each new session's inactivity timer with this and, with a listener here, leaves the session to it.
  server.setTimeout(idleTimeoutMs);
  server.on("timeout", (session: http2.ServerHttp2Session) => {
    session.close();
    session.setTimeout(idleTimeoutMs, () => session.destroy());
  });
}

export async function startGrpcListener(deps: Pick<AppDeps, "core" | "auth" | "config">, host: string, port: number): Promise<GrpcListener> {
  const { core, config } = deps;
  const sessions = new Set<http2.ServerHttp2Session>();
  const limits = rpcLimits(config.bodyLimitBytes);
  const calls = keyed(keyCheck(deps.auth), connectNodeAdapter({ routes: core.routes, ...limits }));
  const reflection = connectNodeAdapter({ routes: reflectionRoutes(servicesOf(core.routes)), ...limits });
  const server = http2.createServer((req, res) => (REFLECTION.test(req.url) ? reflection(req, res) : calls(req, res)));
  server.on("session", (s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  limitSessions(server, config.grpcMaxSessions, config.grpcIdleTimeoutMs);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close(graceMs) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          for (const s of sessions) s.destroy();
        }, graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        // GOAWAY: no new streams, open ones run to completion.
        for (const s of sessions) s.close();
      });
    },
  };
}
