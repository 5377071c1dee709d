// The two video wires, as zod shapes: /v1/video/generations (omnigate's task
// API, documented in docs/video.md) and /v1/videos (OpenAI's Videos API as
// openai@6.49 sends it: JSON or multipart create, remix, list query).
import { z } from "zod";

/** A whole number given as a number or a numeric string (multipart sends text). */
const wholeNumber = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^\s*\d{1,9}\s*$/, "expected a whole number")
    .transform((s) => Number(s.trim())),
]);

const seed = z.union([
  z.number().int().min(0),
  z
    .string()
    .regex(/^\s*\d{1,20}\s*$/, "expected a whole number")
    .transform((s) => s.trim()),
]);

export const generationsBody = z
  .object({
    model: z.string().max(256).optional(),
    prompt: z.string(),
    /** An http(s) URL or a data URL of the first frame. */
    image: z.string().nullish(),
    duration: wholeNumber.optional(),
    /** new-api's name for duration. */
    seconds: wholeNumber.optional(),
    size: z.string().max(32).optional(),
    aspect_ratio: z.string().max(16).optional(),
    fps: wholeNumber.optional(),
    seed: seed.optional(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
  })
  .strict();

export type GenerationsBody = z.infer<typeof generationsBody>;

const inputReferenceObject = z.object({ image_url: z.string().optional(), file_id: z.string().optional() }).strict();

export const videosCreateBody = z
  .object({
    prompt: z.string(),
    model: z.string().max(256).optional(),
    seconds: wholeNumber.optional(),
    size: z.string().max(32).optional(),
    input_reference: inputReferenceObject.optional(),
  })
  .strict();

export type VideosCreateBody = z.infer<typeof videosCreateBody>;

export const remixBody = z.object({ prompt: z.string() }).strict();

export const listQuery = z
  .object({
    after: z.string().max(128).optional(),
    limit: wholeNumber.optional(),
    order: z.enum(["asc", "desc"]).optional(),
  })
  .strict();

export const contentQuery = z.object({ variant: z.enum(["video", "thumbnail", "spritesheet"]).optional() }).strict();

/** Path ids: ours are video_<hex>; anything else is simply unknown, but must be a sane string. */
export const TASK_ID = /^[\w-]{1,128}$/;

export interface Issue {
  message: string;
  param: string | null;
  code: string;
}

/** The first zod issue, worded the OpenAI way. */
export function describeIssue(error: z.ZodError, input: unknown, names: Record<string, string> = {}): Issue {
  const issue = error.issues.find((i) => i.code !== "unrecognized_keys") ?? error.issues[0]!;
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    return { message: `Unknown parameter: '${key}'.`, param: key, code: "unknown_parameter" };
  }
  const path = issue.path.map(String);
  const param = path.length ? path.map((p) => names[p] ?? p).join(".") : null;
  const top = path[0];
  const value = top !== undefined && input && typeof input === "object" ? (input as Record<string, unknown>)[top] : input;
  if (param === null) return { message: "The request body must be a JSON object.", param: null, code: "invalid_type" };
  if (issue.code === "invalid_type" && value === undefined) return { message: `Missing required parameter: '${param}'.`, param, code: "missing_required_parameter" };
  if (issue.code === "invalid_union") {
    // A branch that took the value's type but not the value (a numeric field given "five", which multipart
    // sends as text like any number): its own check says what was wrong, where "got a string" would not. The
    // code stays invalid_type: the value is not of the number type the field takes.
    const check = issue.errors.flat().find((i) => i.code !== "invalid_type" && i.path.length === 0);
    if (check) return { message: `Invalid '${param}': ${check.message}, got '${String(value).slice(0, 64)}'.`, param, code: "invalid_type" };
  }
  if (issue.code === "invalid_type" || issue.code === "invalid_union") {
    const got = Array.isArray(value) ? "an array" : value === null ? "null" : typeof value === "number" ? (Number.isInteger(value) ? "an integer" : "a decimal number") : `a ${typeof value}`;
    return { message: `Invalid type for '${param}': got ${got}.`, param, code: "invalid_type" };
  }
  if (issue.code === "invalid_value") {
    const values = issue.values.map((v) => `'${String(v)}'`).join(", ");
    return { message: `Invalid value: '${String(value)}'. Supported values are: ${values}.`, param, code: "invalid_value" };
  }
  if (issue.code === "too_big") return { message: `Invalid '${param}': the value is too long or too large.`, param, code: "invalid_value" };
  return { message: `Invalid '${param}': ${issue.message}.`, param, code: "invalid_value" };
}
