// Signed, expiring file URLs: <base>/files/<id>?exp=<unix seconds>&sig=<hex>,
// sig = HMAC-SHA256(secret, "<id>:<exp>"). The gateway verifies them in
// server/files-route.ts; nothing else is needed to serve a file.
import { createHmac, timingSafeEqual } from "node:crypto";
import { keptSecret } from "../../lib/kept-secret.js";

export const URL_SECRET_FILE = "url-secret";

function signature(secret: string, id: string, exp: number): string {
  return createHmac("sha256", secret).update(`${id}:${exp}`).digest("hex");
}

/** The signed URL of a file; expiry rounds down to whole seconds. */
export function signFileUrl(base: string, id: string, expiresAtMs: number, secret: string): string {
  const exp = Math.floor(expiresAtMs / 1000);
  return `${base.replace(/\/+$/, "")}/files/${encodeURIComponent(id)}?exp=${exp}&sig=${signature(secret, id, exp)}`;
}

export type UrlCheck = "ok" | "bad_signature" | "expired";

/** Checks a request's exp and sig; the signature is compared in constant time. */
export function verifyFileUrl(id: string, exp: unknown, sig: unknown, secret: string, nowMs: number): UrlCheck {
  if (typeof exp !== "string" || !/^\d{1,12}$/.test(exp) || typeof sig !== "string" || !/^[0-9a-f]{64}$/.test(sig)) return "bad_signature";
  const expected = Buffer.from(signature(secret, id, Number(exp)), "hex");
  if (!timingSafeEqual(expected, Buffer.from(sig, "hex"))) return "bad_signature";
  return Number(exp) * 1000 <= nowMs ? "expired" : "ok";
}

/**
 * The URL-signing secret: the configured one, else a random secret kept in
 * <dataDir>/url-secret (created once, so URLs survive restarts).
 */
export function resolveUrlSecret(configured: string, dataDir: string): string {
  return keptSecret(configured, dataDir, URL_SECRET_FILE);
}
