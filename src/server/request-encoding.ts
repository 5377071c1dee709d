// Compressed request bodies on the wire-format facades: a body sent with
// Content-Encoding gzip, deflate or br is decompressed before it is parsed,
// as Google's APIs and new-api accept (peers.md: new-api's body limit counts
// the bytes after decompression). fastify applies the body limit to what this
// stream yields, so a small body that inflates past the limit is refused as
// too large rather than read whole. Only the facades' scope uses it: Connect
// and gRPC-Web negotiate their own compression (connect-encoding,
// grpc-encoding) on the same header, and decode it themselves. Multipart
// bodies are left alone (below).
//
// Both errors a client can cause here (an encoding this does not know, a
// body that does not decompress) are 400s with fastify's invalid-JSON code,
// which every facade already words in its format, with the message naming
// what was wrong.
import type { FastifyReply, FastifyRequest } from "fastify";
import { PassThrough, type Readable, type Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

export const SUPPORTED_ENCODINGS = ["gzip", "deflate", "br"] as const;

/** A 400 fastify's body reader passes on and the facades read as a body that does not parse. */
export class RequestEncodingError extends Error {
  override name = "RequestEncodingError";
  readonly statusCode = 400;
  readonly code = "FST_ERR_CTP_INVALID_JSON_BODY";
}

/** A decompressor for one Content-Encoding value; null for none, undefined for one not supported. */
export function decoderFor(header: string | undefined): Transform | null | undefined {
  if (header === undefined) return null;
  const enc = header.trim().toLowerCase();
  if (enc === "" || enc === "identity") return null;
  if (enc === "gzip" || enc === "x-gzip") return createGunzip();
  if (enc === "deflate") return createInflate();
  if (enc === "br") return createBrotliDecompress();
  return undefined;
}

/**
 * The preParsing hook (callback style: an async hook costs a promise per
 * request, and nearly every request has no Content-Encoding).
 */
export function decodeRequestBody(req: FastifyRequest, _reply: FastifyReply, payload: Readable, done: (err: Error | null, stream?: Readable) => void): void {
  const header = req.headers["content-encoding"];
  if (header === undefined) return done(null, payload);
  // @fastify/multipart reads the raw request itself, not this hook's stream: a compressed multipart body
  // is left as it came (it fails to parse, a 400), rather than read by two consumers at once.
  if (req.headers["content-type"]?.trimStart().toLowerCase().startsWith("multipart/")) return done(null, payload);
  const decoder = decoderFor(header);
  if (decoder === null) return done(null, payload);
  if (decoder === undefined) {
    return done(new RequestEncodingError(`Unsupported Content-Encoding '${header.slice(0, 64)}': send the body as is, or with one of ${SUPPORTED_ENCODINGS.join(", ")}.`));
  }
  // fastify checks Content-Length against the bytes that came in, not the bytes this yields.
  const out = new PassThrough() as PassThrough & { receivedEncodedLength: number };
  out.receivedEncodedLength = 0;
  // fastify stops listening once it has its answer (a body over the limit): an error after that must not go unheard.
  out.on("error", () => undefined);
  payload.on("data", (chunk: Buffer) => (out.receivedEncodedLength += chunk.length));
  // Piped by hand, not with pipeline(): pipeline destroys every stream with the first error, the request
  // too, whose 'error' then has no listener; zlib's own error would also reach fastify unworded.
  decoder.on("error", (err) => {
    payload.unpipe(decoder);
    out.destroy(new RequestEncodingError(`The request body is not valid ${header.trim().toLowerCase()} data (${err.message}).`));
  });
  payload.on("error", (err) => out.destroy(err));
  payload.pipe(decoder).pipe(out);
  done(null, out);
}
