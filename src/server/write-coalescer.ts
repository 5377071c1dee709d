// Sends what a turn of the event loop wrote to a socket from a setImmediate once
// the turn's I/O callbacks are done, so one turn's answers leave back to back: a
// peer woken by the first write is still awake for the next (fewer wake-ups, same
// system calls). The cost: an answer waits for the work of at most MAX_HELD - 1
// others. Only the last uncork is deferred; end(), destroy() and the flush send
// what is held, and nothing is held past the turn.
import { Socket } from "node:net";

export interface WriteCoalescer {
  /** From now on, the socket's last uncork sends at the end of the loop's turn. */
  attach(socket: Socket): void;
  /** Sends whatever is held now. */
  flush(): void;
}

const { uncork, end, destroy } = Socket.prototype;

/** At most this many sockets wait for the end of a turn; the one that makes it this many sends them all at once. */
export const MAX_HELD = 4;

export function writeCoalescer(): WriteCoalescer {
  // Fixed slots: a Set that is filled and emptied every turn would rehash its
  // tables into the old generation; slots never allocate.
  const held: (Socket | undefined)[] = new Array(MAX_HELD).fill(undefined);
  let count = 0;
  // The slots past `count` are empty, so a socket found is held.
  const isHeld = (s: Socket): boolean => held.indexOf(s) >= 0;
  let scheduled = false;
  /** The socket whose end() is running: Node's end() uncorks and then looks for an empty buffer to finish, so that uncork must send now. */
  let ending: Socket | undefined;
  /** Takes s out of its slot; the ones held after it move up, so the slots stay in the order held. */
  const release = (s: Socket): void => {
    const i = held.indexOf(s);
    if (i < 0) return;
    for (let j = i; j < count - 1; j++) held[j] = held[j + 1];
    held[--count] = undefined;
  };
  const send = (s: Socket): void => {
    release(s);
    while (s.writableCorked > 0) uncork.call(s);
  };
  // Oldest first; a socket held again while this runs (by an uncork's own
  // callbacks) is sent in the same pass.
  const flush = (): void => {
    while (count > 0) send(held[0]!);
  };
  const flushTurn = (): void => {
    scheduled = false;
    flush();
  };
  function deferredUncork(this: Socket): void {
    if (this.writableCorked !== 1 || this.destroyed || this === ending) {
      uncork.call(this);
      return;
    }
    if (!isHeld(this)) held[count++] = this;
    // A turn that works off a backlog (after a collection's pause, say) would
    // hold its first answer until the last is done: send every few instead.
    if (count >= MAX_HELD) {
      flush();
      return;
    }
    if (!scheduled) {
      scheduled = true;
      setImmediate(flushTurn);
    }
  }
  // Ending or destroying a held socket sends what it holds first: without the
  // coalescer, that had left already (an answer, then a pipelined request's
  // 400 and a destroy, must not lose the answer).
  function sendThenEnd(this: Socket, ...args: unknown[]): Socket {
    if (isHeld(this)) send(this);
    const outer = ending;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the socket being ended, read by the nested send
    ending = this;
    try {
      return (end as (...a: unknown[]) => Socket).apply(this, args);
    } finally {
      ending = outer;
    }
  }
  function sendThenDestroy(this: Socket, ...args: unknown[]): Socket {
    if (isHeld(this)) send(this);
    return (destroy as (...a: unknown[]) => Socket).apply(this, args);
  }
  return {
    attach(socket) {
      socket.uncork = deferredUncork;
      socket.end = sendThenEnd as Socket["end"];
      socket.destroy = sendThenDestroy as Socket["destroy"];
    },
    flush,
  };
}
