// Starts a real gateway in-process on random ports, with a fresh data dir and a
// known admin key. Every test that needs a server uses this.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { configSchema, type ChannelConfig, type Config } from "../../src/config.js";
import { ensureKeys } from "../../src/core/auth/bootstrap.js";
import { buildApp } from "../../src/server/app.js";
import { createDeps, type AppDeps } from "../../src/server/deps.js";
import { startGrpcListener, type GrpcListener } from "../../src/server/grpc-listener.js";

export const ADMIN_KEY = "sk-test-admin-0123456789";

/** Upstream settings for tests against fake upstreams: one attempt, short timeouts. */
export const ONE_ATTEMPT = {
  connectTimeoutMs: 1000,
  firstByteTimeoutMs: 5000,
  chunkTimeoutMs: 5000,
  retries: 0,
  maxAttempts: 1,
  backoffMs: 1,
  maxBackoffMs: 10,
  cooldownMs: 60_000,
  cooldownAfterFailures: 2,
  connections: 4,
};

/** A channel serving `models` from `baseUrl`, keyed `key-<name>`. */
export function testChannel(name: string, provider: ChannelConfig["provider"], baseUrl: string, models: string[]): ChannelConfig {
  return { name, provider, baseUrl, apiKey: `key-${name}`, models, modelMap: {}, priority: 0, weight: 1, enabled: true };
}

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

export async function startServer(opts: { config?: Partial<Config>; grpc?: boolean; now?: () => number; dataDir?: string; keepDataDir?: boolean } = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDir();
  const config = configSchema.parse({ port: 0, grpcPort: 0, host: "127.0.0.1", dataDir, logLevel: "silent", bootstrapKey: ADMIN_KEY, ...opts.config });
  const deps = await createDeps(config, opts.now ? { now: opts.now } : {});
  await ensureKeys(deps.storage.keys, { bootstrapKey: config.bootstrapKey });
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as AddressInfo).port;
  const grpc = opts.grpc ? await startGrpcListener(deps, "127.0.0.1", 0) : undefined;
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
