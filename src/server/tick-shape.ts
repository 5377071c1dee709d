// Holds one of Node's nextTick queue entries for the life of the process. The
// entries are literals with computed keys, whose hidden class V8 holds only
// weakly: a full collection that finds no entry alive frees it, and after a few
// such rebuilds nextTick's property sites go megamorphic for good (slower ticks).
// Holding one entry keeps the class; it is taken again every 5 s in case V8 replaces it.
import { executionAsyncResource } from "node:async_hooks";

let held: object | undefined;

function hold(): void {
  process.nextTick(() => {
    const entry = executionAsyncResource();
    if (typeof entry === "object" && entry !== null && "callback" in entry) held = entry;
  });
}

/** Starts holding an entry (main.ts, before the other modules load); returns a function that stops it. */
export function holdTickShape(): () => void {
  hold();
  const timer = setInterval(hold, 5_000).unref();
  return () => {
    clearInterval(timer);
    held = undefined;
  };
}

/** The queue entry held now (for the test that checks this works on this Node). */
export function heldTickEntry(): object | undefined {
  return held;
}
