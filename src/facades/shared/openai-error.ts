// The OpenAI error envelope, shared by the facades that answer in OpenAI's
// shape (models, chat completions): {"error":{message, type, param, code}}.
// Each facade keeps its own table from core errors to these.

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface OpenAIWireError {
  status: number;
  body: OpenAIErrorBody;
  /** retry-after and retry-after-ms for a 429, when the core says when to retry. */
  headers?: Record<string, string>;
}

export function openAIError(status: number, message: string, type: string, code: string | null = null, param: string | null = null): OpenAIWireError {
  return { status, body: { error: { message, type, param, code } } };
}

/** What OpenAI answers a request without a key. */
export const MISSING_KEY = "You didn't provide an API key. Send it as 'Authorization: Bearer <key>'.";

/** What OpenAI answers a key it does not know (without echoing the key). */
export const INCORRECT_KEY = "Incorrect API key provided. You can find your API key in the gateway's admin console.";
