// The edge of the facades that answer in OpenAI's shape (Chat Completions,
// Responses): an error reply, and the checks made before the body is read.
// The key comes first, from the headers: a wrong key is a 401
// invalid_api_key whatever the body holds, as on OpenAI's API.
import type { FastifyReply, FastifyRequest } from "fastify";
import { keyIsValid, type Authenticator } from "../../core/auth/authenticator.js";
import { bearerToken } from "../../core/auth/bearer.js";
import { INCORRECT_KEY, INVALID_JSON, MISSING_KEY, invalidRequest, openAIError, type OpenAIWireError } from "./openai-error.js";
import { closeIfUnread } from "./upload-cap.js";

/** An OpenAI error as the reply; a 5xx with a cause is logged under `what`. */
export function sendOpenAIError(req: FastifyRequest, reply: FastifyReply, e: OpenAIWireError, cause?: unknown, what = "openai facade error"): FastifyReply {
  if (e.status >= 500 && cause !== undefined) req.log.error({ err: cause }, what);
  if (e.headers) reply.headers(e.headers);
  closeIfUnread(req, reply);
  return reply.code(e.status).type("application/json").send(e.body);
}

export type Hook = (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void;

export interface HeaderCheckOptions {
  /** Refuse a body that is not JSON (400) before it is parsed: fastify parses text/plain too. */
  json: boolean;
  /** Headers to set on every answer, before any check (Codex's turn state). */
  echo?: (req: FastifyRequest, reply: FastifyReply) => void;
}

function isJson(req: FastifyRequest): boolean {
  const raw = req.headers["content-type"];
  // What nearly every client sends, answered without splitting.
  if (raw === "application/json") return true;
  const type = String(raw ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  return type === "application/json" || type.endsWith("+json");
}

/**
 * The key, present and valid (401 invalid_api_key), then, when asked, a JSON
 * content type (400). One callback-style hook: synchronous when the key cache
 * knows the key.
 */
export function openAIHeaderChecks(auth: Authenticator, opts: HeaderCheckOptions): Hook {
  const refuse = (req: FastifyRequest, reply: FastifyReply, message: string) => void sendOpenAIError(req, reply, openAIError(401, message, "invalid_request_error", "invalid_api_key"));
  const rest = (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (opts.json && !isJson(req)) return void sendOpenAIError(req, reply, invalidRequest(INVALID_JSON));
    done();
  };
  return (req, reply, done) => {
    // OpenAI's name for the request id (the SDKs read it into `_request_id`); `request-id` is set for every format.
    reply.header("x-request-id", req.id);
    opts.echo?.(req, reply);
    const key = bearerToken(req.headers.authorization);
    if (!key) return refuse(req, reply, MISSING_KEY);
    const valid = keyIsValid(auth, key);
    if (valid === true) return rest(req, reply, done);
    if (valid === false) return refuse(req, reply, INCORRECT_KEY);
    valid.then((ok) => (ok ? rest(req, reply, done) : refuse(req, reply, INCORRECT_KEY)), done);
  };
}
