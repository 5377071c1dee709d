// What the image-bot core needs from the rest of the gateway.
import type { ChatService } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { CoreClient } from "../call/service.js";
import type { Task } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import type { ImageBotProvider, ImageBytes } from "../ports.js";
import type { ChannelStates } from "../routing/channel-state.js";
import type { TaskRunner } from "../tasks/runner.js";
import type { AccountPool, AccountSettings } from "./accounts.js";

/** Where task images live: the gateway's blob store. */
export interface TaskFiles {
  /** Stores bytes; returns the file id. */
  put(bytes: Uint8Array, opts: { mimeType: string; kind: string; ownerKeyId?: string | undefined }): Promise<string>;
  /** The bytes of a stored file (a TaskFailure-worthy error when gone). */
  read(id: string): Promise<ImageBytes>;
  /** The URL clients fetch the file from (long-lived); `base` is the gateway's origin, "" for a relative URL. */
  url(id: string, base: string): string;
}

export interface ImageBotSettings {
  /** Words that refuse a prompt (case-insensitive). */
  bannedWords: string[];
  /** Chat model that translates Chinese prompts; "" = no translation. */
  translateModel: string;
  /** Callback URL for tasks that name none; "" = none. */
  globalNotifyHook: string;
  /** Whether callbacks may go to private and loopback addresses. */
  allowPrivateCallbacks: boolean;
  /** The gateway's public origin for file URLs; when unset, the origin the client called. */
  publicUrl?: string | undefined;
}

export interface ImageBotDeps {
  runner: TaskRunner;
  pool: AccountPool;
  /** The provider that serves an account. */
  provider(account: AccountSettings): ImageBotProvider;
  files: TaskFiles;
  settings: ImageBotSettings;
  /** ChatService client for prompt translation (called with the caller's key); routes.ts gives the task service one. */
  chat?: CoreClient<typeof ChatService>;
  /** Runtime channel state: upstream failures are kept as the channel's last error. */
  channels?: ChannelStates;
  /** Renders a task as the callback body (the /ib wire JSON). */
  callbackBody?: (task: Task) => string;
  now: () => number;
}
