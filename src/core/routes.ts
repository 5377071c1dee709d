// Builds the core: every service's implementation, bound to the one call
// pipeline (call/pipeline.ts) as in-process clients for the facades and the
// tRPC router, and as routes for the Connect, gRPC and gRPC-Web edge. To run
// the core out of process, make the clients with remoteClient (call/client.ts).
import type { ConnectRouter } from "@connectrpc/connect";
import type { DescService } from "@bufbuild/protobuf";
import { ChatService } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { ModelService } from "../../gen/omnigate/model/v1/model_pb.js";
import { ImageService } from "../../gen/omnigate/image/v1/image_pb.js";
import { AdminService } from "../../gen/omnigate/admin/v1/admin_pb.js";
import { ImageBotService } from "../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { VideoService } from "../../gen/omnigate/video/v1/video_pb.js";
import { FileService } from "../../gen/omnigate/file/v1/file_pb.js";
import { EmbeddingService } from "../../gen/omnigate/embedding/v1/embedding_pb.js";
import { StoredResponseService } from "../../gen/omnigate/response/v1/response_pb.js";
import type { Authenticator } from "./auth/authenticator.js";
import { localClient } from "./call/client.js";
import { connectRoutes, type Binding } from "./call/connect-routes.js";
import { createPipeline, type PipelineDeps } from "./call/pipeline.js";
import type { CoreClient, ServiceImpl } from "./call/service.js";
import { chatService, type ChatServiceDeps } from "./chat/chat-service.js";
import { cachedContentService } from "./chat/cached-content-service.js";
import type { ModelCatalog } from "./model/catalog.js";
import { modelService } from "./model/model-service.js";
import { imageService, type ImageServiceDeps } from "./image/image-service.js";
import { adminService, type AdminServiceDeps } from "./admin/admin-service.js";
import type { ImageBotDeps } from "./image-bot/deps.js";
import { imageBotService } from "./image-bot/image-bot-service.js";
import { videoService, type VideoServiceDeps } from "./video/video-service.js";
import { fileService, type FileServiceDeps } from "./file/file-service.js";
import { embeddingService, type EmbeddingServiceDeps } from "./embedding/embedding-service.js";
import { storedResponseService, type StoredResponseServiceDeps } from "./response/stored-response-service.js";
import { admission } from "./tenancy/admission.js";
import type { Budgets } from "./tenancy/budget.js";
import type { RateLimiter } from "./tenancy/limiter.js";
import { meters, UNLIMITED_METHODS } from "./tenancy/meters.js";
import type { PriceTable } from "./tenancy/prices.js";
import { settlement } from "./tenancy/settlement.js";
import type { UsageStore } from "../storage/types.js";

export interface CoreDeps {
  auth: Authenticator;
  chat: ChatServiceDeps;
  catalog: ModelCatalog;
  admin: AdminServiceDeps;
  /** The image domain (/v1/images); served when given. */
  image?: ImageServiceDeps;
  /** Image-bot tasks (/ib); served when given, with a ChatService client of this core for prompt translation. */
  imageBot?: Omit<ImageBotDeps, "chat">;
  /** Video tasks (/v1/video/generations, /v1/videos); served when given. */
  video?: VideoServiceDeps;
  /** Files clients upload and name in chat requests (/v1/files); served when given. */
  files?: FileServiceDeps;
  /** Embeddings (/v1/embeddings, Gemini's embedContent); served when given. */
  embedding?: EmbeddingServiceDeps;
  /** Stored Responses API responses (`store`, previous_response_id, /v1/responses/{id}); served when given. */
  responses?: StoredResponseServiceDeps;
  /** Scopes, rate limits, budgets and usage records (admission and settlement), timed with `now`. */
  tenancy: { limiter: RateLimiter; budgets: Budgets; prices: PriceTable; usage?: UsageStore; now?: () => number };
  /** Reports every call when it ends (metrics). */
  observe?: PipelineDeps["observe"];
}

/** The in-process clients of every core service (a service not configured answers Unimplemented). */
export interface CoreClients {
  chat: CoreClient<typeof ChatService>;
  models: CoreClient<typeof ModelService>;
  admin: CoreClient<typeof AdminService>;
  images: CoreClient<typeof ImageService>;
  imageBot: CoreClient<typeof ImageBotService>;
  video: CoreClient<typeof VideoService>;
  files: CoreClient<typeof FileService>;
  embeddings: CoreClient<typeof EmbeddingService>;
  responses: CoreClient<typeof StoredResponseService>;
}

export interface Core {
  clients: CoreClients;
  /** The services for the Connect, gRPC and gRPC-Web edge. */
  routes: (router: ConnectRouter) => void;
}

export function buildCore(deps: CoreDeps): Core {
  const table = meters(deps.image?.models);
  const pipeline = createPipeline({
    auth: deps.auth,
    admission: admission({ ...deps.tenancy, meters: table, unlimited: UNLIMITED_METHODS }),
    settlement: settlement({ ...deps.tenancy, meters: table }),
    observe: deps.observe,
    now: deps.tenancy.now,
  });
  const bindings: Binding[] = [];
  const bind = <S extends DescService>(service: S, impl: Partial<ServiceImpl<S>>): CoreClient<S> => {
    bindings.push({ service, impl } as Binding);
    return localClient(service, impl, pipeline);
  };
  const chat = bind(ChatService, { ...chatService(deps.chat), ...cachedContentService(deps.chat) });
  const clients: CoreClients = {
    chat,
    models: bind(ModelService, modelService(deps.catalog)),
    admin: bind(AdminService, adminService(deps.admin)),
    images: bind(ImageService, deps.image ? imageService(deps.image) : {}),
    // Image-bot prompts are translated through ChatService, on the caller's behalf.
    imageBot: bind(ImageBotService, deps.imageBot ? imageBotService({ ...deps.imageBot, chat }) : {}),
    video: bind(VideoService, deps.video ? videoService(deps.video) : {}),
    files: bind(FileService, deps.files ? fileService(deps.files) : {}),
    embeddings: bind(EmbeddingService, deps.embedding ? embeddingService(deps.embedding) : {}),
    responses: bind(StoredResponseService, deps.responses ? storedResponseService(deps.responses) : {}),
  };
  const served = bindings.filter((b) => Object.keys(b.impl).length > 0);
  return { clients, routes: connectRoutes(served, pipeline) };
}
