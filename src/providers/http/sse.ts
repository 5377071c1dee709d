// Server-sent events from a Node stream, parsed with eventsource-parser
// (every line ending, comments, multi-line data). A break in the body becomes
// a ConnectError; a last event without its blank line is still delivered.
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { createParser } from "eventsource-parser";
import { transportError } from "./errors.js";
import { discard } from "./request.js";

export interface SseEvent {
  /** The `event:` name, when the server sent one. */
  event: string | undefined;
  data: string;
}

export async function* sseEvents(body: Readable, vendor: string): AsyncGenerator<SseEvent> {
  const queue: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => queue.push({ event: e.event, data: e.data }) });
  const decoder = new StringDecoder("utf8");
  try {
    for await (const chunk of bodyChunks(body)) {
      parser.feed(typeof chunk === "string" ? chunk : decoder.write(chunk));
      for (let i = 0; i < queue.length; i++) yield queue[i]!;
      queue.length = 0;
    }
  } catch (err) {
    throw transportError(err, vendor, "body");
  }
  // A last event without its blank line still counts.
  parser.feed(decoder.end() + "\n\n");
  yield* queue;
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
          detach();
          if (!ended) discard(body);
          return { done: true, value: undefined };
        },
      };
    },
  };
}

/** Parses one event's JSON data; undefined when it is not JSON. */
export function eventJson(e: SseEvent): unknown {
  try {
    return JSON.parse(e.data);
  } catch {
    return undefined;
  }
}
