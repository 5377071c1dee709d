// The durable task runner's model, shared by every kind of task (image-bot,
// video). A task is stored as a TaskRecord whose data is
// `{ run: RunState, payload: <the kind's own JSON> }`; the record's status
// column mirrors run.status.

export const TASK_STATUSES = ["NOT_START", "SUBMITTED", "MODAL", "IN_PROGRESS", "SUCCESS", "FAILURE", "CANCEL"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TERMINAL_STATUSES: readonly TaskStatus[] = ["SUCCESS", "FAILURE", "CANCEL"];
export const ACTIVE_STATUSES: readonly TaskStatus[] = ["NOT_START", "SUBMITTED", "MODAL", "IN_PROGRESS"];
/** Statuses in which a task holds a slot of its queue. */
export const RUNNING_STATUSES: readonly TaskStatus[] = ["SUBMITTED", "IN_PROGRESS"];

export const isTerminal = (s: TaskStatus): boolean => TERMINAL_STATUSES.includes(s);
export const isRunning = (s: TaskStatus): boolean => RUNNING_STATUSES.includes(s);

/** The runner's part of a task; only transitions.ts computes a new one. */
export interface RunState {
  status: TaskStatus;
  /** 0..100. */
  progress: number;
  /** Epoch ms when the task was accepted. */
  submitTime: number;
  /** Epoch ms when it last entered NOT_START (its place in the queue). */
  queueTime?: number;
  startTime?: number;
  finishTime?: number;
  failReason?: string;
  /** The queue (e.g. image-bot account id) that runs it. */
  queue: string;
  /** Where its callbacks go ("" = none). */
  notifyHook: string;
  /** Sequence number of its last callback. */
  seq: number;
  /** How many times its execution started (restarts included). */
  runs: number;
}

export interface StoredTask<P = unknown> {
  id: string;
  kind: string;
  ownerKeyId?: string | undefined;
  run: RunState;
  payload: P;
  /** Storage version (optimistic concurrency). */
  version: number;
  createTime: number;
  updateTime: number;
}

/** A failure whose message may be shown to clients as the task's failReason. */
export class TaskFailure extends Error {
  override name = "TaskFailure";
}

/** Raised when a queue has no room; the caller answers "account unavailable". */
export class QueueFullError extends Error {
  override name = "QueueFullError";
}

/** Raised when an execution's task is no longer leased to this instance: it stops without writing. */
export class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

/** Raised for a status change the transition table does not allow. */
export class InvalidTransitionError extends Error {
  override name = "InvalidTransitionError";
  constructor(
    readonly from: TaskStatus,
    readonly to: TaskStatus,
  ) {
    super(`a task cannot go from ${from} to ${to}`);
  }
}

export interface ExecContext<P> {
  /** Aborted when the task is cancelled, times out, its lease is lost, or the runner stops. */
  signal: AbortSignal;
  /** Reports progress (moves SUBMITTED to IN_PROGRESS); a lower value than the stored one is kept at the stored one. */
  progress(progress: number, payload?: P): Promise<StoredTask<P>>;
  /** Saves the payload without a status change (e.g. an upstream id needed to resume). */
  save(payload: P): Promise<StoredTask<P>>;
}

/** What a kind of task plugs into the runner. */
export interface TaskHandler<P> {
  kind: string;
  /** Runs the task to its result payload (then SUCCESS), or throws (FAILURE; a TaskFailure's message becomes failReason). */
  execute(task: StoredTask<P>, ctx: ExecContext<P>): Promise<P>;
  /** For a task that was running when its instance stopped or died (taken over after its lease): true to run it again, or the failReason to fail it with. */
  resume?(task: StoredTask<P>): true | string;
  /** The JSON body of the callback for this state of the task; undefined sends none. */
  callbackBody?(task: StoredTask<P>): string | undefined;
  /** Called once when a task reaches a terminal status. */
  onFinished?(task: StoredTask<P>): void;
  /** Overrides the runner's timeout for this kind. */
  timeoutMs?: number;
}
