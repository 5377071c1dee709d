// sparse(schema): a zod object schema that validates only the keys a value has.
//
// zod's object parser runs every field's schema for every value, present or
// not: the Gemini generationConfig has 19 optional fields, and a body that
// sets one of them pays for 19 runs. A wire object with many optional fields
// and few set in any one request parses here with a schema of its required
// fields and the optional ones the value sets, made once per combination of
// keys and kept (up to MAX_VARIANTS; past that the whole schema runs).
//
// The result, the issues and their paths are the object's own: the narrower
// schema is built from the same field schemas, in the same order, with the
// same catchall (a loose object stays loose), and is run with the same
// context; the object's own checks (superRefine) still run after it; a value
// that is not an object goes to the whole schema, whose error that is.
//
// This reaches into zod's internals: `_zod.parse`, the object's parser, which
// `_zod.run` (what zod and its wrappers call) calls, or is, for an object
// without checks. When a zod version no longer looks like that, the schema is
// returned unchanged and parses the slow way.
import { z } from "zod";

/** Optional fields below which an object is left as it is. */
const MIN_OPTIONAL = 4;
/**
 * Combinations of keys kept per object type. A kept variant holds a schema and
 * its parser, so this bounds the heap a client sending every combination can
 * make us keep; clients send a few combinations each.
 */
export const MAX_VARIANTS = 64;

type ParseFn = (payload: { value: unknown; issues: unknown[] }, ctx: unknown) => unknown;
interface Internals {
  parse?: ParseFn;
  run?: ParseFn;
  def?: { catchall?: z.ZodType };
}
const internalsOf = (s: unknown) => (s as { _zod?: Internals })._zod;

export function sparse<T extends z.ZodObject>(schema: T): T {
  const internals = internalsOf(schema);
  const shape = schema.shape as Record<string, z.ZodType>;
  const keys = Object.keys(shape);
  // Optional in and out: an absent key yields nothing (a default, optional
  // in only, yields its value, so such a field always runs).
  const optional = keys.filter((k) => {
    const f = (shape[k] as unknown as { _zod?: { optin?: string; optout?: string } })._zod;
    return f?.optin === "optional" && f.optout === "optional";
  });
  if (!internals || typeof internals.parse !== "function" || typeof internals.run !== "function") return schema;
  if (optional.length < MIN_OPTIONAL || optional.length > 30) return schema;
  const wholeParse = internals.parse;
  const withoutChecks = internals.run === internals.parse;
  const catchall = internals.def?.catchall;
  const required = keys.filter((k) => !optional.includes(k));
  // Each optional field's bit in a variant's mask.
  const bits = new Map(optional.map((k, i) => [k, 1 << i]));
  const variants = new Map<number, ParseFn>();

  const variant = (mask: number): ParseFn | undefined => {
    const known = variants.get(mask);
    if (known || variants.size >= MAX_VARIANTS) return known;
    const picked: Record<string, z.ZodType> = {};
    // The whole shape's order, so the parsed object's keys come in the same order.
    for (const k of keys) if (required.includes(k) || (mask & bits.get(k)!) !== 0) picked[k] = shape[k]!;
    const narrow = catchall ? z.object(picked).catchall(catchall) : z.object(picked);
    const s = internalsOf(narrow)!;
    const parse: ParseFn = (payload, ctx) => s.parse!(payload, ctx);
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
  if (withoutChecks) internals.run = sparseParse;
  return schema;
}
