// The images SSE writer on its own, with a sink in memory: frames in order, a
// failure after the 200 as OpenAI's error event, a stream that ends without
// its batch, keep-alive comments while the core is quiet, and a client that
// went away.
import t from "tap";
import { EventEmitter } from "node:events";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ImageBatchSchema, PartialImageSchema } from "../../../gen/omnigate/image/v1/image_pb.js";
import { coreError } from "../../../src/core/errors.js";
import { framesOf, writeImagesStream, type StreamMessage } from "../../../src/facades/openai-images/sse.js";

class Sink extends EventEmitter {
  text = "";
  destroyed = false;
  writableEnded = false;
  writableNeedDrain = false;
  write(s: string): boolean {
    this.text += s;
    return true;
  }
  end(): void {
    this.writableEnded = true;
  }
}

const partial: StreamMessage = { event: { case: "partialImage", value: create(PartialImageSchema, { partialImageIndex: 0, file: { data: new Uint8Array([1]) }, size: "1024x1024" }) } };
const batch: StreamMessage = { event: { case: "batch", value: create(ImageBatchSchema, { created: 5n, images: [{ file: { data: new Uint8Array([2]) } }], size: "1024x1024" }) } };

/** An iterator over the messages, then `fail` (thrown) or the end; `delayMs` before each. */
function source(messages: StreamMessage[], fail?: unknown, delayMs = 0) {
  let i = 0;
  let returned = false;
  const it: AsyncIterator<StreamMessage> & { returned: () => boolean } = {
    async next() {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      if (i < messages.length) return { done: false, value: messages[i++]! };
      if (fail) throw fail;
      return { done: true, value: undefined };
    },
    async return() {
      returned = true;
      return { done: true, value: undefined };
    },
    returned: () => returned,
  };
  return it;
}

const parse = (text: string) => {
  const out: EventSourceMessage[] = [];
  createParser({ onEvent: (e) => out.push(e) }).feed(text);
  return out;
};

t.test("partial, then completed; the sink is ended", async (t) => {
  const sink = new Sink();
  const it = source([batch]);
  await writeImagesStream(it, { done: false, value: partial }, sink, { prefix: "image_edit", heartbeatMs: 10_000 });
  const events = parse(sink.text);
  t.same(
    events.map((e) => e.event),
    ["image_edit.partial_image", "image_edit.completed"],
  );
  t.match(JSON.parse(events[1]!.data), { type: "image_edit.completed", b64_json: "Ag==", created_at: 5, size: "1024x1024", usage: { total_tokens: 0 } });
  t.ok(sink.writableEnded);
});

t.test("a failure after the 200 is an error event in OpenAI's shape", async (t) => {
  const sink = new Sink();
  const errors: unknown[] = [];
  const err = coreError(Code.InvalidArgument, "Your request was rejected.", { reason: "moderation_blocked", metadata: { code: "moderation_blocked" } });
  await writeImagesStream(source([], err), { done: false, value: partial }, sink, { prefix: "image_generation", heartbeatMs: 10_000, onError: (e) => errors.push(e) });
  const events = parse(sink.text);
  t.same(
    events.map((e) => e.event),
    ["image_generation.partial_image", "error"],
  );
  t.same(JSON.parse(events[1]!.data), { type: "error", error: { message: "Your request was rejected.", type: "image_generation_user_error", param: null, code: "moderation_blocked" } });
  t.equal(errors[0], err);
  const plain = new Sink();
  await writeImagesStream(source([], new Error("boom")), { done: false, value: partial }, plain, { prefix: "image_generation", heartbeatMs: 10_000 });
  t.match(JSON.parse(parse(plain.text)[1]!.data), { type: "error", error: { type: "server_error" } }, "anything else is a server error");
});

t.test("a stream that ends before its batch ends with an error event", async (t) => {
  const sink = new Sink();
  await writeImagesStream(source([{ event: { case: undefined } }]), { done: false, value: partial }, sink, { prefix: "image_generation", heartbeatMs: 10_000 });
  t.same(
    parse(sink.text).map((e) => e.event),
    ["image_generation.partial_image", "error"],
  );
  t.same(framesOf("image_generation", { event: { case: undefined } }), { text: "", done: false });
});

t.test("keep-alive comments while the core is quiet", async (t) => {
  const sink = new Sink();
  await writeImagesStream(source([batch], undefined, 60), { done: false, value: partial }, sink, { prefix: "image_generation", heartbeatMs: 15 });
  t.match(sink.text, /: keep-alive\n\n/);
  t.same(
    parse(sink.text).map((e) => e.event),
    ["image_generation.partial_image", "image_generation.completed"],
    "comments are no events",
  );
});

t.test("a client that went away: the core's stream is closed, nothing more is written", async (t) => {
  const sink = new Sink();
  sink.destroyed = true;
  const it = source([partial, batch]);
  await writeImagesStream(it, { done: false, value: partial }, sink, { prefix: "image_generation", heartbeatMs: 10_000 });
  t.ok(it.returned(), "closed");
  t.equal(sink.text, "");
});
