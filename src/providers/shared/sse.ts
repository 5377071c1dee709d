// Server-sent events from a Node stream, parsed with eventsource-parser
// (every line ending, comments, multi-line data). A break in the body becomes
// a ConnectError; a last event without its blank line is still delivered.
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { createParser } from "eventsource-parser";
import { DONE } from "../../core/iter.js";
import { protocolError, transportError, untranslatable } from "./http-errors.js";
import { discard } from "./http.js";
import { parseWellFormed } from "../../lib/unicode.js";

export interface SseEvent {
  /** The `event:` name, when the server sent one. */
  event: string | undefined;
  data: string;
}

/** The most an event may take on the wire (its lines up to the blank one), as the largest whole JSON answer. */
export const MAX_EVENT_BYTES = 64 * 1024 * 1024;

/** What an sseMap function returns for an event that makes no item (one shared empty list). */
export const NO_ITEMS: readonly never[] = [];

/**
 * The items a synchronous function makes of each event of an SSE body (none,
 * one or several an event): reading, parsing and mapping in one async step per
 * item. A chain of async generators (the events, then a client's JSON, then a
 * provider's translation) cost a promise, a result and a generator resumption
 * per event at every link. Events are mapped one at a time as they are asked
 * for, so the items of the events before one that `map` rejects still arrive
 * first. A break in the body becomes a ConnectError; what `map` throws passes
 * as it is and drops the rest of the body, as does `return()`. The body is
 * read from the call on (its listeners are attached here), so an iterator
 * closed before its first `next()` still drops it. An event (or comment)
 * longer than `maxEventBytes` is the upstream's malformed answer: the parser
 * would otherwise hold an endless line in memory.
 */
export function sseMap<T>(body: Readable, vendor: string, map: (e: SseEvent) => readonly T[], maxEventBytes = MAX_EVENT_BYTES): AsyncIterableIterator<T> {
  const events: SseEvent[] = [];
  // Bytes fed since the parser last finished an event or a comment: what it may be holding.
  let held = 0;
  const parser = createParser({
    onEvent: (e) => {
      held = 0;
      events.push({ event: e.event, data: e.data });
    },
    onComment: () => {
      held = 0;
    },
  });
  const decoder = new StringDecoder("utf8");
  const chunks = bodyChunks(body)[Symbol.asyncIterator]();
  let items: readonly T[] = [];
  let item = 0;
  let ev = 0;
  // "reading" until the body ends, "ended" after (events may still be queued), "closed" after an error or return().
  let state: "reading" | "ended" | "closed" = "reading";
  const close = async (): Promise<void> => {
    const reading = state === "reading";
    state = "closed";
    // Once the body ended, bodyChunks has already let go of it.
    if (reading) await chunks.return?.();
  };
  const it: AsyncIterableIterator<T> = {
    async next(): Promise<IteratorResult<T>> {
      for (;;) {
        if (item < items.length) return { done: false, value: items[item++]! };
        if (state === "closed") return DONE;
        if (ev < events.length) {
          const e = events[ev++]!;
          if (ev === events.length) {
            events.length = 0;
            ev = 0;
          }
          item = 0;
          try {
            items = map(e);
          } catch (err) {
            items = [];
            await close();
            throw untranslatable(vendor, err);
          }
          continue;
        }
        if (state === "ended") {
          state = "closed";
          return DONE;
        }
        try {
          const r = await chunks.next();
          // Closed by return() while it waited: nothing more is mapped.
          if (state !== "reading") return DONE;
          // A last event without its blank line still counts.
          if (r.done) {
            state = "ended";
            parser.feed(decoder.end() + "\n\n");
          } else {
            held += r.value.length;
            parser.feed(typeof r.value === "string" ? r.value : decoder.write(r.value));
          }
        } catch (err) {
          // bodyChunks has let go of the body when it threw.
          state = "closed";
          throw transportError(err, vendor, "body");
        }
        if (held > maxEventBytes) {
          await close();
          throw protocolError(vendor, `an event longer than ${maxEventBytes} bytes`);
        }
      }
    },
    async return(): Promise<IteratorResult<T>> {
      items = [];
      events.length = 0;
      await close();
      return DONE;
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}

/** How many unread chunks make the body pause until the reader catches up. */
const HIGH_WATER = 16;

/**
 * A body's chunks as an async iterable, from 'data' events (a Readable's own
 * async iterator costs several promises per chunk). Errors and a close before
 * the end are thrown to the reader; a reader that stops early destroys the
 * body, as with the stream's iterator.
 */
export function bodyChunks(body: Readable): AsyncIterable<Buffer | string> {
  return {
    [Symbol.asyncIterator]() {
      const queue: (Buffer | string)[] = [];
      let head = 0;
      let ended = false;
      let failure: unknown;
      let wake: (() => void) | undefined;
      const onData = (c: Buffer | string) => {
        queue.push(c);
        if (queue.length - head >= HIGH_WATER) body.pause();
        wake?.();
      };
      const onEnd = () => {
        ended = true;
        wake?.();
      };
      const onError = (err: unknown) => {
        failure ??= err;
        wake?.();
      };
      const onClose = () => {
        if (!ended) failure ??= Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" });
        wake?.();
      };
      const detach = () => {
        body.off("data", onData);
        body.off("end", onEnd);
        body.off("error", onError);
        body.off("close", onClose);
      };
      body.on("data", onData);
      body.on("end", onEnd);
      body.on("error", onError);
      body.on("close", onClose);
      const waitForMore = () =>
        new Promise<void>((resolve) => {
          wake = resolve;
        });
      return {
        async next(): Promise<IteratorResult<Buffer | string>> {
          for (;;) {
            if (head < queue.length) {
              const value = queue[head++]!;
              if (head === queue.length) {
                queue.length = 0;
                head = 0;
                if (body.isPaused() && !ended) body.resume();
              }
              return { done: false, value };
            }
            if (failure !== undefined) {
              detach();
              throw failure;
            }
            if (ended) {
              detach();
              return { done: true, value: undefined };
            }
            await waitForMore();
            wake = undefined;
          }
        },
        async return(): Promise<IteratorResult<Buffer | string>> {
          // A next() still waiting (return() called beside it) wakes up done.
          queue.length = 0;
          head = 0;
          const wasEnded = ended;
          ended = true;
          detach();
          if (!wasEnded) discard(body);
          wake?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

/** Parses one event's JSON data (unpaired surrogates made U+FFFD, lib/unicode.ts); undefined when it is not JSON. */
export function eventJson(e: SseEvent): unknown {
  try {
    return parseWellFormed(e.data);
  } catch {
    return undefined;
  }
}
