// How neutral signatures travel in Gemini's one opaque field, `thoughtSignature`.
//
// A part's own signature goes out with encodeSignature(sig, "gemini"): raw when
// Gemini issued it, wrapped with its issuer otherwise. Gemini attaches the
// signature of the thinking to the part that follows the thoughts, so a
// Thinking part's signature goes onto the next non-thought part. When the
// thoughts themselves are not shown (includeThoughts unset) and the issuer is
// not Gemini, the issuer still needs the thinking text back to verify it (a
// Gemini signature carries its own context; others do not), so the hidden
// thought travels inside the signature: base64("omnigate:thought:" + JSON).
import { create } from "../../core/proto/create.js";
import { SignatureSchema, type Signature } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { decodeSignature, encodeSignature } from "../../core/chat/signature-codec.js";
import { invalidArgument } from "../../core/errors.js";

export const GEMINI = "gemini";
const THOUGHT_TAG = "omnigate:thought:";

export type DecodedSignature = { kind: "signature"; signature: Signature } | { kind: "thought"; text: string; signature: Signature };

/** The wire form of a part's own signature. */
export function encodePartSignature(sig: Signature): string {
  return encodeSignature(sig, GEMINI);
}

/** The wire form of a hidden thought: its text and signature together. */
export function encodeHiddenThought(text: string, sig: Signature): string {
  if (sig.issuer === GEMINI) return sig.value;
  return Buffer.from(THOUGHT_TAG + JSON.stringify({ i: sig.issuer, v: sig.value, t: text }), "utf8").toString("base64");
}

/** Reads a thoughtSignature back; `field` names it in errors. */
export function decodeThoughtSignature(wire: string, field: string): DecodedSignature {
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(wire) && wire.length % 4 === 0) {
    const plain = Buffer.from(wire, "base64").toString("utf8");
    if (plain.startsWith(THOUGHT_TAG)) {
      let o: unknown;
      try {
        o = JSON.parse(plain.slice(THOUGHT_TAG.length));
      } catch {
        o = undefined;
      }
      const r = o as { i?: unknown; v?: unknown; t?: unknown } | undefined;
      if (!r || typeof r.i !== "string" || !r.i || typeof r.v !== "string" || typeof r.t !== "string") {
        throw invalidArgument(`${field}: the thought signature is corrupted`, field, "invalid_signature");
      }
      return { kind: "thought", text: r.t, signature: create(SignatureSchema, { issuer: r.i, value: r.v }) };
    }
  }
  return { kind: "signature", signature: decodeSignature(wire, GEMINI) };
}
