// sparseObject(shape): a z.object that validates only the keys a value has.
//
// zod's object parser runs every field's schema for every value, present or
// not: the Gemini generationConfig has 19 optional fields, and a body that
// sets one of them paid 19 runs (about 390 ns, against 70 for an object of the
// one field). A wire object with many optional fields and few set in any one
// request parses here with a schema of its required fields and the optional
// ones the value sets, made once per combination of keys and kept (up to
// MAX_VARIANTS; past that the whole schema runs, as before).
//
// The result, the issues and their paths are the object's own: the narrower
// schema is built from the same field schemas, in the same order, and is run
// with the same context; a value that is not an object goes to the whole
// schema, whose error that is. This reaches into zod's internals: `_zod.run`,
// what zod and its wrappers (optional, array, pipe) call, which for an object
// without checks is its parser `_zod.parse`; when a zod version no longer
// works that way, the object is returned unchanged and parses the slow way.
import { z } from "zod";

/** Fields above which a narrower schema pays for the key check (measured: 4 optional fields cost about what the check does). */
const MIN_OPTIONAL = 4;
/** Combinations of keys kept per object type; enough for every client seen, bounded against one that sends them all. */
export const MAX_VARIANTS = 256;

type ParseFn = (payload: { value: unknown; issues: unknown[] }, ctx: unknown) => unknown;
interface Internals {
  parse?: ParseFn;
  run?: ParseFn;
}

export function sparseObject<T extends z.ZodRawShape>(shape: T): z.ZodObject<T> {
  const whole = z.object(shape);
  const internals = (whole as unknown as { _zod?: Internals })._zod;
  const keys = Object.keys(shape);
  // Optional in and out: an absent key yields nothing (a default, optional
  // in only, yields its value, so such a field always runs).
  const optional = keys.filter((k) => {
    const f = (shape[k] as unknown as { _zod?: { optin?: string; optout?: string } })._zod;
    return f?.optin === "optional" && f.optout === "optional";
  });
  // An object without checks runs its parser as it is (`run` is `parse`).
  if (!internals || typeof internals.parse !== "function" || internals.run !== internals.parse) return whole;
  if (optional.length < MIN_OPTIONAL || optional.length > 31) return whole;
  const wholeParse = internals.parse;
  const required = keys.filter((k) => !optional.includes(k));
  // Each optional field's bit in a variant's mask.
  const bits = new Map(optional.map((k, i) => [k, 1 << i]));
  const variants = new Map<number, ParseFn>();

  const variant = (mask: number): ParseFn | undefined => {
    const known = variants.get(mask);
    if (known || variants.size >= MAX_VARIANTS) return known;
    const picked: Record<string, z.ZodType> = {};
    // The whole shape's order, so the parsed object's keys come in the same order.
    for (const k of keys) if (required.includes(k) || mask & (1 << optional.indexOf(k))) picked[k] = shape[k] as unknown as z.ZodType;
    const s = (z.object(picked) as unknown as { _zod: { parse: ParseFn } })._zod;
    const parse: ParseFn = (payload, ctx) => s.parse(payload, ctx);
    variants.set(mask, parse);
    return parse;
  };

  const sparseParse: ParseFn = (payload, ctx) => {
    const v = payload.value;
    if (typeof v !== "object" || v === null || Array.isArray(v)) return wholeParse(payload, ctx);
    // The value's own keys are walked, not the schema's: a Map lookup per key
    // it has, where probing each optional field is a slow keyed lookup each.
    let mask = 0;
    for (const k in v) {
      const bit = bits.get(k);
      if (bit !== undefined) mask |= bit;
    }
    const parse = variant(mask);
    return parse ? parse(payload, ctx) : wholeParse(payload, ctx);
  };
  internals.parse = sparseParse;
  internals.run = sparseParse;
  return whole;
}
