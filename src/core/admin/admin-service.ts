// AdminService: API keys, usage and channels, for admin keys only.
import { create } from "../proto/create.js";
import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { Call } from "../call/call.js";
import type { ServiceImpl } from "../call/service.js";
import { AdminService, ApiKeySchema, ChannelSchema, UsageRecordSchema, type ApiKey, type Channel } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import type { ApiKeyRecord, KeyStore, UsageStore } from "../../storage/types.js";
import type { Authenticator } from "../auth/authenticator.js";
import { hashSecret, newKeyId, newSecret, secretPrefix } from "../auth/secrets.js";
import { invalidArgument, notFound, permissionDenied } from "../errors.js";
import type { ChannelStates, ChannelStatus } from "../routing/channel-state.js";
import { FORMATS } from "../tenancy/scope.js";

export interface AdminServiceDeps {
  keys: KeyStore;
  usage: UsageStore;
  auth: Authenticator;
  now: () => number;
  /** Runtime channel state (unset: no channels to list). */
  channels?: ChannelStates;
}

function requireAdmin(call: Call): void {
  if (!call.principal.admin) throw permissionDenied("admin API key required", "admin_required");
}

export function toApiKey(k: ApiKeyRecord): ApiKey {
  return create(ApiKeySchema, {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    admin: k.admin,
    formats: k.formats,
    models: k.models,
    createTime: timestampFromMs(k.createTime),
    ...(k.expireTime !== undefined ? { expireTime: timestampFromMs(k.expireTime) } : {}),
    ...(k.revokeTime !== undefined ? { revokeTime: timestampFromMs(k.revokeTime) } : {}),
    budget: k.budget,
    spent: k.spent,
    limits: { ...k.limits, tokensPerMinute: BigInt(k.limits.tokensPerMinute) },
  });
}

function checkFields(k: ApiKey | undefined): ApiKey {
  if (!k) throw invalidArgument("key is required", "key");
  for (const f of k.formats) if (!(FORMATS as readonly string[]).includes(f)) throw invalidArgument(`unknown format ${f}; one of ${FORMATS.join(", ")}`, "key.formats");
  if (k.budget < 0) throw invalidArgument("budget must not be negative", "key.budget");
  const l = k.limits;
  if (l && (l.requestsPerMinute < 0 || l.tokensPerMinute < 0n || l.concurrentRequests < 0)) throw invalidArgument("limits must not be negative", "key.limits");
  if (k.name.length > 200) throw invalidArgument("name must be at most 200 characters", "key.name");
  return k;
}

export function toChannel(c: ChannelStatus): Channel {
  return create(ChannelSchema, {
    name: c.name,
    provider: c.provider,
    baseUrl: c.baseUrl,
    models: c.models,
    modelMap: c.modelMap,
    priority: c.priority,
    weight: c.weight,
    enabled: c.enabled,
    coolingDown: c.coolingDown,
    lastError: c.lastError,
    ...(c.lastErrorTime ? { lastErrorTime: timestampFromMs(c.lastErrorTime) } : {}),
  });
}

const limitsOf = (k: ApiKey) => ({
  requestsPerMinute: k.limits?.requestsPerMinute ?? 0,
  tokensPerMinute: Number(k.limits?.tokensPerMinute ?? 0n),
  concurrentRequests: k.limits?.concurrentRequests ?? 0,
});

const UPDATABLE = ["name", "admin", "formats", "models", "budget", "limits", "expire_time"] as const;

export function adminService(deps: AdminServiceDeps): ServiceImpl<typeof AdminService> {
  const get = async (id: string) => {
    const k = await deps.keys.get(id);
    if (!k) throw notFound(`key ${id} not found`, "key_not_found");
    return k;
  };
  return {
    async createKey(req, call) {
      requireAdmin(call);
      const k = checkFields(req.key);
      const secret = newSecret();
      const rec: ApiKeyRecord = {
        id: newKeyId(),
        name: k.name || "unnamed",
        hash: hashSecret(secret),
        prefix: secretPrefix(secret),
        admin: k.admin,
        formats: k.formats,
        models: k.models,
        budget: k.budget,
        spent: 0,
        limits: limitsOf(k),
        createTime: deps.now(),
        expireTime: k.expireTime ? timestampDate(k.expireTime).getTime() : undefined,
      };
      await deps.keys.insert(rec);
      return { key: toApiKey(rec), secret };
    },
    async listKeys(req, call) {
      requireAdmin(call);
      const size = Math.min(Math.max(req.pageSize || 100, 1), 1000);
      const rows = await deps.keys.list({ includeRevoked: req.includeRevoked, limit: size + 1, ...(req.pageToken ? { after: req.pageToken } : {}) });
      const page = rows.slice(0, size);
      return { keys: page.map(toApiKey), nextPageToken: rows.length > size ? page.at(-1)!.id : "" };
    },
    async getKey(req, call) {
      requireAdmin(call);
      return { key: toApiKey(await get(req.id)) };
    },
    async updateKey(req, call) {
      requireAdmin(call);
      const k = checkFields(req.key);
      await get(k.id);
      const mask = req.updateMask.length ? req.updateMask : [...UPDATABLE];
      const patch: Partial<ApiKeyRecord> = {};
      for (const f of mask) {
        if (f === "name") patch.name = k.name;
        else if (f === "admin") patch.admin = k.admin;
        else if (f === "formats") patch.formats = k.formats;
        else if (f === "models") patch.models = k.models;
        else if (f === "budget") patch.budget = k.budget;
        else if (f === "limits") patch.limits = limitsOf(k);
        else if (f === "expire_time") patch.expireTime = k.expireTime ? timestampDate(k.expireTime).getTime() : undefined;
        else throw invalidArgument(`field ${f} cannot be updated; one of ${UPDATABLE.join(", ")}`, "update_mask");
      }
      const updated = await deps.keys.update(k.id, patch);
      deps.auth.invalidate();
      return { key: toApiKey(updated!) };
    },
    async revokeKey(req, call) {
      requireAdmin(call);
      const k = await get(req.id);
      const updated = k.revokeTime !== undefined ? k : await deps.keys.update(k.id, { revokeTime: deps.now() });
      deps.auth.invalidate();
      return { key: toApiKey(updated!) };
    },
    async queryUsage(req, call) {
      requireAdmin(call);
      const res = await deps.usage.query({
        ...(req.keyId ? { keyId: req.keyId } : {}),
        ...(req.format ? { format: req.format } : {}),
        ...(req.model ? { model: req.model } : {}),
        ...(req.startTime ? { since: timestampDate(req.startTime).getTime() } : {}),
        ...(req.endTime ? { until: timestampDate(req.endTime).getTime() } : {}),
        limit: Math.min(Math.max(req.pageSize || 100, 1), 1000),
      });
      return {
        records: res.rows.map((r) =>
          create(UsageRecordSchema, {
            time: timestampFromMs(r.time),
            keyId: r.keyId,
            format: r.format,
            model: r.model,
            channel: r.channel,
            inputTokens: BigInt(r.inputTokens),
            outputTokens: BigInt(r.outputTokens),
            images: BigInt(r.images),
            seconds: r.seconds,
            credits: r.credits,
            status: r.status,
            latencyMs: BigInt(r.latencyMs),
            requestId: r.requestId,
          }),
        ),
        totals: {
          requests: BigInt(res.totals.requests),
          inputTokens: BigInt(res.totals.inputTokens),
          outputTokens: BigInt(res.totals.outputTokens),
          images: BigInt(res.totals.images),
          seconds: res.totals.seconds,
          credits: res.totals.credits,
        },
      };
    },
    async listChannels(_req, call) {
      requireAdmin(call);
      return { channels: (deps.channels?.list() ?? []).map(toChannel) };
    },
    async updateChannel(req, call) {
      requireAdmin(call);
      if (!req.name) throw invalidArgument("name is required", "name");
      const updated = await deps.channels?.setEnabled(req.name, req.enabled);
      if (!updated) throw notFound(`channel ${req.name} is not configured`, "channel_not_found");
      return { channel: toChannel(updated) };
    },
  };
}
