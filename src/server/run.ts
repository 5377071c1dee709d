// Runs the gateway (main.ts loads this after its process-wide settings):
// loads config, opens storage, serves HTTP/1.1 and h2c, and shuts down
// gracefully on SIGTERM/SIGINT.
import type { AddressInfo } from "node:net";
import { ConfigError, loadConfig, publicBaseUrl, type Config } from "../config.js";
import { ensureKeys } from "../core/auth/bootstrap.js";
import { StorageError } from "../storage/types.js";
import { buildApp } from "./app.js";
import { ensureConsoleBundle } from "./console.js";
import { createDeps } from "./deps.js";
import { startGrpcListener } from "./grpc-listener.js";
import { createLogger } from "./logger.js";

function fail(message: string): never {
  process.stderr.write(`omnigate: ${message}\n`);
  process.exit(2);
}

/** Starts the gateway; `v8Flags` are the flags main.ts set, for the start-up log. */
export async function run(opts: { v8Flags: readonly string[] }): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const log = createLogger(config.logLevel);
  let deps;
  try {
    deps = await createDeps(config, { log });
  } catch (err) {
    if (err instanceof StorageError) fail(err.message);
    throw err;
  }
  const boot = await ensureKeys(deps.storage.keys, { bootstrapKey: config.bootstrapKey });
  const app = await buildApp(deps);
  await ensureConsoleBundle(app.log);
  await app.listen({ port: config.port, host: config.host });
  const httpPort = (app.server.address() as AddressInfo).port;
  const grpc = await startGrpcListener(deps, config.host, config.grpcPort);
  app.log.info({ http: httpPort, grpc: grpc.port, dataDir: config.dataDir, publicUrl: publicBaseUrl(config, httpPort), v8Flags: opts.v8Flags }, "omnigate listening");
  if (boot.generatedSecret) {
    // Printed once: the store keeps only its hash.
    process.stdout.write(
      `\nomnigate: created an admin API key (shown only this once, store it now):\n\n  ${boot.generatedSecret}\n\n` + `Set OMNIGATE_BOOTSTRAP_KEY to choose your own key instead.\n\n`,
    );
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.lifecycle.shuttingDown = true;
    app.log.info({ signal, graceMs: config.shutdownGraceMs }, "shutting down");
    const force = setTimeout(() => {
      app.log.warn("grace period over: closing remaining connections");
      app.server.closeAllConnections();
    }, config.shutdownGraceMs);
    force.unref();
    await Promise.allSettled([app.close(), grpc.close(config.shutdownGraceMs)]);
    clearTimeout(force);
    await deps.storage.close();
    app.log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
