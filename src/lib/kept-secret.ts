// A secret the gateway needs to keep across restarts (and share between the
// instances of one directory): the configured one, else a random one kept in
// a file of `dir`, created once.
import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

export function keptSecret(configured: string, dir: string, fileName: string): string {
  if (configured) return configured;
  const file = path.join(dir, fileName);
  try {
    const existing = readFileSync(file, "utf8").trim();
    if (existing) return existing;
  } catch {
    // created below
  }
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(32).toString("hex");
  // Written aside, then linked into place: a process starting at the same time
  // (a shared directory) never reads a half-written file.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(tmp, secret + "\n", { mode: 0o600 });
  try {
    linkSync(tmp, file);
    return secret;
  } catch {
    // Another process created it first: use theirs.
    return readFileSync(file, "utf8").trim();
  } finally {
    rmSync(tmp, { force: true });
  }
}
