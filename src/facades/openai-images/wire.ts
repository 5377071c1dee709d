// The OpenAI Images API as clients send it (zod) and as they read it (types),
// streamed events included. Unknown parameters are refused like OpenAI does.
// `seed` is a gateway extension (the local engine is deterministic for a
// prompt and seed).
import { z } from "zod";
import { MAX_PARTIAL_IMAGES } from "../../core/image/validate.js";

const str = z.string().nullish();
const int = z.number().int().nullish();
const responseFormat = z.enum(["url", "b64_json"]).nullish();

const common = {
  model: str,
  n: z.number().int().min(1).nullish(),
  size: str,
  response_format: responseFormat,
  user: str,
  seed: int,
};

const gptImage = {
  quality: str,
  output_format: str,
  background: str,
  output_compression: int,
  moderation: str,
  partial_images: z.number().int().min(0).max(MAX_PARTIAL_IMAGES).nullish(),
  stream: z.boolean().nullish(),
};

export const generationsBody = z.object({ prompt: z.string(), ...common, ...gptImage, style: str }).strict();
export type GenerationsBody = z.infer<typeof generationsBody>;

/** Text fields of POST /v1/images/edits (files travel separately). */
export const editFields = z.object({ prompt: z.string(), ...common, ...gptImage, input_fidelity: str }).strict();
export type EditFields = z.infer<typeof editFields>;

/** Text fields of POST /v1/images/variations. */
export const variationFields = z.object(common).strict();
export type VariationFields = z.infer<typeof variationFields>;

/** Multipart fields whose values are numbers or booleans on the JSON side. */
export const NUMERIC_FIELDS = new Set(["n", "output_compression", "partial_images", "seed"]);
export const BOOLEAN_FIELDS = new Set(["stream"]);

/** Field names that carry image files: `image`, or `image[]` (also `image[0]`...) for several. */
export const IMAGE_FIELD = /^image(\[\d*\])?$/;

export interface ImageObject {
  url?: string;
  b64_json?: string;
  revised_prompt?: string;
}

export interface TokensDetails {
  text_tokens: number;
  image_tokens: number;
}

export interface Usage {
  input_tokens: number;
  input_tokens_details: TokensDetails;
  output_tokens: number;
  total_tokens: number;
  output_tokens_details?: TokensDetails;
}

export interface ImagesResponse {
  created: number;
  data: ImageObject[];
  background?: string;
  output_format?: string;
  quality?: string;
  size?: string;
  usage?: Usage;
}

/** `image_generation` (generations) or `image_edit` (edits). */
export type StreamPrefix = "image_generation" | "image_edit";

/** `<prefix>.partial_image` and `<prefix>.completed`: one image each, as base64. */
export interface ImageStreamEvent {
  type: `${StreamPrefix}.partial_image` | `${StreamPrefix}.completed`;
  b64_json: string;
  background: string;
  created_at: number;
  output_format: string;
  quality: string;
  size: string;
  partial_image_index?: number;
  usage?: Usage;
}

export interface ErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** The first problem of a failed parse, as OpenAI names it. */
export function describeIssue(error: z.ZodError, input: unknown): ErrorObject {
  const issue = error.issues.find((i) => i.code !== "unrecognized_keys") ?? error.issues[0]!;
  const param = issue.path.length ? issue.path.map(String).join(".") : null;
  const base = { type: "invalid_request_error" };
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    return { ...base, message: `Unknown parameter: '${key}'.`, param: key, code: "unknown_parameter" };
  }
  const value = param && input && typeof input === "object" ? (input as Record<string, unknown>)[issue.path[0] as string] : input;
  if (issue.code === "invalid_type") {
    if (param === null) return { ...base, message: "The request body must be a JSON object.", param: null, code: "invalid_type" };
    if (value === undefined) return { ...base, message: `Missing required parameter: '${param}'.`, param, code: "missing_required_parameter" };
    const got = Array.isArray(value) ? "an array" : value === null ? "null" : typeof value === "number" ? (Number.isInteger(value) ? "an integer" : "a decimal number") : `a ${typeof value}`;
    const expected = issue.expected === "int" ? "an integer" : issue.expected === "object" ? "an object" : `a ${issue.expected}`;
    return { ...base, message: `Invalid type for '${param}': expected ${expected}, but got ${got} instead.`, param, code: "invalid_type" };
  }
  if (issue.code === "too_small") {
    return {
      ...base,
      message: `Invalid '${param}': integer below minimum value. Expected a value >= ${String(issue.minimum)}, but got ${String(value)} instead.`,
      param,
      code: "integer_below_min_value",
    };
  }
  if (issue.code === "too_big") {
    return {
      ...base,
      message: `Invalid '${param}': integer above maximum value. Expected a value <= ${String(issue.maximum)}, but got ${String(value)} instead.`,
      param,
      code: "integer_above_max_value",
    };
  }
  if (issue.code === "invalid_value") {
    const values = issue.values.map((v) => `'${String(v)}'`);
    const list = values.length === 2 ? values.join(" and ") : values.join(", ");
    return { ...base, message: `Invalid value: '${String(value)}'. Supported values are: ${list}.`, param, code: "invalid_value" };
  }
  return { ...base, message: `Invalid '${param ?? "body"}': ${issue.message}.`, param, code: "invalid_value" };
}
