// Ids of a Response's output items, derived from the response id and the
// item's output index: the unary and the streamed answer name the same items
// alike, and a stored response's items keep unique ids without any state.
// The response id's own random part makes them unique; no hash is needed.

export type ItemPrefix = "msg" | "rs" | "fc" | "ctc" | "cmp" | "ig" | "ws";

/** `<prefix>_`, the response id's random part, and the output index in hex. */
export function itemId(prefix: ItemPrefix, responseId: string, outputIndex: number): string {
  const at = responseId.indexOf("_");
  return `${prefix}_${at < 0 ? responseId : responseId.slice(at + 1)}${outputIndex.toString(16).padStart(2, "0")}`;
}
