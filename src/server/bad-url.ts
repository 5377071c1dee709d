// Errors fastify raises before any route matches: a path that does not
// percent-decode ("/v1/videos/%ZZ") or a path segment over the router's
// maxParamLength. No facade's scope has been entered, so its error handler
// never sees them; without this, every format's client got fastify's own
// {error, code, message, statusCode} body. The path's prefix picks the
// format, as the facades' own prefixes do, and a shared path such as
// /v1/models goes by the caller's headers (wire-constraint.ts). Pure: the
// caller sends what it returns.
import { errorBody as anthropicBody } from "../facades/messages/errors.js";
import { badRequest as googleBadRequest } from "../facades/generate-content/errors.js";
import { wireError as imagesError } from "../facades/openai-images/errors.js";
import { errorBody as videoBody } from "../facades/video/errors.js";
import { CODE, wireError as imageBotError } from "../facades/image-bot/errors.js";
import type { Wire } from "./wire-constraint.js";

export interface BadUrlReply {
  status: number;
  body: unknown;
}

/** What went wrong, in words, from fastify's error code; undefined for codes that are not about the URL. */
export function badUrlMessage(code: string | undefined, path: string): string | undefined {
  const shown = path.length > 200 ? `${path.slice(0, 200)}...` : path;
  if (code === "FST_ERR_BAD_URL") return `Invalid URL: '${shown}' is not a valid URL path (a % must start a valid percent-encoded UTF-8 sequence).`;
  if (code === "FST_ERR_MAX_PARAM_LENGTH") return `Invalid URL: a path segment of '${shown}' is too long.`;
  return undefined;
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(prefix + "/") || path.startsWith(prefix + "?");

/** The 400 a client of the format that owns `url` reads for a URL it sent that cannot be routed. */
export function badUrlReply(url: string, wire: Wire, requestId: string, message: string): BadUrlReply {
  const anthropic = (): BadUrlReply => ({ status: 400, body: anthropicBody({ type: "invalid_request_error", message }, requestId) });
  const google = (): BadUrlReply => {
    const w = googleBadRequest(message, [{ field: "", description: message }]);
    return { status: w.httpStatus, body: w.body };
  };
  const openai = (): BadUrlReply => ({ status: 400, body: imagesError(400, message, null, "invalid_url").body });
  if (under(url, "/v1/messages")) return anthropic();
  if (under(url, "/v1beta")) return google();
  if (under(url, "/v1/images")) return openai();
  if (under(url, "/v1/videos")) return { status: 400, body: videoBody("openai", { status: 400, message, param: null, code: "invalid_url", type: "invalid_request_error", headers: {} }) };
  if (under(url, "/v1/video/generations")) return { status: 400, body: videoBody("generations", { status: 400, message, param: null, code: "invalid_url", type: "invalid_request_error", headers: {} }) };
  if (under(url, "/ib") || under(url, "/mj")) return { status: 400, body: imageBotError(400, CODE.PARAMETER_ERROR, message).body };
  // /v1/models and the rest of /v1 are shared: the caller's headers say whose client it is.
  if (under(url, "/v1")) return wire === "anthropic" ? anthropic() : wire === "gemini" ? google() : openai();
  return { status: 400, body: { error: "Bad Request", message, statusCode: 400 } };
}
