// The h2c listener: the core services over gRPC (and Connect over HTTP/2).
// Node's h2c has no HTTP/1 fallback, so HTTP/1.1 traffic stays on the main port.
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Core } from "../core/routes.js";

export interface GrpcListener {
  server: http2.Http2Server;
  port: number;
  /** Stops accepting, lets open streams finish, and resolves when all sessions closed (or were destroyed after graceMs). */
  close(graceMs: number): Promise<void>;
}

export async function startGrpcListener(core: Core, host: string, port: number): Promise<GrpcListener> {
  const sessions = new Set<http2.ServerHttp2Session>();
  const server = http2.createServer(connectNodeAdapter({ routes: core.routes, interceptors: core.interceptors }));
  server.on("session", (s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
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
