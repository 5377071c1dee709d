// Signatures the local engine issues and verifies. A thinking part's
// signature is "t1.<digest of its text>.<MAC of that digest>": it verifies
// with its text, and on its own where it travels without it (Gemini clients
// drop thought parts and send the thought's signature on the next part, as
// Google lets them). Any other part is signed with an HMAC over a canonical
// form of the part (below): a text part over its kind only (so that a client
// that re-chunks streamed text can still send it back), a tool call over its
// name and arguments (keys sorted) or free-text input, and so on. Every
// input part whose signature issuer is "local" must verify; a non-thinking
// part may instead carry a thinking part's signature.
import { createHmac, createHash, timingSafeEqual } from "node:crypto";
import { create } from "../../../core/proto/create.js";
import type { ConnectError } from "@connectrpc/connect";
import { SignatureSchema, type ChatInput, type Part, type Signature } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { invalidArgument } from "../../../core/errors.js";

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
      // A custom tool's call is signed over its free-text input.
      if (k.value.input !== undefined) return `omnigate-local:custom_call:${k.value.name}:${k.value.input}`;
      return `omnigate-local:tool_call:${k.value.name}:${stableJson(k.value.arguments ?? {})}`;
    case "toolResult":
      return `omnigate-local:tool_result:${k.value.callId}:${k.value.name}`;
    case "media": {
      const src = k.value.source;
      const digest = createHash("sha256")
        .update(src.case === "data" ? src.value : src.case === "uri" ? src.value : "")
        .digest("hex");
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

const THOUGHT = "t1.";
const digestOf = (text: string) => createHash("sha256").update(text, "utf8").digest("base64url");
const thoughtMac = (secret: string, digest: string) => hmac(secret, `omnigate-local:thought:${digest}`);

/** A thinking text's signature: its digest and a MAC over the digest. */
function thoughtSignature(secret: string, text: string): string {
  const d = digestOf(text);
  return `${THOUGHT}${d}.${thoughtMac(secret, d)}`;
}

/** Whether `value` is a thought signature this secret issued (for some text), checked without the text. */
function isIssuedThought(secret: string, value: string): boolean {
  if (!value.startsWith(THOUGHT)) return false;
  const [d, mac] = value.slice(THOUGHT.length).split(".", 2);
  return !!d && !!mac && same(mac, thoughtMac(secret, d));
}

export function signPart(secret: string, p: Part): Signature {
  const value = p.kind.case === "thinking" ? thoughtSignature(secret, p.kind.value.text) : hmac(secret, canonicalPart(p));
  return create(SignatureSchema, { issuer: LOCAL_ISSUER, value });
}

/** Whether a part's local signature verifies from what the part carries. */
function verifies(secret: string, p: Part, value: string): boolean {
  if (p.kind.case === "thinking") return same(value, thoughtSignature(secret, p.kind.value.text));
  return same(value, hmac(secret, canonicalPart(p))) || isIssuedThought(secret, value);
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The first input part whose local signature does not verify, as an InvalidArgument error. */
export function verifyInputSignatures(input: ChatInput, secret: string): ConnectError | undefined {
  const refuse = (field: string) => invalidArgument(`${field}: the signature does not match the content it was issued for`, field, "invalid_signature");
  for (const [pi, p] of input.system.entries()) {
    if (p.signature?.issuer === LOCAL_ISSUER && !verifies(secret, p, p.signature.value)) return refuse(`system[${pi}].signature`);
  }
  for (const [ti, turn] of input.turns.entries()) {
    for (const [pi, p] of turn.parts.entries()) {
      if (p.signature?.issuer === LOCAL_ISSUER && !verifies(secret, p, p.signature.value)) return refuse(`turns[${ti}].parts[${pi}].signature`);
    }
  }
  return undefined;
}
