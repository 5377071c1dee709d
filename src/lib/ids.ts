// Random hex identifiers (request ids, message ids) from a pooled buffer of
// random bytes: one randomFillSync per 4 KiB instead of a UUID, a regex
// replace and a slice per id. The bytes are from the CSPRNG, as with
// randomBytes; nothing here is a secret, but ids must not collide or repeat.
import { randomFillSync } from "node:crypto";

const POOL_SIZE = 4096;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let offset = POOL_SIZE;

/** `bytes` random bytes as 2 x `bytes` lowercase hex digits (bytes <= 256). */
export function randomHex(bytes: number): string {
  if (offset + bytes > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const s = pool.toString("hex", offset, offset + bytes);
  offset += bytes;
  return s;
}
