// Builds everything the app needs from a Config. Tests pass overrides (a clock,
// a storage) instead of patching modules.
import type { Config } from "../config.js";
import { authenticator, type Authenticator } from "../core/auth/authenticator.js";
import { Capability } from "../../gen/omnigate/model/v1/model_pb.js";
import { staticCatalog, displayName, type ModelCatalog, type ModelEntry } from "../core/model/catalog.js";
import { buildCore, type Core } from "../core/routes.js";
import { localOnlyRouting, type ChatRouting } from "../core/routing/chat-routing.js";
import { localChatProvider } from "../providers/local/chat.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import type { Storage } from "../storage/types.js";
import { createMetrics, metricsInterceptor, type Metrics } from "./metrics.js";

export interface Lifecycle {
  shuttingDown: boolean;
}

export interface AppDeps {
  config: Config;
  storage: Storage;
  auth: Authenticator;
  catalog: ModelCatalog;
  chatRouting: ChatRouting;
  core: Core;
  metrics: Metrics;
  lifecycle: Lifecycle;
  now: () => number;
}

/** Chat models the local engine lists (it serves any name while no channel is configured). */
export const LOCAL_LISTED_CHAT_MODELS = ["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1", "gemini-2.5-flash", "gemini-2.5-pro", "local-chat"];

function localChatEntries(now: number): ModelEntry[] {
  return LOCAL_LISTED_CHAT_MODELS.map((id) => ({
    id,
    displayName: displayName(id),
    ownedBy: "omnigate-local",
    createTime: now,
    capabilities: [Capability.CHAT],
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    thinking: true,
    provider: "local",
    channels: ["local"],
  }));
}

/** A fixed creation time for local models so listings are stable across restarts. */
const LOCAL_MODELS_CREATED = Date.UTC(2025, 0, 1);

export async function createDeps(config: Config, overrides: { storage?: Storage; now?: () => number; metrics?: Metrics } = {}): Promise<AppDeps> {
  const now = overrides.now ?? Date.now;
  const storage = overrides.storage ?? openSqliteStorage(config.dataDir);
  const auth = authenticator(storage.keys, { now });
  const metrics = overrides.metrics ?? createMetrics();
  const local = localChatProvider(config.local);
  const chatRouting = localOnlyRouting(local, config.local.chatModels);
  const catalog = staticCatalog(localChatEntries(LOCAL_MODELS_CREATED));
  const core = buildCore({
    auth,
    catalog,
    chat: { routing: chatRouting, usage: storage.usage, now },
    outerInterceptors: [metricsInterceptor(metrics)],
  });
  return { config, storage, auth, catalog, chatRouting, core, metrics, lifecycle: { shuttingDown: false }, now };
}
