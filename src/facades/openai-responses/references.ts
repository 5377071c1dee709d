// item_reference input items ({"type":"item_reference","id":"msg_…"}), which
// the AI SDK and others send instead of an output item they got from a stored
// response: each is replaced by the stored item. An output item's id names
// its response (ids.ts), so one stored context per response resolves them;
// an id of no stored response of the caller's is OpenAI's 400.
import type { JsonObject } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { coreError } from "../../core/errors.js";
import type * as wire from "./wire.js";

/** `<prefix>_<48 hex of the response id><output index in hex>`: the response's id, or undefined for an id the gateway did not mint. */
export function responseIdOfItem(id: string): string | undefined {
  const m = /^(?:msg|rs|fc|ctc|cmp|ig|ws)_([0-9a-f]{48})[0-9a-f]{2,}$/.exec(id);
  return m ? `resp_${m[1]}` : undefined;
}

const isReference = (item: wire.InputItem): item is wire.ItemReference => (item as { type?: unknown }).type === "item_reference";

/** Whether the request's input holds any reference (the common request holds none and costs one scan). */
export function hasReferences(input: wire.ResponsesRequest["input"]): boolean {
  return Array.isArray(input) && input.some(isReference);
}

const notFound = (id: string, at: number) => coreError(Code.InvalidArgument, `Item with id '${id.slice(0, 128)}' not found.`, { reason: "item_not_found", field: `input[${at}].id` });

/**
 * The input with every reference replaced by its stored item. `context` gives
 * the stored items of a response of the caller's (its conversation up to and
 * including it), or undefined when there is none.
 */
export async function resolveReferences(input: readonly wire.InputItem[], context: (responseId: string) => Promise<JsonObject[] | undefined>): Promise<wire.InputItem[]> {
  const byResponse = new Map<string, Promise<Map<string, JsonObject>>>();
  const itemsOf = (responseId: string) => {
    let m = byResponse.get(responseId);
    if (!m) {
      m = context(responseId).then((items) => new Map((items ?? []).flatMap((i) => (typeof i.id === "string" ? [[i.id, i] as const] : []))));
      byResponse.set(responseId, m);
    }
    return m;
  };
  return Promise.all(
    input.map(async (item, at) => {
      if (!isReference(item)) return item;
      const responseId = responseIdOfItem(item.id);
      const found = responseId ? (await itemsOf(responseId)).get(item.id) : undefined;
      if (!found) throw notFound(item.id, at);
      return found as wire.InputItem;
    }),
  );
}
