// Keys that must exist at startup: the operator's bootstrap key, and on a first
// start with an empty store, a generated admin key printed once.
import type { KeyStore, ApiKeyRecord } from "../../storage/types.js";
import { hashSecret, newKeyId, newSecret, secretPrefix } from "./secrets.js";

export const BOOTSTRAP_KEY_ID = "key_bootstrap";

function adminKey(id: string, name: string, secret: string, now: number): ApiKeyRecord {
  return {
    id,
    name,
    hash: hashSecret(secret),
    prefix: secretPrefix(secret),
    admin: true,
    formats: [],
    models: [],
    budget: 0,
    spent: 0,
    limits: { requestsPerMinute: 0, tokensPerMinute: 0, concurrentRequests: 0 },
    createTime: now,
  };
}

export interface BootstrapResult {
  /** The secret of a newly generated admin key, to print once. */
  generatedSecret?: string;
  generatedKeyId?: string;
}

export async function ensureKeys(keys: KeyStore, opts: { bootstrapKey?: string | undefined; now?: number }): Promise<BootstrapResult> {
  const now = opts.now ?? Date.now();
  if (opts.bootstrapKey) {
    const existing = await keys.get(BOOTSTRAP_KEY_ID);
    const hash = hashSecret(opts.bootstrapKey);
    if (!existing || existing.hash !== hash || existing.revokeTime !== undefined || !existing.admin) {
      // Another row may hold this hash already (e.g. created by hand): leave it, it works.
      const other = await keys.findByHash(hash);
      if (!other || other.id === BOOTSTRAP_KEY_ID) {
        await keys.upsert({ ...adminKey(BOOTSTRAP_KEY_ID, "bootstrap", opts.bootstrapKey, existing?.createTime ?? now), spent: existing?.spent ?? 0 });
      } else if (other.revokeTime !== undefined || !other.admin) {
        await keys.update(other.id, { revokeTime: undefined, admin: true, expireTime: undefined });
      }
    }
    return {};
  }
  if ((await keys.count()) > 0) return {};
  const secret = newSecret();
  const id = newKeyId();
  // Instances starting together on one empty database: only one of them inserts.
  if (!(await keys.insertIfEmpty(adminKey(id, "initial admin", secret, now)))) return {};
  return { generatedSecret: secret, generatedKeyId: id };
}
