// API key secrets: 32 random bytes, shown once, stored as sha256. A slow hash
// (bcrypt, scrypt) buys nothing for 256-bit random secrets and would cost
// milliseconds on every request.
import { createHash, randomBytes } from "node:crypto";

const PREFIX = "sk-og-";

export function newSecret(): string {
  return PREFIX + randomBytes(32).toString("base64url");
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** What lists show of a secret. */
export function secretPrefix(secret: string): string {
  return secret.slice(0, Math.min(secret.length, PREFIX.length + 4));
}

export function newKeyId(): string {
  return "key_" + randomBytes(9).toString("base64url");
}
