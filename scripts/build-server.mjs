#!/usr/bin/env node
// Transpiles the gateway's TypeScript (src/**/*.ts and gen/**/*.ts) file for
// file with esbuild into dist/server/<hash>/, which `npm start`
// (scripts/start.mjs) runs with plain node. No bundling: the sources import
// each other with .js extensions (NodeNext), so the transpiled tree runs as
// is, packages resolve from the root's node_modules by walking up, and the
// root's package.json ("type": "module") makes the .js files ES modules.
//
//   node scripts/build-server.mjs               build, or find the fresh build
//   node scripts/build-server.mjs --root DIR    the same for another tree (tests)
//
// <hash> covers every source file's path, size and mtime, tsconfig.json, the
// esbuild version and the options below, so finding a fresh build costs one
// stat per file and never loads esbuild. A build is written to a temp dir
// beside its target and renamed into place, so the name <hash> only ever holds
// a complete build; when several processes build the same tree at once, the
// first rename wins and the others use its result. The KEEP most recently
// used builds stay (a running older instance may still import modules lazily
// from its own); older ones are renamed aside, then removed, best-effort.
//
// Exit codes: 0 built (or fresh), 1 the build failed.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const ROOT = path.resolve(import.meta.dirname, "..");
/** Source folders, relative to the root; their layout is kept under dist/server/<hash>/. */
export const SOURCE_DIRS = ["src", "gen"];
/** Builds kept, the one in use included. */
export const KEEP = 3;
/** Temp and removed builds left by a crashed process are cleared after this long. */
const STALE_MS = 10 * 60_000;
/** Transpile only; no source maps (--enable-source-maps costs memory, and the output keeps the source's lines nearly as they are). */
const OPTIONS = { format: "esm", platform: "node", target: "node20", bundle: false, sourcemap: false };

const require = createRequire(import.meta.url);
let esbuild;

function esbuildVersion() {
  return JSON.parse(readFileSync(require.resolve("esbuild/package.json"), "utf8")).version;
}

/** Every .ts file (declaration files aside) under the source folders, root-relative, sorted. */
export function sourceFiles(root = ROOT) {
  const walk = (rel) =>
    readdirSync(path.join(root, rel), { withFileTypes: true }).flatMap((e) => {
      const child = path.join(rel, e.name);
      if (e.isDirectory()) return e.name === "node_modules" ? [] : walk(child);
      return e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [child] : [];
    });
  return SOURCE_DIRS.filter((d) => existsSync(path.join(root, d)))
    .flatMap(walk)
    .sort();
}

/** A short hash over the files' paths, sizes and mtimes, tsconfig.json, the esbuild version and the options. */
export function sourceHash(root = ROOT, files = sourceFiles(root)) {
  const h = createHash("sha256");
  h.update(`esbuild ${esbuildVersion()}\0${JSON.stringify(OPTIONS)}\0`);
  const tsconfig = path.join(root, "tsconfig.json");
  if (existsSync(tsconfig)) h.update(readFileSync(tsconfig));
  for (const f of files) {
    const s = statSync(path.join(root, f));
    h.update(`\0${f}\0${s.size}\0${s.mtimeMs}`);
  }
  return h.digest("hex").slice(0, 16);
}

const scratch = (outRoot, kind, name) => path.join(outRoot, `.${kind}-${name}-${process.pid}-${randomBytes(4).toString("hex")}`);

/**
 * Removes builds beyond the `keep` most recently used (by the folder's mtime),
 * never `current`, plus temp folders a crashed process left. Best-effort: a
 * folder another process is removing, or cannot be removed, is skipped.
 * Returns the names of the builds it removed.
 */
export function pruneBuilds(outRoot, current, keep = KEEP) {
  let entries;
  try {
    entries = readdirSync(outRoot, { withFileTypes: true });
  } catch {
    return [];
  }
  const now = Date.now();
  const builds = [];
  for (const e of entries) {
    if (!e.isDirectory() || e.name === current) continue;
    const dir = path.join(outRoot, e.name);
    let mtime;
    try {
      mtime = statSync(dir).mtimeMs;
    } catch {
      continue;
    }
    if (!e.name.startsWith(".")) builds.push({ name: e.name, dir, mtime });
    else if (now - mtime > STALE_MS) rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  }
  builds.sort((a, b) => b.mtime - a.mtime);
  const removed = [];
  for (const b of builds.slice(Math.max(0, keep - 1))) {
    // Renamed aside first, so the name <hash> never points at a half-removed build.
    const trash = scratch(outRoot, "old", b.name);
    try {
      renameSync(b.dir, trash);
    } catch {
      continue;
    }
    removed.push(b.name);
    try {
      rmSync(trash, { recursive: true, force: true });
    } catch {
      // Left for a later prune (stale after STALE_MS).
    }
  }
  return removed;
}

/**
 * Makes sure dist/server/<hash>/ under `root` holds the transpiled sources and
 * returns it. `built` is false when a fresh build was found, or when another
 * process finished the same build first (`raced`).
 */
export async function buildServer({ root = ROOT, keep = KEEP, log = () => {} } = {}) {
  const started = performance.now();
  const files = sourceFiles(root);
  const hash = sourceHash(root, files);
  const outRoot = path.join(root, "dist", "server");
  const dir = path.join(outRoot, hash);
  const result = { hash, dir, files: files.length, built: false, raced: false, ms: 0 };
  if (existsSync(dir)) {
    try {
      // Marks it recently used, so pruning keeps it.
      const now = new Date();
      utimesSync(dir, now, now);
    } catch {
      // A read-only install: nothing gets pruned there either.
    }
  } else {
    if (!files.length) throw new Error(`no .ts files under ${SOURCE_DIRS.map((d) => path.join(root, d)).join(", ")}`);
    mkdirSync(outRoot, { recursive: true });
    const tmp = scratch(outRoot, "tmp", hash);
    try {
      esbuild ??= await import("esbuild");
      await esbuild.build({
        ...OPTIONS,
        absWorkingDir: root,
        entryPoints: files,
        outbase: root,
        outdir: tmp,
        logLevel: "warning",
      });
      try {
        renameSync(tmp, dir);
        result.built = true;
      } catch (err) {
        // Another process renamed the same build into place first (ENOTEMPTY, or EEXIST/EPERM elsewhere).
        if (!existsSync(dir)) throw err;
        result.raced = true;
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  pruneBuilds(outRoot, hash, keep);
  result.ms = Math.round(performance.now() - started);
  if (result.built) log(`server built into ${path.relative(root, dir)} (${files.length} files) in ${result.ms} ms`);
  return result;
}

/** Stops esbuild's service process if a build started it (the async API keeps it for the next build). */
export async function stopEsbuild() {
  await esbuild?.stop();
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const at = process.argv.indexOf("--root");
  const root = at > 0 && process.argv[at + 1] ? path.resolve(process.argv[at + 1]) : ROOT;
  try {
    const res = await buildServer({ root, log: (m) => process.stdout.write(`${m}\n`) });
    if (!res.built) process.stdout.write(`server build ${path.relative(root, res.dir)} is up to date\n`);
  } catch (err) {
    // esbuild has printed its errors already.
    process.stderr.write(`build-server: ${err?.errors ? "the build failed" : err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    await stopEsbuild();
  }
}
