// The task lifecycle: the one table of allowed status changes (documented in
// docs/task-lifecycle.md) and the one function that computes a task's next
// RunState. Every status write of the runner goes through nextRunState.
import { InvalidTransitionError, type RunState, type TaskStatus } from "./types.js";

export const TRANSITIONS: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  NOT_START: ["SUBMITTED", "FAILURE", "CANCEL"],
  MODAL: ["NOT_START", "FAILURE", "CANCEL"],
  SUBMITTED: ["IN_PROGRESS", "SUCCESS", "FAILURE", "CANCEL"],
  IN_PROGRESS: ["IN_PROGRESS", "SUCCESS", "FAILURE", "CANCEL"],
  SUCCESS: [],
  FAILURE: [],
  CANCEL: [],
};

export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export interface TransitionPatch {
  progress?: number;
  failReason?: string;
  /** A new queue (e.g. the account chosen when a MODAL task is confirmed). */
  queue?: string;
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.round(n)));

/**
 * The RunState after moving `run` to `to` at time `now`, or an
 * InvalidTransitionError. Progress never goes down; SUCCESS is 100%.
 */
export function nextRunState(run: RunState, to: TaskStatus, patch: TransitionPatch, now: number): RunState {
  if (!canTransition(run.status, to)) throw new InvalidTransitionError(run.status, to);
  const next: RunState = { ...run, status: to };
  if (patch.queue !== undefined) next.queue = patch.queue;
  switch (to) {
    case "NOT_START":
      next.queueTime = now;
      next.progress = 0;
      break;
    case "SUBMITTED":
      next.startTime = now;
      next.progress = 0;
      next.runs = run.runs + 1;
      break;
    case "IN_PROGRESS":
      next.startTime ??= now;
      next.progress = Math.max(run.progress, clamp(patch.progress ?? run.progress, 0, 99));
      break;
    case "SUCCESS":
      next.startTime ??= now;
      next.progress = 100;
      next.finishTime = now;
      break;
    case "FAILURE":
    case "CANCEL":
      next.finishTime = now;
      next.failReason = patch.failReason || (to === "CANCEL" ? "cancelled" : "failed");
      break;
    default:
      break;
  }
  return next;
}

/** Whether a change is worth a callback: a status change, or progress that went up. */
export function isNotable(prev: RunState, next: RunState): boolean {
  return prev.status !== next.status || next.progress > prev.progress;
}

/** The RunState of a running task picked up again after a restart (same status, one more run). */
export function resumedRunState(run: RunState): RunState {
  return { ...run, runs: run.runs + 1 };
}
