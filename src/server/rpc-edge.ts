// What the Connect, gRPC and gRPC-Web edges (the main port and h2c) accept
// before a call reaches the core: bodies of at most the body limit, counted
// after decompression; gzip and br only; and a call without a valid key is
// refused from its headers, before its body is read.
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";
import type { Authenticator } from "../core/auth/authenticator.js";
import { bearerToken } from "../core/auth/bearer.js";

/** Handler options for connect-node and connect-fastify. */
export function rpcLimits(bodyLimitBytes: number) {
  return { readMaxBytes: bodyLimitBytes, acceptCompression: [compressionGzip, compressionBrotli] };
}

/**
 * Why a call's credentials are refused ("missing API key", "invalid API key"),
 * or undefined when its key is valid. Synchronous when the key cache knows the
 * answer, as it does for nearly every call.
 */
export function keyCheck(auth: Authenticator): (authorization: string | undefined) => string | undefined | Promise<string | undefined> {
  return (authorization) => {
    const token = bearerToken(authorization);
    if (!token) return "missing API key";
    const known = auth.cached?.(token);
    if (known !== undefined) return known ? undefined : "invalid API key";
    return auth.verify(token).then((p) => (p ? undefined : "invalid API key"));
  };
}

export interface RpcRefusal {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  /** HTTP trailers (gRPC over HTTP/2). */
  trailers?: Record<string, string>;
}

const UNAUTHENTICATED_GRPC = "16";

/** One enveloped message: a flags byte, a 4-byte big-endian length, the data. */
function envelope(flags: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + data.length);
  out[0] = flags;
  new DataView(out.buffer).setUint32(1, data.length);
  out.set(data, 5);
  return out;
}

/**
 * An "unauthenticated" answer in the protocol the request's content type
 * names: gRPC (status in trailers), gRPC-Web (a trailer frame), Connect
 * streaming (an end-of-stream frame) or Connect unary (HTTP 401 and a JSON error).
 */
export function unauthenticatedAnswer(contentType: string | undefined, message: string, http2: boolean): RpcRefusal {
  const ct = (contentType ?? "").toLowerCase();
  const type = ct.split(";")[0]!.trim();
  const enc = new TextEncoder();
  if (type.startsWith("application/grpc-web")) {
    const trailer = `grpc-status: ${UNAUTHENTICATED_GRPC}\r\ngrpc-message: ${encodeURIComponent(message)}\r\n`;
    return { status: 200, headers: { "content-type": type }, body: envelope(0x80, enc.encode(trailer)) };
  }
  if (type.startsWith("application/grpc")) {
    const status = { "grpc-status": UNAUTHENTICATED_GRPC, "grpc-message": encodeURIComponent(message) };
    // HTTP/1.1 has no trailers a gRPC client reads: the status goes in the headers (a trailers-only answer).
    return http2
      ? { status: 200, headers: { "content-type": type }, body: new Uint8Array(0), trailers: status }
      : { status: 200, headers: { "content-type": type, ...status }, body: new Uint8Array(0) };
  }
  if (type.startsWith("application/connect+")) {
    const end = enc.encode(JSON.stringify({ error: { code: "unauthenticated", message } }));
    return { status: 200, headers: { "content-type": type }, body: envelope(0x02, end) };
  }
  return { status: 401, headers: { "content-type": "application/json" }, body: enc.encode(JSON.stringify({ code: "unauthenticated", message })) };
}
