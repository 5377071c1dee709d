// Registers every core service on one ConnectRouter, and builds the in-process
// transport facades use. Swapping that for a remote transport is one line.
import { createRouterTransport, type ConnectRouter, type Interceptor, type Transport } from "@connectrpc/connect";
import { ChatService } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { ModelService } from "../../gen/omnigate/model/v1/model_pb.js";
import type { Authenticator } from "./auth/authenticator.js";
import { authInterceptor } from "./auth/interceptor.js";
import { chatService, type ChatServiceDeps } from "./chat/chat-service.js";
import type { ModelCatalog } from "./model/catalog.js";
import { modelService } from "./model/model-service.js";

export interface CoreDeps {
  auth: Authenticator;
  chat: ChatServiceDeps;
  catalog: ModelCatalog;
  /** Interceptors that run before authentication (metrics, logging). */
  outerInterceptors?: Interceptor[];
}

export interface Core {
  routes: (router: ConnectRouter) => void;
  interceptors: Interceptor[];
  /** In-process transport to the core, with the same interceptors a remote caller meets. */
  transport: Transport;
}

export function buildCore(deps: CoreDeps): Core {
  const routes = (router: ConnectRouter) => {
    router.service(ChatService, chatService(deps.chat));
    router.service(ModelService, modelService(deps.catalog));
  };
  const interceptors = [...(deps.outerInterceptors ?? []), authInterceptor(deps.auth)];
  const transport = createRouterTransport(routes, { router: { interceptors }, transport: { useBinaryFormat: true } });
  return { routes, interceptors, transport };
}
