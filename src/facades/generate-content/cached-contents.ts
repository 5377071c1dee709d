// The cachedContents resource in Google's CachedContent JSON shape <-> the
// neutral CachedContent. Pure.
import { type JsonObject } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import { timestampFromMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import { isoTime } from "../shared/time.js";
import { CachedContentSchema, Role, ToolChoiceMode, type CachedContent, type Part, type Tool, type ToolChoice, type Turn } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { invalidArgument } from "../../core/errors.js";
import { jsonSchemaToGemini } from "./schema.js";
import { toCoreSystem, toCoreToolChoice, toCoreTools, toCoreTurns } from "./translate.js";
import { fromCoreParts } from "./translate-response.js";
import { GEMINI } from "./thought-signature.js";
import { fromCoreGoogleSearch } from "./web-search.js";
import type * as wire from "./wire.js";

/** "3600s" / "1.5s" -> whole seconds (rounded up, at least 1). */
export function parseDuration(d: string): bigint {
  return BigInt(Math.max(1, Math.ceil(Number(d.slice(0, -1)))));
}

export interface CreateCachedContent {
  cachedContent: CachedContent;
  ttlSeconds: bigint;
}

export function toCoreCachedContent(body: wire.CachedContentBody): CreateCachedContent {
  if (body.ttl && body.expireTime) throw invalidArgument("expiration: set ttl or expireTime, not both", "ttl");
  const tools = toCoreTools(body.tools);
  const declared = new Set(tools.flatMap((t) => (t.kind.case === "function" ? [t.kind.value.name] : [])));
  const toolChoice = toCoreToolChoice(body.toolConfig, declared);
  const cc = create(CachedContentSchema, {
    model: body.model.replace(/^models\//, ""),
    displayName: body.displayName ?? "",
    system: toCoreSystem(body.systemInstruction),
    turns: toCoreTurns(body.contents ?? []).turns,
    tools,
    ...(toolChoice ? { toolChoice } : {}),
    ...(body.expireTime ? { expireTime: timestampFromMs(Date.parse(body.expireTime)) } : {}),
  });
  return { cachedContent: cc, ttlSeconds: body.ttl ? parseDuration(body.ttl) : 0n };
}

export function fromCoreTurns(turns: Turn[]): JsonObject[] {
  return turns.map((t) => ({ parts: fromCoreParts(t.parts, true) as JsonObject[], role: t.role === Role.ASSISTANT ? "model" : "user" }));
}

function fromCoreSystem(parts: Part[]): JsonObject | undefined {
  const texts = parts.flatMap((p) => (p.kind.case === "text" ? [{ text: p.kind.value.text }] : []));
  return texts.length ? { parts: texts } : undefined;
}

export function fromCoreTools(tools: Tool[]): JsonObject[] {
  const decls: JsonObject[] = [];
  const out: JsonObject[] = [];
  for (const t of tools) {
    const k = t.kind;
    if (k.case === "function") {
      const gemini = jsonSchemaToGemini(k.value.parameters ?? {});
      decls.push({
        name: k.value.name,
        ...(k.value.description ? { description: k.value.description } : {}),
        ...(gemini ? { parameters: gemini } : { parametersJsonSchema: k.value.parameters ?? {} }),
      });
    } else if (k.case === "codeExecution") out.push({ codeExecution: {} });
    else if (k.case === "webSearch") out.push(fromCoreGoogleSearch(k.value, t.vendorExtras[GEMINI]));
    else if (k.case === "vendor") out.push({ [k.value.type]: k.value.config ?? {} });
  }
  return decls.length ? [{ functionDeclarations: decls }, ...out] : out;
}

const MODE_NAMES: Record<ToolChoiceMode, string> = {
  [ToolChoiceMode.UNSPECIFIED]: "MODE_UNSPECIFIED",
  [ToolChoiceMode.AUTO]: "AUTO",
  [ToolChoiceMode.ANY]: "ANY",
  [ToolChoiceMode.NONE]: "NONE",
};

export function fromCoreToolChoice(tc: ToolChoice): JsonObject {
  return { functionCallingConfig: { mode: MODE_NAMES[tc.mode], ...(tc.allowedNames.length ? { allowedFunctionNames: tc.allowedNames } : {}) } };
}

export function fromCoreCachedContent(cc: CachedContent): JsonObject {
  const system = fromCoreSystem(cc.system);
  const tools = fromCoreTools(cc.tools);
  return {
    name: cc.name,
    ...(cc.displayName ? { displayName: cc.displayName } : {}),
    model: `models/${cc.model.replace(/^models\//, "")}`,
    ...(cc.turns.length ? { contents: fromCoreTurns(cc.turns) } : {}),
    ...(system ? { systemInstruction: system } : {}),
    ...(tools.length ? { tools } : {}),
    ...(cc.toolChoice ? { toolConfig: fromCoreToolChoice(cc.toolChoice) } : {}),
    ...(cc.createTime ? { createTime: isoTime(cc.createTime) } : {}),
    ...(cc.updateTime ? { updateTime: isoTime(cc.updateTime) } : {}),
    ...(cc.expireTime ? { expireTime: isoTime(cc.expireTime) } : {}),
    usageMetadata: { totalTokenCount: Number(cc.totalTokens) },
  } as JsonObject;
}

/** PATCH: which of ttl / expireTime to apply, honouring `updateMask` when given. */
export function toCoreExpiry(body: { ttl?: string | undefined; expireTime?: string | undefined }, updateMask: string | undefined): { ttlSeconds: bigint; expireTime?: Timestamp } {
  const fields = updateMask
    ? updateMask
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
  const wants = (name: string) => !fields || fields.some((f) => f === name || f === name.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase()));
  for (const f of fields ?? []) {
    if (!["ttl", "expireTime", "expire_time"].includes(f)) throw invalidArgument(`updateMask: ${f} cannot be updated; only ttl or expireTime`, "updateMask");
  }
  const ttl = wants("ttl") ? body.ttl : undefined;
  const expire = wants("expireTime") ? body.expireTime : undefined;
  if (ttl && expire) throw invalidArgument("expiration: set ttl or expireTime, not both", "ttl");
  if (!ttl && !expire) throw invalidArgument("ttl or expireTime is required to update a cached content", fields?.[0] === "expireTime" || fields?.[0] === "expire_time" ? "expireTime" : "ttl");
  return { ttlSeconds: ttl ? parseDuration(ttl) : 0n, ...(expire ? { expireTime: timestampFromMs(Date.parse(expire)) } : {}) };
}
