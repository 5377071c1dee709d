// What a translation keeps of a wire object beyond the fields it maps: the
// rest goes to vendor_extras, for a same-vendor round trip.
import type { JsonObject } from "@bufbuild/protobuf";

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
