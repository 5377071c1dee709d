#!/usr/bin/env node
// `npm start`: transpiles src/ and gen/ into dist/server/<hash>/ when no fresh
// build is there (scripts/build-server.mjs; finding a fresh one costs only
// stat calls), then runs the gateway from it in this same process.
// One process, so a SIGTERM/SIGINT sent to it (systemd, docker, Ctrl-C)
// reaches the gateway's own shutdown handlers (npm's `sh -c` does not pass on
// one sent to npm alone: see README, Operations), and plain node, so no
// TypeScript loader stays resident (tsx's keeps a thread with its own V8 isolate).
// `npm run dev` runs the sources under tsx instead.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildServer, stopEsbuild } from "./build-server.mjs";

let dir;
try {
  ({ dir } = await buildServer({ log: (m) => process.stderr.write(`omnigate: ${m}\n`) }));
} catch (err) {
  // esbuild has printed its errors already.
  process.stderr.write(`omnigate: could not build the server: ${err?.errors ? "esbuild failed" : err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  // No esbuild service process stays beside the gateway.
  await stopEsbuild();
}
if (dir) await import(pathToFileURL(path.join(dir, "src", "server", "main.js")).href);
