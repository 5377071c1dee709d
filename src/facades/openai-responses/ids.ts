// Ids of a Response's output items, derived from the response id and the
// item's output index: the unary and the streamed answer name the same items
// alike, and a stored response's items keep unique ids without any state.
import { createHash } from "node:crypto";

export type ItemPrefix = "msg" | "rs" | "fc" | "ctc" | "cmp" | "ig";

/** `<prefix>_` and 48 hex digits, as OpenAI's item ids look. */
export function itemId(prefix: ItemPrefix, responseId: string, outputIndex: number): string {
  return `${prefix}_${createHash("sha256").update(`${responseId}\0${outputIndex}`).digest("hex").slice(0, 48)}`;
}
