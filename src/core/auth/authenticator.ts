// Verifies API keys against storage, with a short-lived in-memory cache so the
// hot path does not hit the database on every request.
import type { KeyStore, ApiKeyRecord } from "../../storage/types.js";
import type { Principal } from "../context.js";
import { hashSecret } from "./secrets.js";
import type { SharedSignal } from "./redis-signal.js";

export interface Authenticator {
  verify(secret: string): Promise<Principal | undefined>;
  /** Forget cached entries (after a key was revoked or changed). */
  invalidate(): void;
}

export function toPrincipal(k: ApiKeyRecord): Principal {
  return { keyId: k.id, name: k.name, admin: k.admin, formats: k.formats, models: k.models, limits: k.limits };
}

export function authenticator(keys: KeyStore, opts: { ttlMs?: number; now?: () => number; maxEntries?: number; shared?: SharedSignal } = {}): Authenticator {
  const ttl = opts.ttlMs ?? 5_000;
  const now = opts.now ?? Date.now;
  const max = opts.maxEntries ?? 10_000;
  const cache = new Map<string, { at: number; key: ApiKeyRecord | undefined }>();
  // Another instance changed a key: forget what this one cached.
  opts.shared?.on(() => cache.clear());
  return {
    async verify(secret) {
      if (!secret) return undefined;
      const hash = hashSecret(secret);
      const t = now();
      let hit = cache.get(hash);
      if (!hit || t - hit.at > ttl) {
        hit = { at: t, key: await keys.findByHash(hash) };
        if (cache.size >= max) cache.clear();
        cache.set(hash, hit);
      }
      const k = hit.key;
      if (!k || k.revokeTime !== undefined || (k.expireTime !== undefined && k.expireTime <= t)) return undefined;
      return toPrincipal(k);
    },
    invalidate() {
      cache.clear();
      opts.shared?.send();
    },
  };
}
