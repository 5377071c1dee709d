// The lifecycle table: every pair of statuses, and what each transition does to a task's run state.
import t from "tap";
import { TRANSITIONS, canTransition, isNotable, nextRunState, resumedRunState } from "../../../src/core/tasks/transitions.js";
import { InvalidTransitionError, TASK_STATUSES, type RunState, type TaskStatus } from "../../../src/core/tasks/types.js";

const ALLOWED: Record<TaskStatus, TaskStatus[]> = {
  NOT_START: ["SUBMITTED", "FAILURE", "CANCEL"],
  MODAL: ["NOT_START", "FAILURE", "CANCEL"],
  SUBMITTED: ["IN_PROGRESS", "SUCCESS", "FAILURE", "CANCEL"],
  IN_PROGRESS: ["IN_PROGRESS", "SUCCESS", "FAILURE", "CANCEL"],
  SUCCESS: [],
  FAILURE: [],
  CANCEL: [],
};

const run = (status: TaskStatus, extra: Partial<RunState> = {}): RunState => ({ status, progress: 0, submitTime: 1000, queue: "q", notifyHook: "", seq: 0, runs: 0, ...extra });

t.test("every (from, to) pair is allowed exactly as documented", async (t) => {
  t.same(TRANSITIONS, ALLOWED);
  for (const from of TASK_STATUSES) {
    for (const to of TASK_STATUSES) {
      const ok = ALLOWED[from].includes(to);
      t.equal(canTransition(from, to), ok, `${from} -> ${to}`);
      if (ok) t.doesNotThrow(() => nextRunState(run(from, { progress: 10 }), to, { progress: 20 }, 5000), `${from} -> ${to} computes`);
      else t.throws(() => nextRunState(run(from), to, {}, 5000), InvalidTransitionError, `${from} -> ${to} refused`);
    }
  }
});

t.test("SUBMITTED starts the clock at 0% and counts a run", async (t) => {
  const next = nextRunState(run("NOT_START"), "SUBMITTED", {}, 2000);
  t.same(next, { ...run("SUBMITTED"), startTime: 2000, progress: 0, runs: 1 });
});

t.test("progress only rises and stays below 100 until SUCCESS", async (t) => {
  const r = run("IN_PROGRESS", { progress: 40, startTime: 1500 });
  t.equal(nextRunState(r, "IN_PROGRESS", { progress: 30 }, 3000).progress, 40, "a lower value keeps the stored one");
  t.equal(nextRunState(r, "IN_PROGRESS", { progress: 55.4 }, 3000).progress, 55);
  t.equal(nextRunState(r, "IN_PROGRESS", { progress: 250 }, 3000).progress, 99);
  const done = nextRunState(r, "SUCCESS", {}, 4000);
  t.equal(done.progress, 100);
  t.equal(done.finishTime, 4000);
  t.equal(done.startTime, 1500, "the start time is kept");
});

t.test("FAILURE and CANCEL record a reason and a finish time", async (t) => {
  const f = nextRunState(run("SUBMITTED", { startTime: 1200 }), "FAILURE", { failReason: "boom" }, 3000);
  t.equal(f.failReason, "boom");
  t.equal(f.finishTime, 3000);
  t.equal(nextRunState(run("NOT_START"), "FAILURE", {}, 3000).failReason, "failed");
  t.equal(nextRunState(run("MODAL"), "CANCEL", {}, 3000).failReason, "cancelled");
});

t.test("MODAL -> NOT_START takes a queue and a queue time", async (t) => {
  const next = nextRunState(run("MODAL", { queue: "" }), "NOT_START", { queue: "image-bot/a" }, 7000);
  t.equal(next.queue, "image-bot/a");
  t.equal(next.queueTime, 7000);
  t.equal(next.submitTime, 1000, "the submit time is the original one");
});

t.test("notable changes: status changes and rising progress", async (t) => {
  const a = run("IN_PROGRESS", { progress: 40 });
  t.ok(isNotable(a, { ...a, progress: 50 }));
  t.notOk(isNotable(a, { ...a }));
  t.ok(isNotable(a, { ...a, status: "SUCCESS" }));
  t.same(resumedRunState(a), { ...a, runs: 1 });
});
