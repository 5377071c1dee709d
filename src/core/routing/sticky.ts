// Sticky routing hint: a conversation whose latest signed turn carries
// signatures from a vendor (Anthropic thinking signatures, Gemini
// thoughtSignatures) is best continued on a channel of that vendor, which can
// verify them; elsewhere they are dropped on purpose (docs/translation.md).
import type { ChatInput } from "../../../gen/omnigate/chat/v1/chat_pb.js";

/** Issuers of the signatures in the most recent turn that has any. */
export function signatureIssuers(input: ChatInput | undefined): Set<string> {
  const out = new Set<string>();
  if (!input) return out;
  for (let i = input.turns.length - 1; i >= 0 && out.size === 0; i--) {
    for (const p of input.turns[i]!.parts) {
      if (p.signature?.issuer && p.signature.value) out.add(p.signature.issuer);
      if (p.kind.case === "redactedThinking" && p.kind.value.issuer) out.add(p.kind.value.issuer);
    }
  }
  return out;
}
