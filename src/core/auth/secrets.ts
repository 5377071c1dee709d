// API key secrets: 32 random bytes, shown once, stored as sha256. A slow hash
// (bcrypt, scrypt) buys nothing for 256-bit random secrets and would cost
// milliseconds on every request.
import * as crypto from "node:crypto";
import { createHash, randomBytes } from "node:crypto";

const PREFIX = "sk-og-";

export function newSecret(): string {
  return PREFIX + randomBytes(32).toString("base64url");
}

// crypto.hash (Node >= 20.12) is the one-shot digest, a few times cheaper than a Hash object.
const oneShot = typeof crypto.hash === "function" ? crypto.hash : undefined;

export function hashSecret(secret: string): string {
  return oneShot ? oneShot("sha256", secret, "hex") : createHash("sha256").update(secret).digest("hex");
}

/** What lists show of a secret. */
export function secretPrefix(secret: string): string {
  return secret.slice(0, Math.min(secret.length, PREFIX.length + 4));
}

export function newKeyId(): string {
  return "key_" + randomBytes(9).toString("base64url");
}
