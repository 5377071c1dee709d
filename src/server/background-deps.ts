// Builds the background-response part of AppDeps: the in-memory live runs,
// the "background-response" kind of the shared task runner with its queue,
// and the StoredResponseService's background dependencies. The handler calls
// the core's ChatService, which is built after it is registered.
import type { ChatService } from "../../gen/omnigate/chat/v1/chat_pb.js";
import type { CoreClient } from "../core/call/service.js";
import type { ChatRouting } from "../core/routing/chat-routing.js";
import { backgroundHandler } from "../core/response/background-handler.js";
import type { BackgroundDeps } from "../core/response/background-service.js";
import { BACKGROUND_QUEUE } from "../core/response/background-task.js";
import { LiveRuns } from "../core/response/live-runs.js";
import type { TaskRunner } from "../core/tasks/runner.js";
import type { Storage } from "../storage/types.js";

/** How many background responses run and wait, and for how long one may run (config `responses.background`). */
export interface BackgroundLimits {
  concurrency: number;
  queueSize: number;
  timeoutMs: number;
}

export function createBackgroundDeps(
  storage: Storage,
  runner: TaskRunner,
  chat: () => CoreClient<typeof ChatService>,
  routing: ChatRouting,
  now: () => number,
  limits: BackgroundLimits,
): BackgroundDeps {
  const live = new LiveRuns();
  runner.defineQueue(BACKGROUND_QUEUE, { concurrency: limits.concurrency, queueSize: limits.queueSize });
  runner.register(backgroundHandler({ chat, keys: storage.keys, live, runner: () => runner, timeoutMs: limits.timeoutMs, now }));
  return { runner, tasks: storage.tasks, live, serves: (model) => routing.resolve(model).length > 0, now };
}
