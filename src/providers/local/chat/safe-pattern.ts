// How the local engine tests a string against a client's JSON Schema
// `pattern`. V8's regular expressions backtrack: `^(\w+\s?)+$` against 43
// letters and a "!" runs for hours, and the strings tested are the client's
// own words (the prompt's hints), so one request could hold the gateway's only
// thread. Patterns go to RE2JS instead (a port of RE2: linear in the string,
// whatever the pattern). What RE2 does not have (backreferences, lookaround)
// runs on V8's engine, but only on strings short enough that even an
// exponential pattern ends in milliseconds; a longer string counts as not
// matching, and the sampler then builds one from the pattern.
import { createRequire } from "node:module";
import type { RE2JS as RE2JSClass } from "re2js";

let re2: typeof RE2JSClass | undefined;
/**
 * re2js, loaded on the first pattern (its CommonJS build, so the load is
 * synchronous): heap and RSS that an instance without the local engine's
 * structured output never needs.
 */
const RE2JS = (): typeof RE2JSClass => (re2 ??= (createRequire(import.meta.url)("re2js") as typeof import("re2js")).RE2JS);

/** Whether re2js has been loaded (for the test that it is loaded lazily). */
export const re2Loaded = (): boolean => re2 !== undefined;

/** Longest string a pattern RE2 cannot take is tested on (3^12 steps is about half a million). */
export const MAX_BACKTRACKED = 12;
const MAX_CACHED = 64;

export type PatternTest = (s: string) => boolean;
const cache = new Map<string, PatternTest | null>();

function compile(pattern: string): PatternTest | null {
  let js: RegExp;
  try {
    // The pattern must be a valid ECMAScript expression, as JSON Schema says.
    js = new RegExp(pattern, "u");
  } catch {
    return null;
  }
  try {
    const re = RE2JS().compile(pattern);
    return (s) => re.matcher(s).find();
  } catch {
    return (s) => s.length <= MAX_BACKTRACKED && js.test(s);
  }
}

/**
 * A test for `pattern` whose time is bounded for any string (see above), or
 * undefined when the pattern is not a valid ECMAScript regular expression.
 */
export function patternTest(pattern: string): PatternTest | undefined {
  let t = cache.get(pattern);
  if (t === undefined) {
    t = compile(pattern);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(pattern, t);
  }
  return t ?? undefined;
}

/**
 * The same for ajv (its `code.regExp` option), so that the validation the
 * local engine runs on its own output is bounded too. An invalid pattern
 * throws, as `new RegExp` would, and ajv reports the schema as invalid.
 */
export const boundedRegExp = Object.assign(
  (pattern: string, _flags: string) => {
    const test = patternTest(pattern);
    if (!test) throw new SyntaxError(`invalid pattern: ${pattern}`);
    return { test };
  },
  // Only read when ajv generates standalone code, which the engine does not.
  { code: "boundedRegExp" },
);
