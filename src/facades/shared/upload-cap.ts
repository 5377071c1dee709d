// Uploads are refused without reading what cannot be accepted. A declared
// Content-Length over the route's cap is refused before any byte is read; a
// body without one (chunked) stops being read once it passes the cap
// (@fastify/multipart's own limits truncate a part but read the request to its
// end). An answer given before the body was all received closes the
// connection: Node would otherwise read the rest to reuse the connection, and
// a client could keep streaming.
import type { FastifyReply, FastifyRequest } from "fastify";

/** Room for boundaries, part headers and short text fields beside a form's files and long fields. */
export const MULTIPART_OVERHEAD = 64 * 1024;

/** True when the request declares a body of more than `max` bytes. */
export function declaresMore(req: FastifyRequest, max: number): boolean {
  return Number(req.headers["content-length"]) > max;
}

/** Asks Node to close the connection after this answer when the request's body has not all arrived. */
export function closeIfUnread(req: FastifyRequest, reply: FastifyReply): void {
  if (!req.raw.complete) reply.header("connection", "close");
}

/** What BodyCap.each throws once the body passed the cap; each format answers it with its own 413. */
export class BodyOverCap extends Error {
  constructor(readonly max: number) {
    super(`the body is larger than ${max} bytes`);
  }
}

export interface BodyCap {
  /** The items of `source` until the body passes the cap, then a BodyOverCap error. */
  each<T>(source: AsyncIterable<T>): AsyncGenerator<T>;
  /** Stops counting. */
  release(): void;
}

/**
 * Counts the bytes of a body that a parser reads from the request; past `max`,
 * the body is detached from the parser and not read further. Counting starts
 * with the first `each`, once the parser has started reading (a 'data'
 * listener added before that would take the body from it).
 */
export function capBody(req: FastifyRequest, max: number): BodyCap {
  const raw = req.raw;
  let seen = 0;
  let counting = false;
  let fail!: (err: Error) => void;
  const tripped = new Promise<never>((_resolve, reject) => (fail = reject));
  tripped.catch(() => undefined);
  const count = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen <= max) return;
    raw.off("data", count);
    raw.unpipe();
    raw.pause();
    fail(new BodyOverCap(max));
  };
  return {
    async *each<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
      const it = source[Symbol.asyncIterator]();
      // @fastify/multipart pipes the request into its parser on the first step of its iterator.
      let next = it.next();
      if (!counting) {
        counting = true;
        raw.on("data", count);
      }
      let ended = false;
      try {
        for (;;) {
          // The cap first: once it tripped, it wins over an item already there.
          const r = await Promise.race([tripped, next]);
          if (r.done) {
            ended = true;
            return;
          }
          yield r.value;
          next = it.next();
        }
      } finally {
        // Left early (the cap, or the caller stopped): a file stream is destroyed, which ends the parser's iteration too.
        if (!ended) void it.return?.()?.catch(() => undefined);
      }
    },
    release() {
      raw.off("data", count);
    },
  };
}
