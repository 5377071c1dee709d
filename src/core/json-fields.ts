// What a translation keeps of a wire object beyond the fields it maps: the
// rest goes to vendor_extras, for a same-vendor round trip.
import type { JsonObject } from "@bufbuild/protobuf";
import { PartSchema, type Part } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { create } from "./proto/create.js";

/**
 * The fields of a parsed JSON object that `known` does not name (undefined
 * values, and nulls when asked, left out), or undefined when there are none.
 * Keys, not Object.entries: one array a call instead of one per field, and no
 * object when nothing is left over.
 */
export function unknownFields(o: object, known: ReadonlySet<string>, dropNull = false): JsonObject | undefined {
  let out: JsonObject | undefined;
  for (const k of Object.keys(o)) {
    if (known.has(k)) continue;
    const v = (o as Record<string, unknown>)[k];
    if (v === undefined || (dropNull && v === null)) continue;
    (out ??= {})[k] = v as JsonObject[string];
  }
  return out;
}

/** vendor_extras for a same-vendor round trip: `{ [vendor]: the unknown fields }`, or `{}` when there are none. */
export function vendorExtrasOf(vendor: string, o: object, known: ReadonlySet<string>, dropNull = false): Record<string, JsonObject> {
  const out = unknownFields(o, known, dropNull);
  return out ? { [vendor]: out } : {};
}

/**
 * A part with no neutral kind that carries one whole block of `vendor`'s wire
 * (an Anthropic server tool's use or result): it goes back to that vendor as
 * it came, and every other vendor leaves it out.
 */
export function opaquePart(vendor: string, block: object): Part {
  return create(PartSchema, { vendorExtras: { [vendor]: block as JsonObject } });
}

/**
 * Whether a part's extras for one vendor are a whole block of its wire (an
 * opaquePart's or a standInPart's) rather than fields beside a neutral kind:
 * those never name a `type`, every translation maps it.
 */
export const isWholeBlock = (x: JsonObject): boolean => typeof x.type === "string";

/** The block an opaquePart of `vendor` carries; undefined for any other part. */
export function opaqueBlock(p: Part, vendor: string): JsonObject | undefined {
  const x = p.kind.case === undefined ? p.vendorExtras[vendor] : undefined;
  return x && isWholeBlock(x) ? x : undefined;
}

/**
 * A text part that stands in for one whole block of `vendor`'s wire which the
 * neutral model has no kind for but which every vendor can still read as text
 * (an Anthropic search result or tool reference): `vendor` gets the block back
 * as it came (isWholeBlock), every other vendor the text.
 */
export function standInPart(vendor: string, block: object, text: string): Part {
  return create(PartSchema, { kind: { case: "text", value: { text } }, vendorExtras: { [vendor]: block as JsonObject } });
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Lays `extra` (what a client sent that the neutral model does not carry: its
 * unknown fields, the unknown values of fields it knows) over the body a
 * provider of the client's own vendor built, so that vendor gets the request as
 * it was sent. Objects merge key by key into copies (neither input changes);
 * anything else in `extra` wins.
 */
export function overlayFields(body: Record<string, unknown>, extra: JsonObject): void {
  for (const k of Object.keys(extra)) {
    const v = extra[k];
    const b = body[k];
    if (isObject(b) && isObject(v)) {
      const copy: Record<string, unknown> = { ...b };
      overlayFields(copy, v);
      body[k] = copy;
    } else body[k] = v;
  }
}
