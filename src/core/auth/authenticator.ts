// Verifies API keys against storage, with a short-lived in-memory cache so the
// hot path does not hit the database on every request.
import type { KeyStore, ApiKeyRecord } from "../../storage/types.js";
import type { Principal } from "../call/call.js";
import { hashSecret } from "./secrets.js";
import type { SharedSignal } from "./redis-signal.js";

export interface Authenticator {
  verify(secret: string): Promise<Principal | undefined>;
  /**
   * The answer without waiting when the cache holds a fresh entry for the
   * secret (the principal, or null for a refused key); undefined when storage
   * has to be asked (call verify).
   */
  cached?(secret: string): Principal | null | undefined;
  /** Forget cached entries (after a key was revoked or changed). */
  invalidate(): void;
}

export function toPrincipal(k: ApiKeyRecord): Principal {
  return { keyId: k.id, name: k.name, admin: k.admin, formats: k.formats, models: k.models, limits: k.limits, budget: k.budget };
}

export function authenticator(keys: KeyStore, opts: { ttlMs?: number; now?: () => number; maxEntries?: number; shared?: SharedSignal } = {}): Authenticator {
  const ttl = opts.ttlMs ?? 5_000;
  const now = opts.now ?? Date.now;
  const max = opts.maxEntries ?? 10_000;
  // Keyed by the secret itself (this process holds it anyway while it serves
  // the request): a hit costs a map lookup, not a hash. The principal is made
  // once per entry.
  const cache = new Map<string, { at: number; key: ApiKeyRecord | undefined; principal: Principal | undefined }>();
  // Another instance changed a key: forget what this one cached.
  opts.shared?.on(() => cache.clear());
  const answer = (hit: { key: ApiKeyRecord | undefined; principal: Principal | undefined }, t: number): Principal | undefined => {
    const k = hit.key;
    if (!k || k.revokeTime !== undefined || (k.expireTime !== undefined && k.expireTime <= t)) return undefined;
    return (hit.principal ??= toPrincipal(k));
  };
  return {
    cached(secret) {
      if (!secret) return null;
      const hit = cache.get(secret);
      const t = now();
      if (!hit || t - hit.at > ttl) return undefined;
      return answer(hit, t) ?? null;
    },
    async verify(secret) {
      if (!secret) return undefined;
      const t = now();
      let hit = cache.get(secret);
      if (!hit || t - hit.at > ttl) {
        hit = { at: t, key: await keys.findByHash(hashSecret(secret)), principal: undefined };
        if (cache.size >= max) cache.clear();
        cache.set(secret, hit);
      }
      return answer(hit, t);
    },
    invalidate() {
      cache.clear();
      opts.shared?.send();
    },
  };
}

/**
 * Whether a key is valid, for an edge that checks credentials before it reads
 * or validates a body: a boolean at once when the cache knows the key (nearly
 * always: a Map lookup, no promise), else a promise. The core checks the key
 * again inside the call, from the same cache.
 */
export function keyIsValid(auth: Authenticator, secret: string): boolean | Promise<boolean> {
  const known = auth.cached?.(secret);
  if (known !== undefined) return known !== null;
  return auth.verify(secret).then((p) => p !== undefined);
}
