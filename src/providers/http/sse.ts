// Server-sent events from a Node stream, parsed with eventsource-parser
// (every line ending, comments, multi-line data). A break in the body becomes
// a ConnectError; a last event without its blank line is still delivered.
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { createParser } from "eventsource-parser";
import { transportError } from "./errors.js";

export interface SseEvent {
  /** The `event:` name, when the server sent one. */
  event: string | undefined;
  data: string;
}

export async function* sseEvents(body: Readable, vendor: string): AsyncGenerator<SseEvent> {
  let queue: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => queue.push({ event: e.event, data: e.data }) });
  const decoder = new StringDecoder("utf8");
  const drain = function* () {
    if (!queue.length) return;
    const out = queue;
    queue = [];
    yield* out;
  };
  try {
    for await (const chunk of body) {
      parser.feed(typeof chunk === "string" ? chunk : decoder.write(chunk as Buffer));
      yield* drain();
    }
  } catch (err) {
    throw transportError(err, vendor, "body");
  }
  // A last event without its blank line still counts.
  parser.feed(decoder.end() + "\n\n");
  yield* drain();
}

/** Parses one event's JSON data; undefined when it is not JSON. */
export function eventJson(e: SseEvent): unknown {
  try {
    return JSON.parse(e.data);
  } catch {
    return undefined;
  }
}
