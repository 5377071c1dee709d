// Errors fastify raises before any route matches: a path that does not
// percent-decode ("/v1/videos/%ZZ") or a path segment over the router's
// maxParamLength. No facade's scope has been entered, so its error handler
// never sees them; without this, every format's client got fastify's own
// {error, code, message, statusCode} body. The path's prefix picks the
// format, as the facades' own prefixes do, and a shared path such as
// /v1/models goes by the caller's headers (wire-constraint.ts). Pure: the
// caller sends what it returns. The same table answers a path nobody owns
// (unknownUrlReply) with the 404 of the format whose client sent it, and a
// request past the connection cap (overloadedReply) with its 503.
import { Code, ConnectError } from "@connectrpc/connect";
import { errorBody as anthropicBody } from "../facades/messages/errors.js";
import { badRequest as googleBadRequest, fromConnectError as googleError, notFoundError as googleNotFound } from "../facades/generate-content/errors.js";
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

/** Whether `path` (a request URL, query and all) is `prefix` or below it: a prefix is whole path segments. */
export const under = (path: string, prefix: string) => path === prefix || path.startsWith(prefix + "/") || path.startsWith(prefix + "?");

/** The 400 a client of the format that owns `url` reads for a URL it sent that cannot be routed. */
export function badUrlReply(url: string, wire: Wire, requestId: string, message: string): BadUrlReply {
  return ownerErrorReply(url, wire, requestId, 400, message);
}

/**
 * The 404 for a path no route and no facade's own not-found handler took (the
 * rest of /v1, such as /v1/assistants, a POST to /v1/models): the shape
 * of the format whose client most likely sent it, by the caller's headers.
 */
export function unknownUrlReply(url: string, wire: Wire, requestId: string, method: string): BadUrlReply {
  return ownerErrorReply(url, wire, requestId, 404, `Invalid URL (${method} ${url.split("?")[0]!.slice(0, 200)})`);
}

/**
 * The 503 for a request on a connection past the ordinary connection cap (connection-limit.ts), in the shape
 * of the format that owns `url`: Anthropic's is its 529 overloaded_error, as the Messages edge maps Unavailable.
 */
export function overloadedReply(url: string, wire: Wire, requestId: string): BadUrlReply {
  return ownerErrorReply(url, wire, requestId, 503, "The server has too many open connections; retry shortly.");
}

/** A 400, 404 or 503 in the error shape of the format that owns `url`. */
function ownerErrorReply(url: string, wire: Wire, requestId: string, status: 400 | 404 | 503, message: string): BadUrlReply {
  const anthropic = (): BadUrlReply =>
    status === 503
      ? { status: 529, body: anthropicBody({ type: "overloaded_error", message }, requestId) }
      : { status, body: anthropicBody({ type: status === 404 ? "not_found_error" : "invalid_request_error", message }, requestId) };
  const google = (): BadUrlReply => {
    const w = status === 404 ? googleNotFound(message) : status === 503 ? googleError(new ConnectError(message, Code.Unavailable)) : googleBadRequest(message, [{ field: "", description: message }]);
    return { status: w.httpStatus, body: w.body };
  };
  const code = status === 404 ? "unknown_url" : status === 503 ? "overloaded" : "invalid_url";
  const openai = (): BadUrlReply => ({ status, body: imagesError(status, message, null, code, status === 503 ? "server_error" : "invalid_request_error").body });
  const videoType = status === 404 ? "not_found_error" : status === 503 ? "server_error" : "invalid_request_error";
  const video = (which: "openai" | "generations"): BadUrlReply => ({ status, body: videoBody(which, { status, message, param: null, code, type: videoType, headers: {} }) });
  if (under(url, "/v1/messages")) return anthropic();
  if (under(url, "/v1beta")) return google();
  if (under(url, "/v1/images")) return openai();
  if (under(url, "/v1/videos")) return video("openai");
  if (under(url, "/v1/video/generations")) return video("generations");
  if (under(url, "/ib") || under(url, "/mj")) return { status, body: imageBotError(status, status === 503 ? CODE.SYSTEM_ERROR : CODE.PARAMETER_ERROR, message).body };
  // /v1/models and the rest of /v1 are shared: the caller's headers say whose client it is.
  if (under(url, "/v1")) return wire === "anthropic" ? anthropic() : wire === "gemini" ? google() : openai();
  return { status, body: { error: status === 404 ? "Not Found" : status === 503 ? "Service Unavailable" : "Bad Request", message, statusCode: status } };
}
