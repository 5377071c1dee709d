// The local engine's signing secret when none is configured: a random key kept
// in <dataDir>/local-signing.key (mode 0600), so that signatures the engine
// issued still verify after a restart.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export const SIGNING_KEY_FILE = "local-signing.key";

export function loadSigningSecret(dataDir: string): string {
  const file = path.join(dataDir, SIGNING_KEY_FILE);
  const read = () => {
    try {
      return readFileSync(file, "utf8").trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return "";
      throw err;
    }
  };
  const existing = read();
  if (existing) return existing;
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("hex");
  try {
    writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" });
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    // Another process created it first (use theirs), or it is empty (replace it).
    const theirs = read();
    if (theirs) return theirs;
    writeFileSync(file, secret + "\n", { mode: 0o600 });
    return secret;
  }
}
