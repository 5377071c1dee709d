#!/usr/bin/env node
// Installs the real clients of the client suite (test/clients/package.json:
// the agent CLIs, the AI SDK and openai 7, pinned, with their own lock file) into
// test/clients/node_modules with `npm ci`, once per lock file: a marker holds
// the lock file's hash, and a lock file with the installer's pid keeps
// parallel test workers from installing twice (a dead holder's lock is taken
// over). Exits non-zero with npm's output when the install fails.
//
//   node scripts/install-clients.mjs
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";

export const CLIENTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../test/clients");
const MODULES = path.join(CLIENTS_DIR, "node_modules");
const MARKER = path.join(MODULES, ".omnigate-installed");
const LOCK = path.join(CLIENTS_DIR, ".install.lock");
/** How long a worker waits for another's install before it gives up. */
const WAIT_MS = 15 * 60_000;

const lockHash = () =>
  createHash("sha256")
    .update(readFileSync(path.join(CLIENTS_DIR, "package-lock.json")))
    .digest("hex");
const installed = (hash) => existsSync(MARKER) && readFileSync(MARKER, "utf8") === hash;

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/** Takes the lock (true), or finds it held by a live process (false); a dead holder's lock is removed. */
function tryLock() {
  // Written aside and linked into place, so that the lock never exists without its pid.
  const mine = `${LOCK}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  try {
    linkSync(mine, LOCK);
    return true;
  } catch (err) {
    if (err.code !== "EEXIST") throw err;
    if (alive(Number(readFileSync(LOCK, "utf8")))) return false;
    rmSync(LOCK, { force: true });
    return tryLock();
  } finally {
    rmSync(mine, { force: true });
  }
}

function npmCi() {
  // The test runner's hooks (coverage, loaders) have no business in npm.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NODE_OPTIONS|NODE_V8_COVERAGE|_?TAP)/.test(k)));
  return new Promise((resolve, reject) => {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const child = spawn(npm, ["ci", "--prefix", CLIENTS_DIR, "--no-audit", "--no-fund", "--loglevel=error"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`npm ci --prefix test/clients exited with ${code}:\n${out.trim()}`))));
  });
}

/** Makes sure test/clients/node_modules matches its lock file; returns its .bin folder. */
export async function installClients() {
  const hash = lockHash();
  const bin = path.join(MODULES, ".bin");
  const deadline = Date.now() + WAIT_MS;
  while (!installed(hash)) {
    if (tryLock()) {
      try {
        if (!installed(hash)) {
          await npmCi();
          writeFileSync(MARKER, hash);
        }
      } finally {
        rmSync(LOCK, { force: true });
      }
      break;
    }
    if (Date.now() > deadline) throw new Error(`gave up waiting for the install that holds ${LOCK}`);
    await sleep(500);
  }
  return bin;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    process.stdout.write(`${await installClients()}\n`);
  } catch (err) {
    process.stderr.write(`install-clients: ${err.message}\n`);
    process.exit(1);
  }
}
