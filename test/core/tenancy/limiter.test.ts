// The in-process limiter's concurrency slots: counted per key, freed once per
// release, and a key's count back at zero admits again.
import t from "tap";
import { memoryLimiter } from "../../../src/core/tenancy/limiter.js";

const limits = (concurrentRequests: number) => ({ requestsPerMinute: 0, tokensPerMinute: 0, concurrentRequests });

t.test("concurrency: per key, one slot per call, a double release frees one", async (t) => {
  const l = memoryLimiter();
  const a1 = await l.acquire("a", limits(2));
  const a2 = await l.acquire("a", limits(2));
  await t.rejects(l.acquire("a", limits(2)), /concurrent requests/, "a third call of the same key is refused");
  const b = await l.acquire("b", limits(2));
  t.ok(b, "another key has its own count");
  a1();
  a1();
  const a3 = await l.acquire("a", limits(2));
  await t.rejects(l.acquire("a", limits(2)), /concurrent requests/, "a release called twice freed one slot, not two");
  a2();
  a3();
  // Back at zero many times over: every call is admitted, none is refused.
  for (let i = 0; i < 100; i++) (await l.acquire("a", limits(1)))();
  const last = await l.acquire("a", limits(1));
  await t.rejects(l.acquire("a", limits(1)), /concurrent requests/);
  last();
  await l.close();
});
