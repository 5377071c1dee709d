// Signatures the local engine issues and verifies. A thinking part is signed
// with base64(HMAC-SHA256(secret, thinking text)). Any other part is signed
// over a canonical form of the part (below): a text part over its kind only
// (so that a client that re-chunks streamed text can still send it back), a
// tool call over its name and arguments (keys sorted), and so on. Every input
// part whose signature issuer is "local" must verify; a non-thinking part may
// also carry the signature of a thinking part of the same turn (vendors such
// as Gemini attach the thought signature to the following part).
import { createHmac, createHash, timingSafeEqual } from "node:crypto";
import { create } from "../../core/proto/create.js";
import type { ConnectError } from "@connectrpc/connect";
import { SignatureSchema, type ChatInput, type Part, type Signature } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { invalidArgument } from "../../core/errors.js";

export const LOCAL_ISSUER = "local";

function hmac(secret: string, data: string): string {
  return createHmac("sha256", secret).update(data, "utf8").digest("base64");
}

/** JSON with object keys sorted, so equal values give equal strings. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** What a signature covers: the thinking text itself, or a canonical form of any other part. */
export function canonicalPart(p: Part): string {
  const k = p.kind;
  switch (k.case) {
    case "thinking":
      return k.value.text;
    case "text":
      return "omnigate-local:text";
    case "toolCall":
      return `omnigate-local:tool_call:${k.value.name}:${stableJson(k.value.arguments ?? {})}`;
    case "toolResult":
      return `omnigate-local:tool_result:${k.value.callId}:${k.value.name}`;
    case "media": {
      const src = k.value.source;
      const digest = createHash("sha256").update(src.case === "data" ? src.value : src.case === "uri" ? src.value : "").digest("hex");
      return `omnigate-local:media:${k.value.mimeType}:${digest}`;
    }
    case "redactedThinking":
      return `omnigate-local:redacted_thinking:${k.value.data}`;
    case "executableCode":
      return `omnigate-local:executable_code:${k.value.language}:${k.value.code}`;
    case "codeExecutionResult":
      return `omnigate-local:code_execution_result:${k.value.outcome}:${k.value.output}`;
    default:
      return "omnigate-local:empty";
  }
}

export function signPart(secret: string, p: Part): Signature {
  return create(SignatureSchema, { issuer: LOCAL_ISSUER, value: hmac(secret, canonicalPart(p)) });
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The first input part whose local signature does not verify, as an InvalidArgument error. */
export function verifyInputSignatures(input: ChatInput, secret: string): ConnectError | undefined {
  for (const [pi, p] of input.system.entries()) {
    if (p.signature?.issuer === LOCAL_ISSUER && !same(p.signature.value, hmac(secret, canonicalPart(p)))) {
      const field = `system[${pi}].signature`;
      return invalidArgument(`${field}: the signature does not match the content it was issued for`, field, "invalid_signature");
    }
  }
  for (const [ti, turn] of input.turns.entries()) {
    const thoughtSigs = turn.parts.filter((p) => p.kind.case === "thinking").map((p) => hmac(secret, canonicalPart(p)));
    for (const [pi, p] of turn.parts.entries()) {
      if (p.signature?.issuer !== LOCAL_ISSUER) continue;
      const value = p.signature.value;
      const ok = same(value, hmac(secret, canonicalPart(p))) || (p.kind.case !== "thinking" && thoughtSigs.some((s) => same(value, s)));
      if (!ok) {
        const field = `turns[${ti}].parts[${pi}].signature`;
        return invalidArgument(`${field}: the signature does not match the content it was issued for`, field, "invalid_signature");
      }
    }
  }
  return undefined;
}
