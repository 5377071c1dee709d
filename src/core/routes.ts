// Registers every core service on one ConnectRouter, and builds the in-process
// transport facades use (transport.ts: the same interceptors, no serialising).
// Swapping that for a remote transport is one line, e.g.
// createConnectTransport({ baseUrl, httpVersion: "2" }) from @connectrpc/connect-node.
import { createClient, type ConnectRouter, type Interceptor, type Transport } from "@connectrpc/connect";
import { createDirectTransport } from "./transport.js";
import { ChatService } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { ModelService } from "../../gen/omnigate/model/v1/model_pb.js";
import type { Authenticator } from "./auth/authenticator.js";
import { authInterceptor } from "./auth/interceptor.js";
import { chatService, type ChatServiceDeps } from "./chat/chat-service.js";
import { cachedContentService } from "./chat/cached-content-service.js";
import type { ModelCatalog } from "./model/catalog.js";
import { modelService } from "./model/model-service.js";
import { ImageService } from "../../gen/omnigate/image/v1/image_pb.js";
import { imageService, type ImageServiceDeps } from "./image/image-service.js";
import { AdminService } from "../../gen/omnigate/admin/v1/admin_pb.js";
import { adminService, type AdminServiceDeps } from "./admin/admin-service.js";
import type { Budgets } from "./tenancy/budget.js";
import { chatMeterInterceptor } from "./tenancy/chat-meter.js";
import { tenancyInterceptor } from "./tenancy/interceptor.js";
import { unaryMeterInterceptor } from "./tenancy/unary-meter.js";
import type { RateLimiter } from "./tenancy/limiter.js";
import type { UsageStore } from "../storage/types.js";
import type { PriceTable } from "./tenancy/prices.js";
import { ImageBotService } from "../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import type { ImageBotDeps } from "./image-bot/deps.js";
import { imageBotService } from "./image-bot/image-bot-service.js";
import { VideoService } from "../../gen/omnigate/video/v1/video_pb.js";
import { videoService, type VideoServiceDeps } from "./video/video-service.js";
import { FileService } from "../../gen/omnigate/file/v1/file_pb.js";
import { fileService, type FileServiceDeps } from "./file/file-service.js";

export interface CoreDeps {
  auth: Authenticator;
  chat: ChatServiceDeps;
  catalog: ModelCatalog;
  admin: AdminServiceDeps;
  /** The image domain (/v1/images); registered when given. */
  image?: ImageServiceDeps;
  /** Image-bot tasks (/ib); registered when given, with a ChatService client of this core for prompt translation. */
  imageBot?: Omit<ImageBotDeps, "chat">;
  /** Video tasks (/v1/video/generations, /v1/videos); registered when given. */
  video?: VideoServiceDeps;
  /** Files clients upload and name in chat requests (/v1/files); registered when given. */
  files?: FileServiceDeps;
  /**
   * Scopes, rate limits and budgets, applied to every call after authentication;
   * `usage` receives the usage records of calls whose service writes none itself
   * (image-bot submits, video), timed with `now`.
   */
  tenancy: { limiter: RateLimiter; budgets: Budgets; prices: PriceTable; usage?: UsageStore; now?: () => number };
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
  const interceptors = [
    ...(deps.outerInterceptors ?? []),
    authInterceptor(deps.auth),
    tenancyInterceptor(deps.tenancy),
    chatMeterInterceptor(deps.tenancy),
    unaryMeterInterceptor({ ...deps.tenancy, imageModels: deps.image?.models }),
  ];
  const chat = { ...chatService(deps.chat), ...cachedContentService(deps.chat) };
  const chatRoutes = (router: ConnectRouter) => router.service(ChatService, chat);
  // Image-bot prompts are translated through ChatService with the caller's key: a transport of ChatService alone (same interceptors), made before the routes that need it.
  const imageBot = deps.imageBot && { ...deps.imageBot, chat: createClient(ChatService, createDirectTransport(chatRoutes, { interceptors })) };
  const routes = (router: ConnectRouter) => {
    chatRoutes(router);
    router.service(ModelService, modelService(deps.catalog));
    router.service(AdminService, adminService(deps.admin));
    if (deps.image) router.service(ImageService, imageService(deps.image));
    if (imageBot) router.service(ImageBotService, imageBotService(imageBot));
    if (deps.video) router.service(VideoService, videoService(deps.video));
    if (deps.files) router.service(FileService, fileService(deps.files));
  };
  const transport = createDirectTransport(routes, { interceptors });
  return { routes, interceptors, transport };
}
