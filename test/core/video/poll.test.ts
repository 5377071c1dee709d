// Polling with backoff: waits double up to the cap, transient failures are
// retried up to a limit, other failures end the polling.
import t from "tap";
import { Code } from "@connectrpc/connect";
import { coreError } from "../../../src/core/errors.js";
import { backoffDelay, pollUntil } from "../../../src/core/video/poll.js";

t.test("backoffDelay doubles up to the cap", async (t) => {
  t.same(
    [0, 1, 2, 3, 4, 10].map((a) => backoffDelay(a, 100, 1000)),
    [100, 200, 400, 800, 1000, 1000],
  );
});

t.test("pollUntil returns the first value and retries transient failures", async (t) => {
  const signal = new AbortController().signal;
  const answers: Array<() => string | undefined> = [
    () => undefined,
    () => {
      throw coreError(Code.Unavailable, "down");
    },
    () => undefined,
    () => "done",
  ];
  let calls = 0;
  const v = await pollUntil(async () => answers[calls++]!(), { firstMs: 1, maxMs: 2, signal, random: () => 0.5 });
  t.equal(v, "done");
  t.equal(calls, 4);
});

t.test("pollUntil gives up after maxErrors transient failures, and at once on others", async (t) => {
  const signal = new AbortController().signal;
  let calls = 0;
  await t.rejects(
    pollUntil(
      async () => {
        calls++;
        throw coreError(Code.Unavailable, "down");
      },
      { firstMs: 1, maxMs: 1, signal, maxErrors: 3 },
    ),
    { code: Code.Unavailable },
  );
  t.equal(calls, 3);
  calls = 0;
  await t.rejects(
    pollUntil(
      async () => {
        calls++;
        throw coreError(Code.InvalidArgument, "bad");
      },
      { firstMs: 1, maxMs: 1, signal },
    ),
    { code: Code.InvalidArgument },
  );
  t.equal(calls, 1);
});

t.test("pollUntil stops when the signal aborts", async (t) => {
  const ac = new AbortController();
  const p = pollUntil(async () => undefined, { firstMs: 10_000, maxMs: 10_000, signal: ac.signal });
  setTimeout(() => ac.abort(new Error("stop")), 10);
  await t.rejects(p, { message: "stop" });
});
