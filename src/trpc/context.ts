import { createClient, type CallOptions, type Client } from "@connectrpc/connect";
import type { CreateFastifyContextOptions } from "@trpc/server/adapters/fastify";
import { ChatService } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { ImageService } from "../../gen/omnigate/image/v1/image_pb.js";
import { ModelService } from "../../gen/omnigate/model/v1/model_pb.js";
import { AdminService } from "../../gen/omnigate/admin/v1/admin_pb.js";
import { ImageBotService } from "../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { VideoService } from "../../gen/omnigate/video/v1/video_pb.js";
import { bearerToken } from "../core/auth/interceptor.js";
import { URL_BASE_HEADER } from "../core/image/image-service.js";
import type { TaskEvents } from "../core/tasks/events.js";
import { coreCallOptions } from "../facades/shared/call.js";
import type { Transport } from "@connectrpc/connect";

export interface CoreClients {
  models: Client<typeof ModelService>;
  chat: Client<typeof ChatService>;
  admin: Client<typeof AdminService>;
  /** Image-bot tasks and accounts. */
  tasks: Client<typeof ImageBotService>;
  videos: Client<typeof VideoService>;
  images: Client<typeof ImageService>;
}

export interface TrpcContext {
  clients: CoreClients;
  /** Options for core calls made on behalf of this request. */
  call: CallOptions;
  /** Whether error responses may include stack traces. */
  dev: boolean;
  /** Committed task changes (image-bot and video), for live listings; what a caller sees is still read through the core. */
  taskEvents: Pick<TaskEvents, "subscribeAll" | "shared">;
  /** Aborts when the app starts closing: endless subscriptions end then instead of holding the shutdown up. */
  closing: AbortSignal;
}

const URL_BASE = /^https?:\/\/[A-Za-z0-9.\-:[\]]+$/;

/** What the tRPC edge needs of the app. */
export interface TrpcDeps {
  config: { dev: boolean };
  core: { transport: Transport };
  tasks: { runner: { events: TrpcContext["taskEvents"] } };
}

/** createContext for the tRPC plugin; close() (on the app's preClose) ends the live subscriptions. */
export function trpcContextFactory(deps: TrpcDeps) {
  const closing = new AbortController();
  const clients: CoreClients = {
    models: createClient(ModelService, deps.core.transport),
    chat: createClient(ChatService, deps.core.transport),
    admin: createClient(AdminService, deps.core.transport),
    tasks: createClient(ImageBotService, deps.core.transport),
    videos: createClient(VideoService, deps.core.transport),
    images: createClient(ImageService, deps.core.transport),
  };
  const create = ({ req, res }: CreateFastifyContextOptions): TrpcContext => {
    const key = bearerToken(req.headers.authorization) ?? "";
    // A real AbortSignal: chat streams combine it with the subscription's own (AbortSignal.any).
    const call = coreCallOptions(req, res, "trpc", key, true);
    // File URLs the core hands out (images, videos) point back at the host the caller used.
    const base = `${req.protocol}://${req.headers.host ?? ""}`;
    if (URL_BASE.test(base)) call.headers = { ...(call.headers as Record<string, string>), [URL_BASE_HEADER]: base };
    return { clients, call, dev: deps.config.dev, taskEvents: deps.tasks.runner.events, closing: closing.signal };
  };
  return Object.assign(create, { close: () => closing.abort() });
}
