// Opaque blobs the gateway hands a Responses client and takes back verbatim:
// reasoning of a non-OpenAI upstream (thinking with its signature) in
// `encrypted_content`, and compaction summaries. AES-256-GCM under a key
// derived from the gateway's sealing secret, so a client can neither read nor
// alter them; anything that does not open is refused by the caller. Pure.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import { TurnSchema, type Part } from "../../../gen/omnigate/chat/v1/chat_pb.js";

/** Every sealed blob starts with this, so a foreign blob (OpenAI's own "gAAAA…") is told apart before decrypting. */
export const SEAL_PREFIX = "og1.";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface Sealer {
  seal(plain: Uint8Array): string;
  /** The sealed bytes, or undefined when the blob is not one of ours or was altered. */
  open(blob: string): Uint8Array | undefined;
}

export function sealer(secret: string | Uint8Array): Sealer {
  const key = Buffer.from(hkdfSync("sha256", secret, "omnigate", "responses encrypted_content v1", 32));
  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const c = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([c.update(plain), c.final()]);
      return SEAL_PREFIX + Buffer.concat([iv, body, c.getAuthTag()]).toString("base64url");
    },
    open(blob) {
      if (!blob.startsWith(SEAL_PREFIX)) return undefined;
      const raw = Buffer.from(blob.slice(SEAL_PREFIX.length), "base64url");
      if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
      try {
        const d = createDecipheriv("aes-256-gcm", key, raw.subarray(0, IV_BYTES));
        d.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        return Buffer.concat([d.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), d.final()]);
      } catch {
        return undefined;
      }
    },
  };
}

/** Neutral parts (thinking with its signature, redacted thinking, a summary's text) sealed into one blob. */
export function sealParts(s: Sealer, parts: Part[]): string {
  return s.seal(toBinary(TurnSchema, create(TurnSchema, { parts })));
}

/** The parts a blob of sealParts holds, or undefined when it is not ours or was altered. */
export function openParts(s: Sealer, blob: string): Part[] | undefined {
  const bytes = s.open(blob);
  if (!bytes) return undefined;
  try {
    return fromBinary(TurnSchema, bytes).parts;
  } catch {
    return undefined;
  }
}
