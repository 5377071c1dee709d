#!/usr/bin/env node
// Builds the admin console (console/) with Vite into dist/console, which the
// gateway serves at /console. `npm run build` runs it.
//
//   node scripts/build-console.mjs            build
//   node scripts/build-console.mjs --if-stale build only when the sources changed since the last build
//
// Exit codes: 0 built (or fresh), 1 the build failed, 3 Vite is not installed.
// Concurrent runs (parallel test files) take turns through a lock directory;
// the new bundle is built aside and moved into place, so a running gateway
// never serves a half-written one.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const ROOT = path.resolve(import.meta.dirname, "..");
export const CONSOLE_SRC = path.join(ROOT, "console");
export const DIST = path.join(ROOT, "dist");
export const CONSOLE_DIST = path.join(DIST, "console");
/** Hash of the sources the bundle was built from (kept outside the served directory). */
const STAMP = path.join(DIST, ".console-build-hash");
const LOCK = path.join(DIST, ".console-build.lock");
const LOCK_STALE_MS = 5 * 60_000;
/** Packages whose version changes the bundle. */
const BUNDLED = ["vite", "@vitejs/plugin-react", "react", "react-dom", "@trpc/client", "@trpc/server", "eventsource-parser"];

function files(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.name !== "node_modules" && !e.name.startsWith("."))
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

/** A hash of every console source file and of the bundled packages' versions. */
export function sourceHash() {
  const h = createHash("sha256");
  for (const f of files(CONSOLE_SRC)) h.update(path.relative(ROOT, f)).update("\0").update(readFileSync(f)).update("\0");
  for (const p of BUNDLED) {
    const pkg = path.join(ROOT, "node_modules", p, "package.json");
    h.update(p)
      .update(existsSync(pkg) ? JSON.parse(readFileSync(pkg, "utf8")).version : "-")
      .update("\0");
  }
  return h.digest("hex");
}

export function isFresh(hash = sourceHash()) {
  return existsSync(path.join(CONSOLE_DIST, "index.html")) && existsSync(STAMP) && readFileSync(STAMP, "utf8").trim() === hash;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function withLock(fn) {
  mkdirSync(DIST, { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > LOCK_STALE_MS) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // Released meanwhile.
      }
      await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

export class ViteMissingError extends Error {}

/** Builds the bundle (or, with ifStale, only when the sources changed). Returns whether it built. */
export async function buildConsole({ ifStale = false, log = (m) => process.stdout.write(`${m}\n`) } = {}) {
  return withLock(async () => {
    const hash = sourceHash();
    if (ifStale && isFresh(hash)) return false;
    let vite;
    try {
      vite = await import("vite");
    } catch (err) {
      throw new ViteMissingError(`vite is not installed (${err.message}); install the dev dependencies (npm ci) to build the console`);
    }
    const tmp = path.join(DIST, `.console-${process.pid}-${Date.now()}`);
    const started = Date.now();
    try {
      await vite.build({ configFile: path.join(CONSOLE_SRC, "vite.config.ts"), root: CONSOLE_SRC, logLevel: "warn", build: { outDir: tmp, emptyOutDir: true } });
      const old = `${tmp}-old`;
      if (existsSync(CONSOLE_DIST)) renameSync(CONSOLE_DIST, old);
      renameSync(tmp, CONSOLE_DIST);
      rmSync(old, { recursive: true, force: true });
      writeFileSync(STAMP, `${hash}\n`);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    log(`console built into ${path.relative(ROOT, CONSOLE_DIST)} in ${Date.now() - started} ms`);
    return true;
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    const built = await buildConsole({ ifStale: process.argv.includes("--if-stale") });
    if (!built) process.stdout.write("console bundle is up to date\n");
  } catch (err) {
    process.stderr.write(`build-console: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(err instanceof ViteMissingError ? 3 : 1);
  }
}
