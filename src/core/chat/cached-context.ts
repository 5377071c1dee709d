// Using a cached content as context: the chat core expands `cached_content`
// into the input before routing (cached system, turns and tools first), and
// reports the cached part of the prompt as cache-read tokens.
import { clone, fromBinary } from "@bufbuild/protobuf";
import { create } from "../proto/create.js";
import {
  CachedContentSchema,
  ChatInputSchema,
  ModalityTokensSchema,
  Modality,
  UsageSchema,
  type CachedContent,
  type ChatInput,
  type ModalityTokens,
  type StreamGenerateResponse,
  type Usage,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { CachedContentRecord, CachedContentStore } from "../../storage/types.js";
import { Code, coreError, invalidArgument } from "../errors.js";

const NAME = /^cachedContents\/([A-Za-z0-9_-]{1,128})$/;

/** The id of a "cachedContents/{id}" name, or undefined when the name is malformed. */
export function cachedContentId(name: string): string | undefined {
  return NAME.exec(name)?.[1];
}

/** Model names compare without the "models/" prefix. */
export const bareModel = (m: string) => m.replace(/^models\//, "");

/** Loads a cached content the caller owns and that has not expired; NotFound otherwise. */
export async function loadCachedContent(store: CachedContentStore | undefined, name: string, keyId: string, now: number, field = "name"): Promise<CachedContentRecord> {
  const id = cachedContentId(name);
  if (!id) throw invalidArgument(`${name || "(empty)"} is not a cached content name (expected cachedContents/{id})`, field, "invalid_cached_content_name");
  const rec = store ? await store.get(id) : undefined;
  if (!rec || rec.ownerKeyId !== keyId || rec.expireTime <= now) {
    throw coreError(Code.NotFound, `CachedContent not found (or expired): ${name}`, { reason: "cached_content_not_found", field });
  }
  return rec;
}

export function decodeCachedContent(rec: CachedContentRecord): CachedContent {
  return fromBinary(CachedContentSchema, rec.content);
}

export interface ResolvedInput {
  input: ChatInput;
  /** Tokens of the cached part of the prompt (0 without a cache). */
  cachedTokens: bigint;
}

/** Expands input.cached_content into the input; the result names no cache. */
export async function resolveCachedContext(store: CachedContentStore | undefined, input: ChatInput, keyId: string, now: number, requireTurns = true): Promise<ResolvedInput> {
  if (!input.cachedContent) return { input, cachedTokens: 0n };
  const rec = await loadCachedContent(store, input.cachedContent, keyId, now, "cached_content");
  if (bareModel(rec.model) !== bareModel(input.model)) {
    throw invalidArgument(
      `the model of the request (${bareModel(input.model)}) and of cached_content ${input.cachedContent} (${bareModel(rec.model)}) must be the same`,
      "cached_content",
      "cached_content_model_mismatch",
    );
  }
  const cc = decodeCachedContent(rec);
  const merged = clone(ChatInputSchema, input);
  merged.system = [...cc.system, ...input.system];
  merged.turns = [...cc.turns, ...input.turns];
  merged.tools = [...cc.tools, ...input.tools];
  if (!merged.toolChoice && cc.toolChoice) merged.toolChoice = cc.toolChoice;
  merged.cachedContent = "";
  if (requireTurns && merged.turns.length === 0) throw invalidArgument("at least one turn is required (the cached content has none)", "turns");
  return { input: merged, cachedTokens: BigInt(rec.totalTokens) };
}

function subtractText(details: ModalityTokens[], n: bigint): ModalityTokens[] {
  let left = n;
  return details.map((d) => {
    if (d.modality !== Modality.TEXT || left === 0n) return d;
    const take = d.tokenCount < left ? d.tokenCount : left;
    left -= take;
    return create(ModalityTokensSchema, { modality: d.modality, tokenCount: d.tokenCount - take });
  });
}

/** Moves `cached` prompt tokens from input_tokens to cache_read_tokens. */
export function moveToCache(usage: Usage | undefined, cached: bigint): Usage | undefined {
  if (!usage || cached === 0n) return usage;
  const u = clone(UsageSchema, usage);
  const moved = u.inputTokens < cached ? u.inputTokens : cached;
  u.inputTokens -= moved;
  u.cacheReadTokens += moved;
  u.inputDetails = subtractText(u.inputDetails, moved);
  u.cacheDetails = [...u.cacheDetails, create(ModalityTokensSchema, { modality: Modality.TEXT, tokenCount: moved })];
  return u;
}

/** The same adjustment on the usage a stream event carries. */
export function moveEventToCache(e: StreamGenerateResponse, cached: bigint): StreamGenerateResponse {
  if (cached === 0n) return e;
  const k = e.event;
  if (k.case === "usage") k.value = moveToCache(k.value, cached)!;
  else if (k.case === "start" && k.value.usage) k.value.usage = moveToCache(k.value.usage, cached);
  return e;
}
