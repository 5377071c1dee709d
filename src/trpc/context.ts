import { createClient, type CallOptions, type Client } from "@connectrpc/connect";
import type { CreateFastifyContextOptions } from "@trpc/server/adapters/fastify";
import { ChatService } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { ModelService } from "../../gen/omnigate/model/v1/model_pb.js";
import { AdminService } from "../../gen/omnigate/admin/v1/admin_pb.js";
import { TaskService } from "../../gen/omnigate/task/v1/task_pb.js";
import { VideoService } from "../../gen/omnigate/video/v1/video_pb.js";
import { bearerToken } from "../core/auth/interceptor.js";
import { coreCallOptions } from "../facades/shared/call.js";
import type { AppDeps } from "../server/deps.js";

export interface CoreClients {
  models: Client<typeof ModelService>;
  chat: Client<typeof ChatService>;
  admin: Client<typeof AdminService>;
  /** Image-bot tasks and accounts. */
  tasks: Client<typeof TaskService>;
  videos: Client<typeof VideoService>;
}

export interface TrpcContext {
  clients: CoreClients;
  /** Options for core calls made on behalf of this request. */
  call: CallOptions;
  /** Whether error responses may include stack traces. */
  dev: boolean;
}

export function trpcContextFactory(deps: AppDeps) {
  const clients: CoreClients = {
    models: createClient(ModelService, deps.core.transport),
    chat: createClient(ChatService, deps.core.transport),
    admin: createClient(AdminService, deps.core.transport),
    tasks: createClient(TaskService, deps.core.transport),
    videos: createClient(VideoService, deps.core.transport),
  };
  return ({ req, res }: CreateFastifyContextOptions): TrpcContext => {
    const key = bearerToken(req.headers.authorization) ?? "";
    return { clients, call: coreCallOptions(req, res, "trpc", key), dev: deps.config.dev };
  };
}
