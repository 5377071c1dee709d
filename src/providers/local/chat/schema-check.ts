// JSON Schema validation for the local engine (ajv), used to pick a oneOf
// branch that matches exactly one alternative. Compiled validators are kept in
// a small cache; a schema ajv cannot compile is treated as "no opinion".
import { Ajv, type ValidateFunction } from "ajv";
import { boundedRegExp } from "./safe-pattern.js";

const MAX_CACHED = 64;
const cache = new Map<string, ValidateFunction | null>();

function compile(schema: unknown): ValidateFunction | null {
  const key = JSON.stringify(schema);
  if (cache.has(key)) return cache.get(key)!;
  let fn: ValidateFunction | null = null;
  try {
    // A fresh instance per schema: ajv keeps every schema it compiled, and ids may repeat.
    const ajv = new Ajv({ strict: false, validateFormats: false, logger: false, code: { regExp: boundedRegExp } });
    const copy = schema && typeof schema === "object" && !Array.isArray(schema) ? { ...(schema as Record<string, unknown>) } : schema;
    if (copy && typeof copy === "object") {
      delete (copy as Record<string, unknown>).$schema;
      delete (copy as Record<string, unknown>).$id;
    }
    fn = ajv.compile(copy as object);
  } catch {
    fn = null;
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, fn);
  return fn;
}

/** Whether `value` validates against `schema`; undefined when the schema cannot be compiled. */
export function validates(schema: unknown, value: unknown): boolean | undefined {
  const fn = compile(schema);
  return fn ? fn(value) : undefined;
}
