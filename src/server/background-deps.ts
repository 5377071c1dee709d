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

/** Background responses generated at once across every instance; more wait in line. */
export const BACKGROUND_CONCURRENCY = 64;
/** Background responses that may wait for a slot; past it a create gets 429. */
export const BACKGROUND_QUEUE_SIZE = 10_000;
/** A background response not finished this long after it was queued or started fails (reasoning models take minutes). */
export const BACKGROUND_TIMEOUT_MS = 3_600_000;

export function createBackgroundDeps(storage: Storage, runner: TaskRunner, chat: () => CoreClient<typeof ChatService>, routing: ChatRouting, now: () => number): BackgroundDeps {
  const live = new LiveRuns();
  runner.defineQueue(BACKGROUND_QUEUE, { concurrency: BACKGROUND_CONCURRENCY, queueSize: BACKGROUND_QUEUE_SIZE });
  runner.register(backgroundHandler({ chat, keys: storage.keys, live, runner: () => runner, timeoutMs: BACKGROUND_TIMEOUT_MS, now }));
  return { runner, tasks: storage.tasks, live, serves: (model) => routing.resolve(model).length > 0, now };
}
