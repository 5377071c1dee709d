// Clients of the core's services. In process, a client runs each call
// through the pipeline; remoteClient gives the same shape over any Connect
// transport (e.g. createConnectTransport({ baseUrl, httpVersion: "2" }) from
// @connectrpc/connect-node), so moving the core out of process is one line in
// buildCore.
import type { DescMethod, DescMethodServerStreaming, DescMethodUnary, DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { REQUEST_ID_HEADER, type CallInit } from "./call.js";
import type { Pipeline } from "./pipeline.js";
import type { CoreClient, ServiceImpl } from "./service.js";

type AnyFn = (req: never, arg: never) => unknown;

const unimplemented = (method: DescMethod) => () => {
  throw new ConnectError(`${method.parent.typeName}.${method.name} is not implemented`, Code.Unimplemented);
};

/** A client whose calls run `impl` through the pipeline; methods `impl` lacks answer Unimplemented. */
export function localClient<S extends DescService>(service: S, impl: Partial<ServiceImpl<S>>, pipeline: Pipeline): CoreClient<S> {
  const client: Record<string, unknown> = {};
  for (const m of service.methods) {
    const f = ((impl as Record<string, AnyFn | undefined>)[m.localName] ?? unimplemented(m)) as AnyFn;
    if (m.methodKind === "unary") client[m.localName] = (req: never, init: CallInit) => pipeline.unary(m as DescMethodUnary, f, req, init);
    else if (m.methodKind === "server_streaming") client[m.localName] = (req: never, init: CallInit) => pipeline.stream(m as DescMethodServerStreaming, f as never, req, init);
  }
  return client as CoreClient<S>;
}

/** The same client over a Connect transport: the CallInit travels as headers (a remote core authenticates the key itself). */
export function remoteClient<S extends DescService>(service: S, transport: Transport): CoreClient<S> {
  const remote = createClient(service, transport) as unknown as Record<string, (req: unknown, opts: unknown) => unknown>;
  const client: Record<string, unknown> = {};
  for (const m of service.methods) {
    client[m.localName] = (req: unknown, init: CallInit) =>
      remote[m.localName]!(req, { signal: init.signal, headers: { authorization: `Bearer ${init.apiKey ?? ""}`, [REQUEST_ID_HEADER]: init.requestId } });
  }
  return client as CoreClient<S>;
}
