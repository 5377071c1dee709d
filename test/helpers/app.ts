// Starts a real gateway in-process on random ports, with a fresh data dir and a
// known admin key. Every test that needs a server uses this.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { configSchema, type Config } from "../../src/config.js";
import { ensureKeys } from "../../src/core/auth/bootstrap.js";
import { buildApp } from "../../src/server/app.js";
import { createDeps, type AppDeps } from "../../src/server/deps.js";
import { startGrpcListener, type GrpcListener } from "../../src/server/grpc-listener.js";

export const ADMIN_KEY = "sk-test-admin-0123456789";

export interface TestServer {
  app: FastifyInstance;
  deps: AppDeps;
  config: Config;
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  grpc?: GrpcListener;
  /** 127.0.0.1:PORT of the h2c listener, when started. */
  grpcAddress?: string;
  dataDir: string;
  close(): Promise<void>;
}

export function tempDir(prefix = "omnigate-test-"): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export async function startServer(
  opts: { config?: Partial<Config>; grpc?: boolean; now?: () => number; dataDir?: string; keepDataDir?: boolean } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDir();
  const config = configSchema.parse({ port: 0, grpcPort: 0, host: "127.0.0.1", dataDir, logLevel: "silent", bootstrapKey: ADMIN_KEY, ...opts.config });
  const deps = await createDeps(config, opts.now ? { now: opts.now } : {});
  await ensureKeys(deps.storage.keys, { bootstrapKey: config.bootstrapKey });
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as AddressInfo).port;
  const grpc = opts.grpc ? await startGrpcListener(deps.core, "127.0.0.1", 0) : undefined;
  return {
    app,
    deps,
    config,
    baseUrl: `http://127.0.0.1:${port}`,
    ...(grpc ? { grpc, grpcAddress: `127.0.0.1:${grpc.port}` } : {}),
    dataDir,
    async close() {
      await Promise.allSettled([app.close(), grpc?.close(100)]);
      await deps.storage.close();
      if (!opts.keepDataDir && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
