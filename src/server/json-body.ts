// The facades' JSON body parser: fastify's own (secure-json-parse, with its
// prototype-poisoning checks), plus two checks of what parsed.
//
// Nesting. JSON.parse reads any
// depth, but much of what follows recurses (zod on recursive schemas such as
// the Gemini Schema, the translation to protobuf Struct values, the token
// count's and the upstream request's JSON.stringify), and a body nested a few
// thousand levels deep in a free-form field (a tool's input, a schema, a
// function call's args) overflowed the stack there: a 500. A body nested
// deeper than MAX_JSON_DEPTH is now refused as one that does not parse: a 400
// that every facade words in its own format. Protocol Buffers parsers stop at
// 100 levels by default, Google's APIs among them, so no body a vendor takes
// is refused here.
//
// Unpaired surrogates (lib/unicode.ts). The neutral model cannot hold one:
// it broke where a message is copied or encoded (a 500). It is refused as
// JSON that does not parse, as Anthropic's API refuses it ("no low surrogate
// in string").
import type { FastifyInstance, FastifyRequest } from "fastify";
import { isWellFormed, mayHoldSurrogate } from "../lib/unicode.js";

export const MAX_JSON_DEPTH = 100;

/** A 400 the facades read as a body that does not parse (like request-encoding.ts's). */
export class JsonDepthError extends Error {
  override name = "JsonDepthError";
  readonly statusCode = 400;
  readonly code = "FST_ERR_CTP_INVALID_JSON_BODY";
  constructor() {
    super(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
}

/**
 * Whether `v` holds objects or arrays nested more than `max` levels (a
 * scalar is level 0, `{}` level 1). The walk goes no deeper than max + 1, so
 * it cannot overflow the stack itself, and it visits each value once.
 */
export function nestedDeeperThan(v: unknown, max: number): boolean {
  if (typeof v !== "object" || v === null) return false;
  if (max <= 0) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (nestedDeeperThan(v[i], max - 1)) return true;
    return false;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) if (nestedDeeperThan(o[k], max - 1)) return true;
  return false;
}

/** A 400 the facades read as a body that does not parse: a string that is not valid Unicode. */
export class UnpairedSurrogateError extends Error {
  override name = "UnpairedSurrogateError";
  readonly statusCode = 400;
  readonly code = "FST_ERR_CTP_INVALID_JSON_BODY";
  constructor(path: string) {
    super(`the string at ${path} holds an unpaired UTF-16 surrogate (a \\u escape in D800-DFFF without its pair); text must be valid Unicode`);
  }
}

/**
 * The path ($.a[0].b) of the first key or string value in `v` holding an
 * unpaired surrogate; undefined when every string is well formed. Recursive:
 * call it on values no deeper than MAX_JSON_DEPTH.
 */
export function unpairedSurrogateAt(v: unknown, path = "$"): string | undefined {
  if (typeof v === "string") return isWellFormed(v) ? undefined : path;
  if (typeof v !== "object" || v === null) return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const at = unpairedSurrogateAt(v[i], `${path}[${i}]`);
      if (at !== undefined) return at;
    }
    return undefined;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const key = `${path}.${k}`;
    if (!isWellFormed(k)) return key;
    const at = unpairedSurrogateAt(o[k], key);
    if (at !== undefined) return at;
  }
  return undefined;
}

/** Replaces the scope's application/json parser with fastify's default plus the depth and surrogate checks. */
export function useFacadeJsonParser(scope: FastifyInstance): void {
  const parse = scope.getDefaultJsonParser("error", "error");
  scope.removeContentTypeParser("application/json");
  scope.addContentTypeParser("application/json", { parseAs: "string" }, (req: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    parse(req, body as string, (err: Error | null, value?: unknown) => {
      if (err) return done(err);
      // A body shorter than twice the limit cannot open that many brackets.
      if (body.length > 2 * MAX_JSON_DEPTH && nestedDeeperThan(value, MAX_JSON_DEPTH)) return done(new JsonDepthError());
      if (mayHoldSurrogate(body as string)) {
        const at = unpairedSurrogateAt(value);
        if (at !== undefined) return done(new UnpairedSurrogateError(at));
      }
      done(null, value);
    });
  });
}
