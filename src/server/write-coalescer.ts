// Sends what a turn of the event loop wrote to a socket when that turn's I/O
// callbacks are done, instead of one write at a time between them (Redis
// writes its replies before it sleeps for the same reason).
//
// Node's HTTP server and undici already gather each message into one write:
// they cork the socket, write the head and the body, and uncork. A socket
// attached here takes that last uncork as "ready to send" and sends the
// message from a setImmediate, which runs once the loop has handled every I/O
// event of this turn, so the answers (and upstream requests) of one turn leave
// back to back. Same number of system calls; what it saves is the wake-ups: a
// loopback or virtual-machine peer that was woken by the first write is still
// awake for the next, where ~30 µs of work between two sends let it go back
// to sleep and made each send wake it again (bench/README.md, nineteenth
// round). The cost is latency within a turn: an answer waits for the work of
// at most MAX_HELD - 1 other answers (the rest of a busy turn goes out in
// groups), which at light load is nothing.
//
// Only the last uncork is deferred (writableCorked 1 -> 0); nested corks and
// uncorks behave as always, a destroyed socket is handed to Node as is, and
// end() and destroy() send what is held first. Nothing is ever held past the
// turn: the flush uncorks every held socket fully, whatever corked it again
// meanwhile.
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
  // The held sockets in fixed slots, not a Set: a long-lived Set that is
  // filled and emptied every turn rehashes its table as it grows and shrinks,
  // and V8 allocates the new table of an old-generation Set straight in the
  // old generation, so each turn left garbage there for full collections to
  // find (the old generation grew 152 B a request with the Set, 35 B without,
  // at 3,000 requests a second; bench/README.md, twenty-fourth round). Slots
  // never allocate.
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
