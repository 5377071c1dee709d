// How a facade calls the core for one HTTP request: the client's key forwarded
// as Bearer, the request id as a header, the wire format as a context value
// (which only the in-process transport carries: a remote caller cannot claim a
// format), and an AbortSignal that fires when the client goes away.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { DescMessage, DescMethodServerStreaming, DescMethodUnary, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { createContextValues, type CallOptions, type ContextValues, type Transport } from "@connectrpc/connect";
import { GoneSignal } from "./gone-signal.js";
import { REQUEST_ID_HEADER, formatKey } from "../../core/context.js";
import type { DirectTransport } from "../../core/transport.js";

/**
 * Aborts when the client disconnects before the response is complete.
 * `combinable` gives a real AbortSignal, for callers that pass it to
 * AbortSignal.any() (tRPC); otherwise it is a GoneSignal (see gone-signal.ts:
 * Node 20 gives every AbortSignal a hidden class of its own, which costs CPU
 * and old-generation garbage per request).
 */
export function clientGone(_req: FastifyRequest, reply: FastifyReply, combinable = false): AbortSignal {
  const ac = combinable ? new AbortController() : new GoneSignal();
  const onClose = () => {
    if (!reply.raw.writableFinished) ac.abort(new Error("client disconnected"));
  };
  // The response's 'close' comes when it finished or when the connection went
  // away before that (the request's 'aborted' event says no more than this).
  reply.raw.once("close", onClose);
  return ac instanceof GoneSignal ? (ac as unknown as AbortSignal) : ac.signal;
}

/** One context value set per format, shared by every call of that format: the transport only reads it. */
const formatValues = new Map<string, ContextValues>();
const valuesOf = (format: string): ContextValues => {
  let v = formatValues.get(format);
  if (!v) formatValues.set(format, (v = createContextValues().set(formatKey, format)));
  return v;
};

export function coreCallOptions(req: FastifyRequest, reply: FastifyReply, format: string, apiKey: string, combinable = false): CallOptions {
  return {
    headers: { authorization: `Bearer ${apiKey}`, [REQUEST_ID_HEADER]: req.id },
    contextValues: valuesOf(format),
    signal: clientGone(req, reply, combinable),
  };
}

const messageOf = <M>(res: { message: M }): M => res.message;

/**
 * A unary core call straight on the transport (what a promise client does,
 * minus its wrapping and async frame). On the in-process transport it asks
 * for the message itself (one promise fewer); any other transport is read as
 * a promise client would.
 */
export function unaryCall<I extends DescMessage, O extends DescMessage>(transport: Transport, method: DescMethodUnary<I, O>, input: MessageInitShape<I>, call: CallOptions): Promise<MessageShape<O>> {
  if ("unaryMessage" in transport) return (transport as DirectTransport).unaryMessage(method, call.signal, call.timeoutMs, call.headers, input, call.contextValues);
  return transport.unary(method, call.signal, call.timeoutMs, call.headers, input, call.contextValues).then(messageOf);
}

/**
 * A server-streaming core call as an iterator taken straight from the
 * transport (a promise client adds an async generator per message and hides
 * `return`). The call starts on the first `next()`, so errors the core raises
 * up front (auth, validation, limits) come from there, as with a client.
 * `return()` closes the call's stream, so its cleanup runs at once.
 */
export function streamCall<I extends DescMessage, O extends DescMessage>(
  transport: Transport,
  method: DescMethodServerStreaming<I, O>,
  input: MessageInitShape<I>,
  call: CallOptions,
): AsyncIterator<MessageShape<O>> {
  type R = IteratorResult<MessageShape<O>>;
  let it: AsyncIterator<MessageShape<O>> | undefined;
  let opening: Promise<AsyncIterator<MessageShape<O>>> | undefined;
  const open = () =>
    (opening ??= transport
      .stream(method, call.signal, call.timeoutMs, call.headers, oneMessage(input), call.contextValues)
      .then((res) => (it = res.message[Symbol.asyncIterator]() as AsyncIterator<MessageShape<O>>)));
  const done: R = { done: true, value: undefined };
  return {
    next: (): Promise<R> => (it ? it.next() : open().then((i) => i.next())),
    return: (): Promise<R> => {
      if (!opening) return Promise.resolve(done);
      return opening.then(
        (i) => (i.return ? i.return() : done),
        () => done,
      );
    },
  };
}

function oneMessage<T>(m: T): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      let sent = false;
      return {
        next: () => {
          if (sent) return Promise.resolve({ done: true, value: undefined });
          sent = true;
          return Promise.resolve({ done: false, value: m });
        },
      };
    },
  };
}
