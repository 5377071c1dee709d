// How a neutral Signature travels in a wire format that has a single opaque
// string for it (Anthropic thinking.signature, Gemini thoughtSignature).
// A signature issued by the wire's own vendor travels raw, so a same-vendor
// round trip is byte-identical. Any other issuer's signature is wrapped as
// base64("omnigate:<issuer>:<value>"), so that when the client sends it back
// the gateway knows who issued it and never sends it to the wrong vendor.
import { create } from "../proto/create.js";
import { SignatureSchema, type Signature } from "../../../gen/omnigate/chat/v1/chat_pb.js";

const TAG = "omnigate:";

export function encodeSignature(sig: Signature, wireVendor: string): string {
  if (sig.issuer === wireVendor) return sig.value;
  return Buffer.from(`${TAG}${sig.issuer}:${sig.value}`, "utf8").toString("base64");
}

export function decodeSignature(text: string, wireVendor: string): Signature {
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(text) && text.length % 4 === 0) {
    const plain = Buffer.from(text, "base64").toString("utf8");
    if (plain.startsWith(TAG)) {
      const rest = plain.slice(TAG.length);
      const i = rest.indexOf(":");
      if (i > 0) return create(SignatureSchema, { issuer: rest.slice(0, i), value: rest.slice(i + 1) });
    }
  }
  return create(SignatureSchema, { issuer: wireVendor, value: text });
}
