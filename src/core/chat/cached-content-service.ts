// The ChatService cached-content RPCs: a stored chat context (system, turns,
// tools) that generate calls name in `cached_content`. Each entry belongs to the
// API key that created it; expired entries are NotFound and purged lazily.
import { toBinary } from "@bufbuild/protobuf";
import { create } from "../proto/create.js";
import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "../call/service.js";
import { randomBytes } from "node:crypto";
import { CachedContentSchema, ChatInputSchema, ChatService, type CachedContent } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { CachedContentRecord } from "../../storage/types.js";
import { Code, coreError, invalidArgument, notFound } from "../errors.js";
import { checkModel } from "../tenancy/scope.js";
import { bareModel, decodeCachedContent, loadCachedContent } from "./cached-context.js";
import type { ChatServiceDeps } from "./chat-service.js";
import { hasFileRefs, resolveFileRefs } from "../file/resolve.js";

/** TTL when the client gives neither ttl nor expire_time (the vendor default). */
export const DEFAULT_TTL_SECONDS = 3600;
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/** Expired rows removed per list or create call. */
const PURGE_BATCH = 100;

/** Ids sort by creation time: base36 milliseconds, then random characters. */
export function newCachedContentId(now: number): string {
  const rand = [...randomBytes(8)].map((b) => (b % 36).toString(36)).join("");
  return now.toString(36).padStart(9, "0") + rand;
}

export function toCachedContent(rec: CachedContentRecord): CachedContent {
  const body = decodeCachedContent(rec);
  return create(CachedContentSchema, {
    name: `cachedContents/${rec.id}`,
    displayName: rec.displayName,
    model: rec.model,
    system: body.system,
    turns: body.turns,
    tools: body.tools,
    ...(body.toolChoice ? { toolChoice: body.toolChoice } : {}),
    createTime: timestampFromMs(rec.createTime),
    updateTime: timestampFromMs(rec.updateTime),
    expireTime: timestampFromMs(rec.expireTime),
    totalTokens: BigInt(rec.totalTokens),
  });
}

/** The expiry an entry gets from an absolute time or a TTL. */
function expiry(now: number, expireMs: number | undefined, ttlSeconds: bigint, field: string): number {
  if (expireMs !== undefined) {
    if (expireMs <= now) throw invalidArgument("expire_time must be in the future", `${field}expire_time`, "invalid_expire_time");
    return expireMs;
  }
  if (ttlSeconds < 0n) throw invalidArgument("ttl must not be negative", `${field}ttl_seconds`, "invalid_ttl");
  const ttl = ttlSeconds === 0n ? DEFAULT_TTL_SECONDS : Number(ttlSeconds);
  return now + ttl * 1000;
}

export function cachedContentService(deps: ChatServiceDeps): Partial<ServiceImpl<typeof ChatService>> {
  const now = deps.now ?? Date.now;
  const store = () => {
    if (!deps.cachedContents) throw coreError(Code.FailedPrecondition, "cached contents are not available on this gateway", { reason: "no_storage" });
    return deps.cachedContents;
  };
  return {
    async createCachedContent(req, call) {
      const owner = call.principal.keyId;
      const cc = req.cachedContent;
      if (!cc) throw invalidArgument("cached_content is required", "cached_content");
      const model = bareModel(cc.model);
      if (!model) throw invalidArgument("cached_content.model is required", "cached_content.model");
      checkModel(call.principal, model);
      if (cc.system.length === 0 && cc.turns.length === 0 && cc.tools.length === 0) {
        throw invalidArgument("a cached content needs contents, a system instruction or tools", "cached_content.turns");
      }
      const r = deps.routing.resolve(model)[0];
      if (!r) throw notFound(`model ${model} is not served by this gateway`, "model_not_found");
      const t = now();
      const expireTime = expiry(t, cc.expireTime ? timestampMs(cc.expireTime) : undefined, req.ttlSeconds, "cached_content.");
      let input = create(ChatInputSchema, { model, system: cc.system, turns: cc.turns, tools: cc.tools, ...(cc.toolChoice ? { toolChoice: cc.toolChoice } : {}) });
      // A cache holds the bytes of the files it names, not references: it is a snapshot, and
      // it stays one when a file is deleted or expires before the cache does.
      if (hasFileRefs(input)) input = await resolveFileRefs(input, deps.files, call.principal);
      const counted = await r.provider.countTokens(input, { signal: call.signal, requestId: call.requestId, upstreamModel: r.upstreamModel });
      const body = create(CachedContentSchema, { system: input.system, turns: input.turns, tools: input.tools, ...(input.toolChoice ? { toolChoice: input.toolChoice } : {}) });
      const rec: CachedContentRecord = {
        id: newCachedContentId(t),
        ownerKeyId: owner,
        model,
        displayName: cc.displayName,
        content: toBinary(CachedContentSchema, body),
        totalTokens: Number(counted.inputTokens + counted.cachedTokens),
        createTime: t,
        updateTime: t,
        expireTime,
      };
      const s = store();
      await s.deleteExpired(t, PURGE_BATCH);
      await s.insert(rec);
      return { cachedContent: toCachedContent(rec) };
    },
    async getCachedContent(req, call) {
      const rec = await loadCachedContent(store(), req.name, call.principal.keyId, now());
      return { cachedContent: toCachedContent(rec) };
    },
    async listCachedContents(req, call) {
      const owner = call.principal.keyId;
      if (req.pageSize < 0) throw invalidArgument("page_size must not be negative", "page_size");
      const size = Math.min(req.pageSize || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
      if (req.pageToken && !/^[a-z0-9]{1,128}$/.test(req.pageToken)) throw invalidArgument("page_token is not a token this service issued", "page_token", "invalid_page_token");
      const t = now();
      const s = store();
      await s.deleteExpired(t, PURGE_BATCH);
      const rows = await s.list(owner, t, { limit: size + 1, ...(req.pageToken ? { after: req.pageToken } : {}) });
      const page = rows.slice(0, size);
      return { cachedContents: page.map(toCachedContent), nextPageToken: rows.length > size ? page[page.length - 1]!.id : "" };
    },
    async updateCachedContent(req, call) {
      const s = store();
      const rec = await loadCachedContent(s, req.name, call.principal.keyId, now());
      if (!req.expireTime && req.ttlSeconds === 0n) throw invalidArgument("either expire_time or ttl_seconds is required", "ttl_seconds");
      const t = now();
      const expireTime = expiry(t, req.expireTime ? timestampMs(req.expireTime) : undefined, req.ttlSeconds, "");
      const updated = await s.update(rec.id, { expireTime, updateTime: t });
      if (!updated) throw notFound(`CachedContent not found: ${req.name}`, "cached_content_not_found");
      return { cachedContent: toCachedContent(updated) };
    },
    async deleteCachedContent(req, call) {
      const s = store();
      const rec = await loadCachedContent(s, req.name, call.principal.keyId, now());
      await s.delete(rec.id);
      return {};
    },
  };
}
