// The shapes a proto service takes in the core: its implementation (what a
// service module returns: each method takes the request and the Call) and
// its client (what facades and the tRPC router hold: each method takes the
// request and a CallInit), both typed from the generated descriptor.
import type { DescMethodServerStreaming, DescMethodUnary, DescService, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import type { Call, CallInit } from "./call.js";

type Methods<S extends DescService> = S["method"];

export type MethodImpl<M> =
  M extends DescMethodUnary<infer I, infer O>
    ? (req: MessageShape<I>, call: Call) => Promise<MessageInitShape<O>> | MessageInitShape<O>
    : M extends DescMethodServerStreaming<infer I, infer O>
      ? (req: MessageShape<I>, call: Call) => AsyncIterable<MessageInitShape<O>>
      : never;

/** A service's implementation: every method of the proto service. */
export type ServiceImpl<S extends DescService> = { [K in keyof Methods<S>]: MethodImpl<Methods<S>[K]> };

export type MethodClient<M> =
  M extends DescMethodUnary<infer I, infer O>
    ? (req: MessageInitShape<I>, call: CallInit) => Promise<MessageShape<O>>
    : M extends DescMethodServerStreaming<infer I, infer O>
      ? (req: MessageInitShape<I>, call: CallInit) => AsyncIterable<MessageShape<O>>
      : never;

/** A client of a core service, in process or remote (client.ts). */
export type CoreClient<S extends DescService> = { [K in keyof Methods<S>]: MethodClient<Methods<S>[K]> };
