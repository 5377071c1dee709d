// OpenAI's embeddings request (POST /v1/embeddings) as zod shapes, and the
// answer's types. `input` is a string, an array of strings, an array of
// token ids, or an array of token-id arrays. Fields the gateway does not
// model pass (to the "openai" vendor extras).
import { z } from "zod";

const tokenIds = z.array(z.number().int().nonnegative());

export const input = z.union([z.string(), z.array(z.string()), tokenIds, z.array(tokenIds)]);

export const embeddingsBody = z
  .object({
    model: z.string().min(1),
    input,
    encoding_format: z.enum(["float", "base64"]).optional(),
    dimensions: z.number().int().optional(),
    user: z.string().optional(),
  })
  .passthrough();

export type EmbeddingsBody = z.infer<typeof embeddingsBody>;

export interface EmbeddingObject {
  object: "embedding";
  index: number;
  /** Numbers, or with encoding_format "base64" little-endian float32 bytes in base64. */
  embedding: number[] | string;
}

export interface EmbeddingsResponse {
  object: "list";
  data: EmbeddingObject[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** What OpenAI says of the first problem zod found, with the parameter it is about. */
export function describeIssue(error: z.ZodError, body: unknown): { message: string; param: string | null; code: string } {
  const issue = error.issues[0];
  const path = issue?.path ?? [];
  const param = path.length ? path.reduce<string>((acc, p) => (typeof p === "number" ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), "") : null;
  if (!issue || body === null || typeof body !== "object" || Array.isArray(body)) {
    return { message: "The request body must be a JSON object.", param: null, code: "invalid_type" };
  }
  const given = (body as Record<string, unknown>)[String(path[0])];
  if (path.length === 1 && given === undefined) return { message: `Missing required parameter: '${param}'.`, param, code: "missing_required_parameter" };
  switch (path[0]) {
    case "input":
      return {
        message: "Invalid 'input': expected a string, an array of strings, an array of integers (tokens) or an array of integer arrays.",
        param: "input",
        code: "invalid_type",
      };
    case "encoding_format":
      return { message: `Invalid value: '${String(given)}'. Supported values are: 'float' and 'base64'.`, param, code: "invalid_value" };
    case "model":
      return { message: "Invalid 'model': expected a non-empty string.", param, code: typeof given === "string" ? "invalid_value" : "invalid_type" };
    case "dimensions":
      return { message: `Invalid type for 'dimensions': expected an integer, but got ${JSON.stringify(given)} instead.`, param, code: "invalid_type" };
    default:
      return { message: `Invalid '${param}': ${issue.message}`, param, code: "invalid_type" };
  }
}
