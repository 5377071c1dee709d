// The Messages stream: an explicit state machine that turns neutral
// StreamGenerateResponse events into Anthropic server-sent events, and always
// yields a valid stream: message_start, per block start / delta+ / stop with
// indexes 0, 1, 2 in order, message_delta, message_stop; or, when anything
// fails after the 200 went out, an `event: error` with the error body. Every
// frame has an `event:` line (the SDKs drop frames without one).
import { FinishReason, type Part, type PartDelta, type StreamGenerateResponse, type Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { StreamTranslator } from "../../lib/stream-translator.js";
import { inputJsonClose, inputJsonFragment } from "../../core/chat/tool-calls.js";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorBody, toWireError } from "./errors.js";
import { fromCoreBlocks, fromCorePart, stopReasonOf, usageOf, wireSignature } from "./translate.js";
import type { StopReason } from "./wire.js";
import { pumpFrames, type FrameSink } from "../shared/sink.js";

export interface SseFrame {
  event: string;
  data: Record<string, unknown>;
}

export function frameText(f: SseFrame): string {
  return `event: ${f.event}\ndata: ${JSON.stringify(f.data)}\n\n`;
}

export const PING: SseFrame = { event: "ping", data: { type: "ping" } };

export interface StreamOptions {
  requestId: string;
  /** Used when the core's start event carries none. */
  fallbackId: string;
  model: string;
  /** Renames neutral field paths of core errors into the client's (see translate.ts). */
  clientField?: (neutral: string) => string;
  /** Told about every failure that became an error frame (for logs). */
  onError?: (err: unknown) => void;
}

/**
 * States: awaiting_start -> open <-> in_block -> ended, and failed from any
 * state before ended. `open` means message_start went out and no block is open.
 */
type State = "awaiting_start" | "open" | "in_block" | "ended" | "failed";

interface OpenBlock {
  /** The neutral part index this block renders. */
  part: number;
  index: number;
  kind: "text" | "tool_use" | "thinking" | "redacted_thinking" | "whole";
  json: string;
  /** A custom tool's call: its input deltas stream as the JSON text {"input": ...}. */
  custom?: boolean;
  signature?: string;
}

const broken = (what: string) => new ConnectError(`stream out of order: ${what}`, Code.Internal);

export class MessagesStreamTranslator implements StreamTranslator<StreamGenerateResponse, SseFrame> {
  private state: State = "awaiting_start";
  private block: OpenBlock | undefined;
  private nextIndex = 0;
  private usage: Usage | undefined;
  private finish: FinishReason | undefined;
  private stopSequence = "";
  private blocked = false;
  private sawToolCall = false;

  constructor(private readonly opts: StreamOptions) {}

  get done(): boolean {
    return this.state === "ended" || this.state === "failed";
  }

  get current(): State {
    return this.state;
  }

  /** Frames for one neutral event. A protocol violation turns into an error frame. */
  push(ev: StreamGenerateResponse): SseFrame[] {
    if (this.done) return [];
    try {
      return this.step(ev);
    } catch (err) {
      return this.fail(err);
    }
  }

  /** Frames for a normal end of the neutral stream. */
  end(): SseFrame[] {
    if (this.done) return [];
    if (this.state === "awaiting_start") return this.fail(broken("ended before start"));
    let out: SseFrame[];
    try {
      out = this.closeBlock();
    } catch (err) {
      return this.fail(err);
    }
    const stop: StopReason = this.blocked ? "refusal" : stopReasonOf(this.finish ?? FinishReason.STOP, this.sawToolCall);
    this.state = "ended";
    out.push({
      event: "message_delta",
      data: { type: "message_delta", delta: { stop_reason: stop, stop_sequence: this.stopSequence || null }, usage: usageOf(this.usage) },
    });
    out.push({ event: "message_stop", data: { type: "message_stop" } });
    return out;
  }

  /** The error frame for a failure after the 200; nothing once the stream is over. */
  fail(err: unknown): SseFrame[] {
    if (this.done) return [];
    this.state = "failed";
    this.opts.onError?.(err);
    const e = toWireError(err, this.opts.clientField);
    return [{ event: "error", data: errorBody(e, this.opts.requestId) as unknown as Record<string, unknown> }];
  }

  private step(ev: StreamGenerateResponse): SseFrame[] {
    const e = ev.event;
    if (this.state === "awaiting_start") {
      if (e.case === "ping" || e.case === undefined) return [];
      if (e.case !== "start") throw broken(`${e.case} before start`);
      this.state = "open";
      if (e.value.usage) this.usage = e.value.usage;
      const message = {
        id: e.value.id || this.opts.fallbackId,
        type: "message",
        role: "assistant",
        model: e.value.model || this.opts.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usageOf(this.usage),
      };
      return [{ event: "message_start", data: { type: "message_start", message } }, PING];
    }
    switch (e.case) {
      case "start":
        throw broken("second start");
      case "partStart":
        return e.value.candidateIndex === 0 ? this.startBlock(e.value.index, e.value.part) : [];
      case "partDelta":
        return e.value.candidateIndex === 0 ? this.delta(e.value.index, e.value.delta) : [];
      case "partStop":
        return e.value.candidateIndex === 0 && this.block?.part === e.value.index ? this.closeBlock() : [];
      case "finish":
        if (e.value.candidateIndex === 0) {
          this.finish = e.value.finishReason;
          this.stopSequence = e.value.stopSequence;
        }
        return [];
      case "usage":
        this.usage = e.value;
        return [];
      case "promptFeedback":
        if (e.value.blockReason) this.blocked = true;
        return [];
      case "ping":
        return [PING];
      default:
        return [];
    }
  }

  private startBlock(part: number, p: Part | undefined): SseFrame[] {
    const out = this.closeBlock();
    if (!p) return out;
    if (p.kind.case === "webSearchCall") {
      // A search comes whole: its blocks each start and stop at once.
      for (const b of fromCoreBlocks(p)) {
        const index = this.nextIndex++;
        out.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: b } });
        out.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
      }
      return out;
    }
    const rendered = fromCorePart(p);
    if (!rendered) return out; // a part this wire cannot carry (e.g. generated media)
    const k = p.kind.case;
    this.state = "in_block";
    if (k === "text") {
      // Opened on its first text: an empty text part never becomes a block.
      this.block = { part, index: -1, kind: "text", json: "" };
      return out;
    }
    const index = this.nextIndex++;
    const start = (content_block: Record<string, unknown>) => out.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block } });
    if (k === "toolCall" && rendered.type === "tool_use") {
      this.sawToolCall = true;
      this.block = { part, index, kind: "tool_use", json: "", custom: p.kind.case === "toolCall" && p.kind.value.input !== undefined };
      // The rendered block with its input left for the deltas (an Anthropic member call keeps its toolset_name).
      start(Object.assign({}, rendered, { input: {} }));
    } else if (k === "thinking") {
      this.block = { part, index, kind: "thinking", json: "" };
      start({ type: "thinking", thinking: "", signature: "" });
    } else if (rendered.type === "redacted_thinking") {
      this.block = { part, index, kind: "redacted_thinking", json: "" };
      start({ type: "redacted_thinking", data: rendered.data });
    } else if (k === undefined) {
      // A server tool's block, whole at its start (its input, if any, already collected).
      this.block = { part, index, kind: "whole", json: "" };
      start(rendered as unknown as Record<string, unknown>);
    } else {
      // Parts whose text is fixed at the start (code, code results) carry it whole.
      this.block = { part, index, kind: "text", json: "" };
      start({ type: "text", text: "" });
      if (rendered.type === "text" && rendered.text) out.push(this.deltaFrame({ type: "text_delta", text: rendered.text }));
    }
    return out;
  }

  /** Opens a lazily started text block. */
  private openText(): SseFrame[] {
    const b = this.block!;
    if (b.index >= 0) return [];
    b.index = this.nextIndex++;
    return [{ event: "content_block_start", data: { type: "content_block_start", index: b.index, content_block: { type: "text", text: "" } } }];
  }

  private deltaFrame(delta: Record<string, unknown>, b: OpenBlock = this.block!): SseFrame {
    return { event: "content_block_delta", data: { type: "content_block_delta", index: b.index, delta } };
  }

  private delta(part: number, d: PartDelta["delta"]): SseFrame[] {
    const b = this.block;
    if (!b || b.part !== part) return []; // a part we skipped, or already closed
    switch (d.case) {
      case "text":
        if (b.kind !== "text") throw broken(`text delta in a ${b.kind} block`);
        return d.value ? [...this.openText(), this.deltaFrame({ type: "text_delta", text: d.value })] : [];
      case "thinking":
        if (b.kind !== "thinking") throw broken(`thinking delta in a ${b.kind} block`);
        return d.value ? [this.deltaFrame({ type: "thinking_delta", thinking: d.value })] : [];
      case "argumentsJson":
        if (b.kind !== "tool_use" || b.custom) throw broken(`arguments delta in a ${b.kind} block`);
        b.json += d.value;
        return d.value ? [this.deltaFrame({ type: "input_json_delta", partial_json: d.value })] : [];
      case "input": {
        if (!b.custom) throw broken(`input delta in a ${b.kind} block`);
        if (!d.value) return [];
        const json = inputJsonFragment(d.value, b.json === "");
        b.json += json;
        return [this.deltaFrame({ type: "input_json_delta", partial_json: json })];
      }
      case "signature":
        // Sent once, just before the block stops (a later signature replaces an earlier one).
        if (b.kind === "thinking") b.signature = wireSignature(d.value.issuer, d.value.value);
        return [];
      case "citation":
        return b.kind === "text" ? [...this.openText(), this.deltaFrame({ type: "citations_delta", citation: d.value })] : [];
      default:
        return [];
    }
  }

  private closeBlock(): SseFrame[] {
    const b = this.block;
    if (!b) return [];
    this.block = undefined;
    this.state = "open";
    if (b.index < 0) return []; // an empty text part: no block at all
    const out: SseFrame[] = [];
    if (b.custom) {
      const end = inputJsonClose(b.json !== "");
      b.json += end;
      out.push(this.deltaFrame({ type: "input_json_delta", partial_json: end }, b));
    }
    if (b.kind === "tool_use") {
      if (b.json === "") {
        b.json = "{}";
        out.push(this.deltaFrame({ type: "input_json_delta", partial_json: "{}" }, b));
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(b.json);
      } catch {
        throw broken("tool arguments are not valid JSON");
      }
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw broken("tool arguments are not a JSON object");
    }
    if (b.kind === "thinking" && b.signature !== undefined) out.push(this.deltaFrame({ type: "signature_delta", signature: b.signature }, b));
    out.push({ event: "content_block_stop", data: { type: "content_block_stop", index: b.index } });
    return out;
  }
}

/**
 * Drives the machine over the core's events (`first` already read, when
 * given) and writes the SSE text to `out`: the frames of each event in one
 * write, and a `ping` whenever nothing was written for `heartbeatMs` (idle
 * connections stay open through proxies). Never throws: a failure becomes an
 * error frame. Stops reading, and closes the core's stream, once the client
 * is gone; ends `out`.
 */
export function writeMessagesStream(
  events: AsyncIterator<StreamGenerateResponse>,
  first: IteratorResult<StreamGenerateResponse> | undefined,
  out: FrameSink,
  opts: StreamOptions & { heartbeatMs: number },
): Promise<void> {
  return pumpFrames(events, first, out, new MessagesStreamTranslator(opts), frameText, frameText(PING), opts.heartbeatMs);
}
