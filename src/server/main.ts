// Process entry point: `npm start`. Loads config, opens storage, serves HTTP/1.1
// and h2c, and shuts down gracefully on SIGTERM/SIGINT.
// First: the nextTick entries' hidden class held (tick-shape.ts), and V8 flags
// that must hold before the other modules' code runs.
import "./tick-shape.js";
import { appliedV8Flags } from "./v8-flags.js";
import type { AddressInfo } from "node:net";
import { ConfigError, loadConfig, publicBaseUrl, type Config } from "../config.js";
import { ensureKeys } from "../core/auth/bootstrap.js";
import { StorageError } from "../storage/types.js";
import { buildApp } from "./app.js";
import { ensureConsoleBundle } from "./console.js";
import { createDeps } from "./deps.js";
import { startGrpcListener } from "./grpc-listener.js";

function fail(message: string): never {
  process.stderr.write(`omnigate: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  let deps;
  try {
    deps = await createDeps(config);
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
  app.log.info({ http: httpPort, grpc: grpc.port, dataDir: config.dataDir, publicUrl: publicBaseUrl(config, httpPort), v8Flags: appliedV8Flags }, "omnigate listening");
  if (boot.generatedSecret) {
    // Printed once: the store keeps only its hash.
    process.stdout.write(
      `\nomnigate: created an admin API key (shown only this once, store it now):\n\n  ${boot.generatedSecret}\n\n` +
        `Set OMNIGATE_BOOTSTRAP_KEY to choose your own key instead.\n\n`,
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

main().catch((err: unknown) => {
  process.stderr.write(`omnigate: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
