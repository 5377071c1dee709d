// The Responses stream: a state machine that turns neutral
// StreamGenerateResponse events into the event sequence the real clients
// need (notes B.6, B.7, C.8, E.4): response.created and response.in_progress
// with the whole Response (in_progress, no output, usage null); per item
// output_item.added (empty arrays present), its content events and
// output_item.done with the final item; exactly one response.completed,
// response.incomplete or response.failed with the whole final Response
// (output, usage with details). Every event has `type` and a sequence_number
// counting from 0. The items are ./output.ts's, the same the unary answer
// has. A failure after the 200 is response.failed with error {code, message}
// (./failure.ts), never a bare `error` event, which Codex ignores. Pure:
// ./sse.ts writes the frames.
import type { JsonObject } from "@bufbuild/protobuf";
import type { StreamTranslator } from "../../lib/stream-translator.js";
import type { CandidateFinish, StreamGenerateResponse, Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { FrameMachine } from "../shared/sink.js";
import { failureOf } from "./failure.js";
import type { ResponseMeta } from "./meta.js";
import { OutputAssembler, type ResponseEvent } from "./output.js";
import { outcomeOf, responseObject, usageOf } from "./translate-response.js";

export type { ResponseEvent } from "./output.js";

/** A frame: one event, or a keep-alive (an SSE comment every client skips). */
export type Frame = ResponseEvent | "ping";

export interface StreamOptions {
  /** Milliseconds since the epoch, for the final Response's completed_at. */
  now?: () => number;
  /** Told about every failure that became response.failed (for logs). */
  onError?: (err: unknown) => void;
}

export class ResponsesStreamTranslator implements StreamTranslator<StreamGenerateResponse, Frame>, FrameMachine<StreamGenerateResponse, Frame> {
  private started = false;
  private ended = false;
  /** Candidate 0 finished: its items are closed and later parts ignored. */
  private finished = false;
  private usage: Usage | undefined;
  private finish: CandidateFinish | undefined;
  private blocked = false;
  private terminal: JsonObject | undefined;
  private readonly asm: OutputAssembler;

  constructor(
    private readonly meta: ResponseMeta,
    private readonly o: StreamOptions = {},
  ) {
    this.asm = new OutputAssembler(meta);
  }

  get done(): boolean {
    return this.ended;
  }

  /** The Response of the terminal event (completed, incomplete or failed), once there is one: what a stored response holds. */
  final(): JsonObject | undefined {
    return this.terminal;
  }

  /** The SSE text of a frame. */
  frameText(f: Frame): string {
    if (f === "ping") return ": ping\n\n";
    return `event: ${f.type}\ndata: ${JSON.stringify(f)}\n\n`;
  }

  push(ev: StreamGenerateResponse): Frame[] {
    if (this.ended) return [];
    if (ev.event.case === "ping") return ["ping"];
    const out: ResponseEvent[] = (this.asm.events = []);
    try {
      this.step(ev);
    } catch (err) {
      this.failed(err);
    } finally {
      this.asm.events = undefined;
    }
    return out;
  }

  /** Frames for a normal end of the neutral stream: open items closed, then the terminal event. */
  end(): Frame[] {
    if (this.ended) return [];
    if (!this.started) return this.fail(new Error("the stream ended before it started"));
    const out: ResponseEvent[] = (this.asm.events = []);
    const oc = this.outcome();
    if (!this.finished) this.asm.close(oc.status === "incomplete");
    let output = this.asm.output;
    if (this.meta.compact) {
      const item = this.asm.compaction();
      this.asm.emit("response.output_item.added", { output_index: 0, item });
      this.asm.emit("response.output_item.done", { output_index: 0, item });
      output = [item];
    }
    this.terminal = responseObject(this.meta, {
      status: oc.status,
      output,
      usage: usageOf(this.usage),
      incompleteReason: oc.reason,
      completedAt: oc.status === "completed" && this.o.now ? Math.floor(this.o.now() / 1000) : null,
    });
    this.asm.emit(oc.status === "completed" ? "response.completed" : "response.incomplete", { response: this.terminal });
    this.asm.events = undefined;
    this.ended = true;
    return out;
  }

  /** response.failed for a failure after the 200 (after response.created, sent first if it was not); nothing once the stream is over. */
  fail(err: unknown): Frame[] {
    if (this.ended) return [];
    const out: ResponseEvent[] = (this.asm.events = []);
    this.failed(err);
    this.asm.events = undefined;
    return out;
  }

  private failed(err: unknown): void {
    this.ended = true;
    this.o.onError?.(err);
    if (!this.started) this.begin();
    this.asm.abandon();
    this.terminal = responseObject(this.meta, { status: "failed", output: this.meta.compact ? [] : this.asm.output, usage: usageOf(this.usage), error: failureOf(err) });
    this.asm.emit("response.failed", { response: this.terminal });
  }

  private begin(): void {
    this.started = true;
    const shell = () => responseObject(this.meta, { status: "in_progress", output: [], usage: null });
    this.asm.emit("response.created", { response: shell() });
    this.asm.emit("response.in_progress", { response: shell() });
  }

  private outcome() {
    return outcomeOf(this.finish, { blocked: this.blocked, refused: this.asm.refused });
  }

  private step(ev: StreamGenerateResponse): void {
    const e = ev.event;
    if (!this.started) {
      if (e.case === undefined) return;
      if (e.case !== "start") throw new Error(`${e.case} before start`);
      if (e.value.usage) this.usage = e.value.usage;
      this.begin();
      return;
    }
    switch (e.case) {
      case "partStart":
        if (e.value.candidateIndex === 0 && e.value.part && !this.finished) this.asm.start(e.value.index, e.value.part);
        return;
      case "partDelta":
        if (e.value.candidateIndex === 0 && !this.finished) this.asm.delta(e.value.index, e.value.delta);
        return;
      case "partStop":
        if (e.value.candidateIndex === 0 && !this.finished) this.asm.stop(e.value.index);
        return;
      case "finish":
        if (e.value.candidateIndex !== 0 || this.finished) return;
        this.finish = e.value;
        this.finished = true;
        this.asm.close(this.outcome().status === "incomplete");
        return;
      case "usage":
        this.usage = e.value;
        return;
      case "promptFeedback":
        if (e.value.blockReason) this.blocked = true;
        return;
      default:
        return;
    }
  }
}
