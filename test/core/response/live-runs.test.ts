// The in-memory live runs of background responses: events and the first end
// kept, readers woken by each change or their signal, a re-run replacing the
// earlier run, ended runs forgotten after the grace (at once when abandoned),
// and open() announced to those waiting for it.
import t from "tap";
import { create } from "../../../src/core/proto/create.js";
import { StreamGenerateResponseSchema } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { BackgroundResponse_State as State } from "../../../gen/omnigate/response/v1/response_pb.js";
import { LiveRuns } from "../../../src/core/response/live-runs.js";

const ev = () => create(StreamGenerateResponseSchema, {});

t.test("events, the first end, and readers woken by changes or their signal", async (t) => {
  const runs = new LiveRuns(0);
  const run = runs.open("r1");
  const ac = new AbortController();
  const woke = run.changed(ac.signal);
  run.push(ev());
  await woke;
  t.equal(run.events.length, 1);
  const ended = run.changed(ac.signal);
  runs.finish("r1", run, { state: State.SUCCEEDED, finishMs: 1 });
  await ended;
  runs.finish("r1", run, { state: State.FAILED, finishMs: 2 });
  run.push(ev());
  t.match(run.end, { state: State.SUCCEEDED, finishMs: 1 }, "the first end counts; later events are dropped");
  t.equal(run.events.length, 1);
  t.equal(runs.get("r1"), undefined, "no grace: forgotten at once");

  const other = runs.open("r2");
  const stopped = other.changed(ac.signal);
  ac.abort();
  await stopped;
  await other.changed(ac.signal);
  t.pass("an aborted reader is let go at once");
});

t.test("grace, abandonment, a re-run, and open() announced", async (t) => {
  const runs = new LiveRuns(60_000);
  const seen: string[] = [];
  const off = runs.onOpen("r", () => seen.push("opened"));
  const first = runs.open("r");
  const second = runs.open("r");
  t.not(first, second);
  t.equal(runs.get("r"), second, "a re-run replaces the earlier run");
  t.same(seen, ["opened", "opened"]);
  off();
  runs.open("r");
  t.equal(seen.length, 2, "unsubscribed");

  const kept = runs.open("k");
  runs.finish("k", kept, { state: State.CANCELLED, finishMs: 1 });
  t.equal(runs.get("k"), kept, "an ended run stays for the grace period");
  const gone = runs.open("g");
  runs.finish("g", gone, { state: State.IN_PROGRESS, finishMs: 1, abandoned: true });
  t.equal(runs.get("g"), undefined, "an abandoned run is forgotten at once");
  runs.finish("k", runs.open("k2"), { state: State.SUCCEEDED, finishMs: 1 });
  t.equal(runs.get("k"), kept, "finishing another run leaves it");
});
