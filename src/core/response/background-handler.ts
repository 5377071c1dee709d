// The "background-response" kind of the shared task runner: runs a stored
// background response's neutral chat stream to its end, on the owner's behalf
// and through the call pipeline (admitted, metered and charged like a
// foreground call of the facade's format; a cancel aborts the call, which
// then settles for what it used and gives the rest of its reservation back).
// Its events go to the live run readers follow, and with the result into the
// task. A task taken over after a restart runs again from the start: a chat
// generation cannot go on where it stopped, and its readers start over too.
import { fromBinary } from "@bufbuild/protobuf";
import { StreamGenerateRequestSchema, type ChatService } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { BackgroundResponse_State as State } from "../../../gen/omnigate/response/v1/response_pb.js";
import type { KeyStore } from "../../storage/types.js";
import { toPrincipal } from "../auth/authenticator.js";
import type { Principal } from "../call/call.js";
import type { CoreClient } from "../call/service.js";
import { asConnectError, Code, coreError } from "../errors.js";
import type { TaskRunner } from "../tasks/runner.js";
import { isTerminal, TaskFailure, type ExecContext, type TaskHandler } from "../tasks/types.js";
import { BACKGROUND_KIND, encodeEvents, stateOf, storedFailure, type BackgroundPayload, type BackgroundTask } from "./background-task.js";
import type { LiveRun, LiveRuns } from "./live-runs.js";

export interface BackgroundHandlerDeps {
  /** The core's chat client (made after the handler is registered). */
  chat: () => CoreClient<typeof ChatService>;
  keys: Pick<KeyStore, "get">;
  live: LiveRuns;
  runner: () => TaskRunner;
  /** A background response not finished this long after it was queued or started fails. */
  timeoutMs: number;
  now: () => number;
}

export function backgroundHandler(deps: BackgroundHandlerDeps): TaskHandler<BackgroundPayload> {
  /** The owner as it is now: a key revoked or expired since the response was created stops it. */
  async function principalOf(keyId: string | undefined): Promise<Principal> {
    const k = keyId ? await deps.keys.get(keyId) : undefined;
    const t = deps.now();
    if (!k || k.revokeTime !== undefined || (k.expireTime !== undefined && k.expireTime <= t))
      throw coreError(Code.PermissionDenied, "The API key that created this response is no longer valid.", { reason: "invalid_api_key" });
    return toPrincipal(k);
  }

  /**
   * The execution was aborted: when its task ended (cancelled, or failed by
   * the timeout sweep), the run ends so and its events are kept with the
   * task; otherwise this instance stopped running it (it is stopping, or lost
   * the lease), and its readers are let go to read again.
   */
  async function aborted(task: BackgroundTask, run: LiveRun): Promise<void> {
    const cur = await deps
      .runner()
      .get<BackgroundPayload>(task.id)
      .catch(() => undefined);
    if (!cur || !isTerminal(cur.run.status)) {
      deps.live.finish(task.id, run, { state: State.IN_PROGRESS, finishMs: deps.now(), abandoned: true });
      return;
    }
    deps.live.finish(task.id, run, { state: stateOf(cur.run.status), finishMs: cur.run.finishTime ?? deps.now() });
    if (!cur.payload.events) await keepEvents(deps.runner(), cur, run).catch(() => undefined);
  }

  return {
    kind: BACKGROUND_KIND,
    timeoutMs: deps.timeoutMs,
    resume: () => true,

    async execute(task: BackgroundTask, ctx: ExecContext<BackgroundPayload>): Promise<BackgroundPayload> {
      const p = task.payload;
      if (!p.request) throw new TaskFailure("failed: the background response has no request to run");
      const run = deps.live.open(task.id);
      try {
        const principal = await principalOf(task.ownerKeyId);
        const req = fromBinary(StreamGenerateRequestSchema, Buffer.from(p.request, "base64"));
        const events = deps.chat().streamGenerate(req, { principal, format: p.format, requestId: task.id, urlBase: "", signal: ctx.signal });
        for await (const ev of events) if (ev.event.case !== "ping") run.push(ev);
        ctx.signal.throwIfAborted();
        deps.live.finish(task.id, run, { state: State.SUCCEEDED, finishMs: deps.now() });
        return { ...p, request: undefined, events: encodeEvents(run.events) };
      } catch (err) {
        if (ctx.signal.aborted) {
          await aborted(task, run);
          throw err;
        }
        const e = asConnectError(err);
        const error = storedFailure(e);
        deps.live.finish(task.id, run, { state: State.FAILED, error, finishMs: deps.now() });
        await ctx.save({ ...p, request: undefined, events: encodeEvents(run.events), error }).catch(() => undefined);
        throw new TaskFailure(e.rawMessage || "failed");
      }
    },
  };
}

/** Keeps a finished run's events with its task (a cancelled task's execution writes nothing itself). */
export function keepEvents(runner: TaskRunner, task: BackgroundTask, run: LiveRun): Promise<unknown> {
  return runner.save<BackgroundPayload>(task.id, { ...task.payload, request: undefined, events: encodeEvents(run.events) });
}
