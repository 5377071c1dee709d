// Standard Webhooks signatures (https://www.standardwebhooks.com):
// webhook-signature = "v1," + base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>")).
// A secret written "whsec_<base64>" is decoded as the standard's libraries do;
// any other secret is used as its UTF-8 bytes.
import { createHmac, timingSafeEqual } from "node:crypto";

export function webhookKey(secret: string): Buffer {
  return secret.startsWith("whsec_") ? Buffer.from(secret.slice("whsec_".length), "base64") : Buffer.from(secret, "utf8");
}

export function signWebhook(secret: string, id: string, timestampSec: number, body: string): string {
  const mac = createHmac("sha256", webhookKey(secret)).update(`${id}.${timestampSec}.${body}`).digest("base64");
  return `v1,${mac}`;
}

export interface WebhookHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature"?: string;
}

/** The headers of one delivery attempt; unsigned when no secret is configured. */
export function webhookHeaders(secret: string, id: string, timestampSec: number, body: string): WebhookHeaders {
  const h: WebhookHeaders = { "webhook-id": id, "webhook-timestamp": String(timestampSec) };
  if (secret) h["webhook-signature"] = signWebhook(secret, id, timestampSec, body);
  return h;
}

/**
 * Verifies a delivery as a receiver would: one of the space-separated
 * signatures matches and the timestamp is within the tolerance.
 */
export function verifyWebhook(secret: string, headers: Record<string, string | undefined>, body: string, nowSec: number, toleranceSec = 300): boolean {
  const id = headers["webhook-id"];
  const ts = headers["webhook-timestamp"];
  const sigs = headers["webhook-signature"];
  if (!id || !ts || !sigs || !/^\d+$/.test(ts)) return false;
  if (Math.abs(nowSec - Number(ts)) > toleranceSec) return false;
  const expected = Buffer.from(signWebhook(secret, id, Number(ts), body).slice(3), "base64");
  return sigs.split(" ").some((s) => {
    if (!s.startsWith("v1,")) return false;
    const got = Buffer.from(s.slice(3), "base64");
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
