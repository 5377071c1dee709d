// Small pure helpers the chat providers share: tool-call ids in the shape each
// vendor accepts, media as base64 / data URLs, text of parts. Pure.
import { createHash } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import type { Media, Part } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { unsupported } from "./http-errors.js";
import { parseWellFormed, toWellFormed } from "../../lib/unicode.js";

const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A tool-call id in the charset Anthropic (and most OpenAI-compatible servers)
 * accept. Ids already in that shape pass unchanged, so a same-vendor round trip
 * keeps them; others map to a stable hash, the same for the call and its result.
 */
export function safeToolId(id: string, prefix = "toolu_"): string {
  if (SAFE_ID.test(id)) return id;
  return prefix + createHash("sha256").update(id).digest("base64url").slice(0, 24).replace(/-/g, "_");
}

/** Media bytes as base64 (empty for URI media). */
export function mediaBase64(m: Media): string {
  return m.source.case === "data" ? Buffer.from(m.source.value).toString("base64") : "";
}

export function mediaDataUrl(m: Media): string {
  return m.source.case === "uri" ? m.source.value : `data:${m.mimeType || "application/octet-stream"};base64,${mediaBase64(m)}`;
}

export function mediaText(m: Media): string {
  return m.source.case === "data" ? Buffer.from(m.source.value).toString("utf8") : "";
}

export const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** The text of a tool result's text parts. */
export function toolResultText(parts: Part[]): string {
  return parts.flatMap((p) => (p.kind.case === "text" ? [p.kind.value.text] : [])).join("");
}

/** Parses JSON tool arguments into an object; anything else is wrapped so no call is lost. */
export function argsObject(json: string): JsonObject {
  if (!json.trim()) return {};
  try {
    const v: unknown = parseWellFormed(json);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as JsonObject;
    return { value: v as JsonObject[string] };
  } catch {
    return { _raw: toWellFormed(json) };
  }
}

/** A deterministic id source for one response (tests and replay stay stable). */
export function idSource(seed: string, prefix: string): () => string {
  let n = 0;
  return () => `${prefix}${createHash("sha256").update(`${seed}:${n++}`).digest("hex").slice(0, 24)}`;
}

/**
 * Safety settings outside Gemini: a blocking threshold cannot be enforced by
 * another vendor (each applies its own policy), so it is refused; "block none"
 * and "off" ask for nothing another vendor would add, so they pass as no-ops.
 * Returns the index of the first setting that must be refused.
 */
export function enforceableSafetyIndex(settings: { threshold: number }[], passable: number[]): number {
  return settings.findIndex((s) => !passable.includes(s.threshold));
}

/**
 * Request fields of one vendor's wire that another vendor cannot leave out:
 * features whose absence changes the answer (MCP servers' tools, a code
 * execution container and its skills, token biases, a prompt stored with
 * OpenAI). Every other field a client set for its own vendor (a serving hint,
 * a field newer than this gateway, a value the facade could not map) is left
 * out elsewhere, so that a client's new release does not break on other
 * vendors (docs/translation.md).
 */
const FOREIGN_FEATURES = new Set(["mcp_servers", "container", "logit_bias", "prompt"]);

/** Refuses, naming it, the first field of another wire's request extras (not `vendor`'s, nor `own`) that `vendor` cannot leave out. */
export function refuseForeignExtras(extras: Record<string, JsonObject>, vendor: string, own: readonly string[] = []): void {
  for (const v in extras) {
    if (v === vendor || own.includes(v)) continue;
    for (const k of Object.keys(extras[v]!)) if (FOREIGN_FEATURES.has(k)) throw unsupported(vendor, k, `the ${v} field ${k}`);
  }
}
