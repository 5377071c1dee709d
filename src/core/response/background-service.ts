// The background part of the StoredResponseService: create a response as a
// task of the shared runner, watch its neutral events (replayed from any
// index, then followed live: from this instance's memory while it runs here,
// else from storage once it has finished, waiting for changes meanwhile),
// cancel it, and tell readers of the stored record how it is doing. A
// response is the caller's own or does not exist: the stored record, read
// with the caller's key, is checked before its task.
import { toBinary, type JsonObject } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { StreamGenerateRequestSchema } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import {
  BackgroundResponse_State as State,
  type BackgroundResponse,
  type CancelBackgroundResponseResponseSchema,
  type CreateBackgroundResponseRequest,
  type CreateBackgroundResponseResponseSchema,
  type StoredResponse,
  type WatchBackgroundResponseResponseSchema,
} from "../../../gen/omnigate/response/v1/response_pb.js";
import type { TaskStore } from "../../storage/types.js";
import type { Call } from "../call/call.js";
import { Code, coreError, invalidArgument } from "../errors.js";
import type { TaskRunner } from "../tasks/runner.js";
import { InvalidTransitionError, isTerminal, QueueFullError } from "../tasks/types.js";
import { checkModel } from "../tenancy/scope.js";
import { keepEvents } from "./background-handler.js";
import { BACKGROUND_KIND, BACKGROUND_QUEUE, decodeEvents, isFinished, toBackground, type BackgroundPayload, type BackgroundTask } from "./background-task.js";
import type { LiveRuns } from "./live-runs.js";

export interface BackgroundDeps {
  runner: TaskRunner;
  tasks: Pick<TaskStore, "delete">;
  live: LiveRuns;
  /** How often a reader of a response that runs on another instance looks at storage (default 1 s). */
  pollMs?: number;
  /** Whether some channel serves a chat model now: a model nothing serves is refused at once, as a foreground call is. */
  serves?: (model: string) => boolean;
  now: () => number;
}

/** The Response statuses of a stored record whose background generation has not been saved finished. */
export const UNSETTLED = new Set(["queued", "in_progress"]);

export const notBackground = (what: string) => coreError(Code.FailedPrecondition, `Only responses created with background=true can be ${what}.`, { reason: "not_background", field: "id" });

type Watched = MessageInitShape<typeof WatchBackgroundResponseResponseSchema>;

export function backgroundResponses(deps: BackgroundDeps) {
  const pollMs = deps.pollMs ?? 1_000;

  /** The task of a background response, when it has one. */
  async function taskOf(id: string): Promise<BackgroundTask | undefined> {
    const t = await deps.runner.get<BackgroundPayload>(id);
    return t?.kind === BACKGROUND_KIND ? t : undefined;
  }

  /** How it is doing: storage's word, or this instance's when its run here ended before storage heard of it. */
  function stateOf(t: BackgroundTask): BackgroundResponse {
    const end = deps.live.get(t.id)?.end;
    if (!end || end.abandoned || isTerminal(t.run.status)) return toBackground(t);
    return toBackground({ ...t, payload: { ...t.payload, error: end.error } }, end.state, end.finishMs);
  }

  /** Resolves when the task changes, a run of it opens here, `pollMs` passes, or the watch ends. */
  function changed(id: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const offs: (() => void)[] = [];
      const done = () => {
        for (const off of offs) off();
        resolve();
      };
      const timer = setTimeout(done, pollMs);
      offs.push(() => clearTimeout(timer), deps.runner.events.subscribe(id, done), deps.live.onOpen(id, done));
      signal.addEventListener("abort", done, { once: true });
      offs.push(() => signal.removeEventListener("abort", done));
    });
  }

  return {
    /** The background state of a stored record that is not settled yet (undefined: it has no task). */
    async current(id: string, status: string): Promise<BackgroundResponse | undefined> {
      if (!UNSETTLED.has(status)) return undefined;
      const t = await taskOf(id);
      return t && stateOf(t);
    },

    async create(req: CreateBackgroundResponseRequest, call: Call, save: (call: Call) => Promise<StoredResponse>): Promise<MessageInitShape<typeof CreateBackgroundResponseResponseSchema>> {
      const input = req.request?.input;
      if (!req.response || !input) throw invalidArgument("A background response needs the Response to store and the chat request to run.", req.response ? "request" : "response");
      if (req.response.status !== "queued") throw invalidArgument("A background response is stored queued.", "response.status");
      // What the key may not do is refused now rather than by a failed response later.
      checkModel(call.principal, input.model);
      if (deps.serves && !deps.serves(input.model)) throw coreError(Code.NotFound, `model ${input.model} is not served by this gateway`, { reason: "model_not_found", field: "model" });
      const stored = await save(call);
      const payload: BackgroundPayload = {
        request: Buffer.from(toBinary(StreamGenerateRequestSchema, req.request!)).toString("base64"),
        format: call.format,
        render: (req.render ?? {}) as JsonObject,
      };
      try {
        const { task } = await deps.runner.create<BackgroundPayload>({
          id: req.response.id,
          kind: BACKGROUND_KIND,
          ownerKeyId: call.principal.keyId,
          status: "NOT_START",
          queue: BACKGROUND_QUEUE,
          notifyHook: "",
          payload,
        });
        return { response: { ...stored, background: stateOf(task) } };
      } catch (err) {
        if (err instanceof QueueFullError)
          throw coreError(Code.ResourceExhausted, "Too many background responses are waiting; try again later.", { reason: "queue_full", cause: err, retryAfterMs: 5_000 });
        throw err;
      }
    },

    async *watch(id: string, startIndex: bigint, call: Call): AsyncGenerator<Watched> {
      let t = await taskOf(id);
      if (!t) throw notBackground("streamed");
      yield { item: { case: "background", value: stateOf(t) } };
      let i = Math.max(0, Number(startIndex));
      for (;;) {
        if (call.signal.aborted) return;
        const run = deps.live.get(id);
        if (run) {
          while (i < run.events.length) yield { item: { case: "event", value: run.events[i]! }, index: BigInt(i++) };
          if (run.end?.abandoned) throw coreError(Code.Unavailable, "The background response moved to another instance; read it again.", { reason: "background_moved", retryAfterMs: 1_000 });
          if (run.end) {
            t = (await taskOf(id)) ?? t;
            return yield { item: { case: "end", value: stateOf(t) }, index: BigInt(run.events.length) };
          }
          await run.changed(call.signal);
          continue;
        }
        t = await taskOf(id);
        if (!t) throw coreError(Code.NotFound, `Response with id '${id}' not found.`, { reason: "response_not_found", field: "id" });
        if (isTerminal(t.run.status)) {
          const events = decodeEvents(t.payload.events);
          while (i < events.length) yield { item: { case: "event", value: events[i]! }, index: BigInt(i++) };
          return yield { item: { case: "end", value: toBackground(t) }, index: BigInt(events.length) };
        }
        // Queued, or running on another instance: its events are there until it ends.
        await changed(id, call.signal);
      }
    },

    async cancel(id: string, stored: StoredResponse): Promise<MessageInitShape<typeof CancelBackgroundResponseResponseSchema>> {
      const t = await taskOf(id);
      if (!t) throw notBackground("cancelled");
      const finished = () => coreError(Code.FailedPrecondition, `Response ${id} has already finished.`, { reason: "response_finished", field: "id" });
      if (isFinished(stateOf(t).state)) throw finished();
      let cancelled: BackgroundTask;
      try {
        cancelled = await deps.runner.cancel<BackgroundPayload>(id, "cancelled by the client");
      } catch (err) {
        if (err instanceof InvalidTransitionError) throw finished();
        throw err;
      }
      // Ended here at once, with the events so far, so that what the cancel answers is what readers see.
      const run = deps.live.get(id);
      if (run) {
        deps.live.finish(id, run, { state: State.CANCELLED, finishMs: cancelled.run.finishTime ?? deps.now() });
        cancelled = (await keepEvents(deps.runner, cancelled, run).catch(() => cancelled)) as BackgroundTask;
      }
      return { response: { ...stored, background: toBackground(cancelled) } };
    },

    /** Drops the task of a deleted response (stopping it first). */
    async forget(id: string, call: Call): Promise<void> {
      const t = await taskOf(id);
      if (!t || t.ownerKeyId !== call.principal.keyId) return;
      if (!isTerminal(t.run.status)) await deps.runner.cancel(id, "deleted").catch((err: unknown) => (err instanceof InvalidTransitionError ? undefined : Promise.reject(err)));
      await deps.tasks.delete(id);
    },
  };
}

export type BackgroundResponses = ReturnType<typeof backgroundResponses>;
