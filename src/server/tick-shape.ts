// Keeps the shape of Node's nextTick queue entries alive for the life of the
// process, imported first by main.ts.
//
// Each process.nextTick call builds its queue entry as an object literal with
// computed (symbol) keys, `{ [async_id_symbol]: …, [trigger_async_id_symbol]:
// …, callback, args }`. Unlike a literal with plain keys, whose boilerplate
// holds its final hidden class, such a literal reaches its hidden class through
// a chain of transitions that V8 holds only weakly. An entry lives for one turn
// of the tick queue, so a full garbage collection that finds none alive (one
// during module loading, or in a stretch of I/O callbacks) frees the chain, and
// the next entry is built on a new one. nextTick's property-definition sites
// count each new chain as another receiver shape, and after four they go
// megamorphic for the rest of the process: every entry then defines its last
// three properties through the runtime, about 250 ns a call instead of 30.
// Which processes that happens to is chance (how the start-up's collections
// fall): about half of the gateway's did, none of the bare proxy's, and a
// request makes about eight nextTick calls. Measured in bench/README.md
// (seventeenth round).
//
// Holding one entry holds its hidden class and, through its back pointers, the
// whole chain, so the sites stay monomorphic. The entry is the resource of the
// tick that runs it (async_hooks.executionAsyncResource). It is taken again
// every few seconds, so that a chain V8 replaces (a field whose representation
// widens, say from small integer to double) is held in its turn.
import { executionAsyncResource } from "node:async_hooks";

let held: object | undefined;

function hold(): void {
  process.nextTick(() => {
    const entry = executionAsyncResource();
    if (typeof entry === "object" && entry !== null && "callback" in entry) held = entry;
  });
}

hold();
setInterval(hold, 5_000).unref();

/** The queue entry held now (for the test that checks this works on this Node). */
export function heldTickEntry(): object | undefined {
  return held;
}
