// The Connect, gRPC and gRPC-Web edge: each core service registered on a
// ConnectRouter, its calls run through the same pipeline as a facade's, as
// format "core" whatever the caller's headers say.
import type { DescMethodServerStreaming, DescMethodUnary, DescService } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { bearerToken } from "../auth/bearer.js";
import { REQUEST_ID_HEADER, type CallInit } from "./call.js";
import type { Pipeline } from "./pipeline.js";
import type { ServiceImpl } from "./service.js";

/** A service and its implementation, as buildCore registers them. */
export interface Binding<S extends DescService = DescService> {
  service: S;
  impl: Partial<ServiceImpl<S>>;
}

/**
 * The CallInit of a remote call. It has no URL base: the h2c port serves no
 * files, so answers carry file ids (or URLs under the configured publicUrl).
 */
export function remoteCallInit(ctx: HandlerContext): CallInit {
  return {
    apiKey: bearerToken(ctx.requestHeader.get("authorization")),
    format: "core",
    requestId: ctx.requestHeader.get(REQUEST_ID_HEADER) ?? "",
    urlBase: "",
    signal: ctx.signal,
  };
}

type AnyFn = (req: never, call: never) => unknown;

export function connectRoutes(bindings: Binding[], pipeline: Pipeline): (router: ConnectRouter) => void {
  return (router) => {
    for (const { service, impl } of bindings) {
      const handlers: Record<string, unknown> = {};
      for (const m of service.methods) {
        const f = (impl as Record<string, AnyFn | undefined>)[m.localName];
        if (!f) continue;
        if (m.methodKind === "unary") handlers[m.localName] = (req: never, ctx: HandlerContext) => pipeline.unary(m as DescMethodUnary, f, req, remoteCallInit(ctx));
        else if (m.methodKind === "server_streaming")
          handlers[m.localName] = (req: never, ctx: HandlerContext) => pipeline.stream(m as DescMethodServerStreaming, f as never, req, remoteCallInit(ctx));
      }
      router.service(service, handlers as never);
    }
  };
}
