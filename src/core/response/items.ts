// The item lists of a stored response: ids for input items that came without
// one, context documents joined without parsing them, and the pages of the
// input-items listing. Pure.
import type { JsonObject } from "@bufbuild/protobuf";
import { randomHex } from "../../lib/ids.js";

/** A message item: typed "message", or a bare {role, content} (the SDKs' EasyInputMessage). */
const isMessage = (item: JsonObject): boolean => item.type === "message" || (item.type === undefined && typeof item.role === "string");

/** The items, each with an "id": its own, or a new "msg_…" (messages) or "item_…" (anything else). */
export function withItemIds(items: readonly JsonObject[]): JsonObject[] {
  return items.map((item) => {
    if (typeof item.id === "string" && item.id !== "") return item;
    const { id: _, ...rest } = item;
    return { id: (isMessage(item) ? "msg_" : "item_") + randomHex(24), ...rest };
  });
}

/**
 * One JSON array of the elements of several, as text. Each part is a compact
 * array as JSON.stringify writes it ("[]" or "[…]"), so a context of many MB
 * grows by its new items without being parsed again.
 */
export function joinJsonArrays(parts: readonly string[]): string {
  const inner: string[] = [];
  for (const p of parts) if (p.length > 2) inner.push(p.slice(1, -1));
  return `[${inner.join(",")}]`;
}

export interface ItemPage {
  items: JsonObject[];
  hasMore: boolean;
}

/**
 * A page of items in the order asked for, starting after the item whose id is
 * `after` ("" for the first page); undefined when no item has that id.
 */
export function pageOf(items: readonly JsonObject[], o: { after: string; limit: number; desc: boolean }): ItemPage | undefined {
  const ordered = o.desc ? [...items].reverse() : items;
  let start = 0;
  if (o.after) {
    const at = ordered.findIndex((item) => item.id === o.after);
    if (at < 0) return undefined;
    start = at + 1;
  }
  return { items: ordered.slice(start, start + o.limit), hasMore: ordered.length > start + o.limit };
}
