#!/usr/bin/env node
// Makes sure Debian's Chromium is installed for the console's browser tests:
// installs it with apt-get when /usr/bin/chromium is missing, or fails with a
// message that says what to do. Prints the executable's path.
//
//   node scripts/ensure-chromium.mjs
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const CHROMIUM = process.env.OMNIGATE_CHROMIUM ?? "/usr/bin/chromium";

const executable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}`.trim() };
}

/** The path of an executable Chromium; installs Debian's package when it is missing. Throws with instructions when it cannot. */
export function ensureChromium() {
  if (executable(CHROMIUM)) return CHROMIUM;
  if (process.env.OMNIGATE_CHROMIUM) throw new Error(`OMNIGATE_CHROMIUM=${CHROMIUM} is not an executable file`);
  const manual = "install it yourself (Debian/Ubuntu: sudo apt-get install -y chromium) or set OMNIGATE_CHROMIUM to a Chromium executable";
  if (!run("apt-get", ["--version"]).ok) throw new Error(`${CHROMIUM} is missing and apt-get is not available: ${manual}`);
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  const sudo = root ? [] : run("sudo", ["-n", "true"]).ok ? ["sudo", "-n"] : null;
  if (!sudo) throw new Error(`${CHROMIUM} is missing and installing it needs root (no password-less sudo): ${manual}`);
  const apt = (...args) => (sudo.length ? run(sudo[0], [...sudo.slice(1), "apt-get", ...args]) : run("apt-get", args));
  process.stderr.write("ensure-chromium: installing chromium with apt-get (once)...\n");
  let res = apt("install", "-y", "chromium");
  if (!res.ok) {
    // A fresh machine may have no package lists yet.
    apt("update");
    res = apt("install", "-y", "chromium");
  }
  if (!res.ok || !executable(CHROMIUM)) throw new Error(`apt-get could not install chromium (${res.out.split("\n").slice(-3).join(" | ")}): ${manual}`);
  return CHROMIUM;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    process.stdout.write(`${ensureChromium()}\n`);
  } catch (err) {
    process.stderr.write(`ensure-chromium: ${err.message}\n`);
    process.exit(1);
  }
}
