import type { CreateFastifyContextOptions } from "@trpc/server/adapters/fastify";
import { bearerToken } from "../core/auth/bearer.js";
import type { CallInit } from "../core/call/call.js";
import type { CoreClients } from "../core/routes.js";
import type { TaskEvents } from "../core/tasks/events.js";
import { clientGone, urlBaseOf } from "../facades/shared/call.js";

export interface TrpcContext {
  clients: CoreClients;
  /** The core call made on behalf of this request. */
  call: CallInit;
  /** Whether error responses may include stack traces. */
  dev: boolean;
  /** Committed task changes (image-bot and video), for live listings; what a caller sees is still read through the core. */
  taskEvents: Pick<TaskEvents, "subscribeAll" | "shared">;
  /** Aborts when the app starts closing: endless subscriptions end then instead of holding the shutdown up. */
  closing: AbortSignal;
}

/** What the tRPC edge needs of the app. */
export interface TrpcDeps {
  config: { dev: boolean };
  core: { clients: CoreClients };
  tasks: { runner: { events: TrpcContext["taskEvents"] } };
}

/** createContext for the tRPC plugin; close() (on the app's preClose) ends the live subscriptions. */
export function trpcContextFactory(deps: TrpcDeps) {
  const closing = new AbortController();
  const { clients } = deps.core;
  const create = ({ req, res }: CreateFastifyContextOptions): TrpcContext => {
    // File URLs the core hands out (images, videos) point back at the host the caller used.
    const call: CallInit = { apiKey: bearerToken(req.headers.authorization), format: "trpc", requestId: req.id, urlBase: urlBaseOf(req), signal: clientGone(res) };
    return { clients, call, dev: deps.config.dev, taskEvents: deps.tasks.runner.events, closing: closing.signal };
  };
  return Object.assign(create, { close: () => closing.abort() });
}
