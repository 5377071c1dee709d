// Anthropic stream events -> neutral stream events: an explicit state machine
// per response. Pure: the client feeds it parsed SSE events. Blocks the neutral
// model has no kind for (server tool use and its results) are collected whole
// and passed on as one part carrying their JSON in vendor_extras. A tool_use
// of an emulated custom tool is a call with free-text input: its argument JSON
// is held until the block stops (the "input" string is only known whole
// then), and the input goes out as one input delta. A web search's
// server_tool_use is held until its web_search_tool_result (the block right
// after it) stops: both go on as one WebSearchCall part (web-search.ts); one
// that gets no result goes on, in progress, when the next block or the finish
// comes.
import { type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import type { StreamTranslator } from "../../lib/stream-translator.js";
import { PartDeltaSchema, StreamGenerateResponseSchema, type StreamGenerateResponse, type Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { partSkeleton } from "../../core/chat/stream.js";
import { customInputOf } from "../shared/custom-tools.js";
import { argsObject } from "../shared/parts.js";
import { protocolError } from "../shared/http-errors.js";
import { streamError } from "./errors.js";
import { VENDOR } from "./request.js";
import { finishOf, partOf, usageOf } from "./response.js";
import { isResultOf, isWebSearchUse, webSearchPart } from "./web-search.js";
import type * as wire from "./wire.js";

type Ev = StreamGenerateResponse;
type EvInit = MessageInitShape<typeof StreamGenerateResponseSchema>["event"];
type DeltaInit = MessageInitShape<typeof PartDeltaSchema>["delta"];
const ev = (e: EvInit): Ev => create(StreamGenerateResponseSchema, { event: e });

interface Block {
  index: number;
  type: string;
  /** tool_use: input given at the start (sent if no delta follows). */
  startInput?: unknown;
  sawArgs: boolean;
  /** Blocks without a neutral kind: collected until they stop. */
  raw?: wire.ResponseBlock;
  /** A custom tool's call: its argument JSON, held until the block stops. */
  custom?: boolean;
  rawJson: string;
}

const KNOWN = new Set(["text", "thinking", "redacted_thinking", "tool_use"]);

export class AnthropicStreamTranslator implements StreamTranslator<wire.StreamEvent, Ev> {
  private started = false;
  private next = 0;
  private blocks = new Map<number, Block>();
  private usage: Usage | undefined;
  private finished = false;
  /** A web search's server_tool_use waiting for its result. */
  private search: wire.ResponseBlock | undefined;
  /** Set once message_stop arrived. */
  stopped = false;

  constructor(private readonly ctx: { model: string; channel: string; customTools?: ReadonlySet<string> }) {}

  private delta(index: number, delta: DeltaInit): Ev {
    return ev({ case: "partDelta", value: { candidateIndex: 0, index, delta } });
  }

  /** Nothing: the vendor's last event closes the answer, and a stream cut before it is caught by the core's stream guard. */
  end(): Ev[] {
    return [];
  }

  push(e: wire.StreamEvent): Ev[] {
    switch (e.type) {
      case "message_start": {
        if (this.started) return [];
        this.started = true;
        const m = e.message ?? {};
        this.usage = usageOf(m.usage);
        return [ev({ case: "start", value: { id: m.id ?? "", model: this.ctx.model, modelVersion: m.model ?? "", usage: this.usage, channel: this.ctx.channel } })];
      }
      case "content_block_start":
        return this.blockStart(e.index ?? -1, e.content_block ?? { type: "text" });
      case "content_block_delta":
        return this.blockDelta(e.index ?? -1, e.delta ?? {});
      case "content_block_stop":
        return this.blockStop(e.index ?? -1);
      case "message_delta": {
        const out: Ev[] = this.flushSearch();
        const d = e.delta ?? {};
        if (d.stop_reason && !this.finished) {
          this.finished = true;
          const fin = finishOf(d.stop_reason);
          out.push(ev({ case: "finish", value: { candidateIndex: 0, finishReason: fin.finishReason, vendorFinishReason: fin.vendorFinishReason, stopSequence: d.stop_sequence ?? "" } }));
        }
        if (e.usage) {
          const u = usageOf(e.usage);
          const prev = this.usage;
          // Fields a delta leaves out keep their value from message_start (usage is cumulative).
          if (prev) {
            if (e.usage.input_tokens == null) u.inputTokens = prev.inputTokens;
            if (e.usage.cache_read_input_tokens == null) u.cacheReadTokens = prev.cacheReadTokens;
            if (e.usage.cache_creation_input_tokens == null) u.cacheWriteTokens = prev.cacheWriteTokens;
            if (e.usage.output_tokens_details?.thinking_tokens == null) u.thinkingTokens = prev.thinkingTokens;
          }
          this.usage = u;
          out.push(ev({ case: "usage", value: u }));
        }
        return out;
      }
      case "message_stop":
        this.stopped = true;
        return [];
      case "ping":
        return [ev({ case: "ping", value: {} })];
      case "error":
        throw streamError(e);
      default:
        return [];
    }
  }

  /** The held web search, as a part of its own (none when no search is held). */
  private flushSearch(result?: wire.ResponseBlock): Ev[] {
    const use = this.search;
    if (!use) return [];
    this.search = undefined;
    const index = this.next++;
    return [ev({ case: "partStart", value: { candidateIndex: 0, index, part: webSearchPart(use, result) } }), ev({ case: "partStop", value: { candidateIndex: 0, index } })];
  }

  private blockStart(i: number, cb: wire.ResponseBlock): Ev[] {
    if (this.blocks.has(i)) throw protocolError(VENDOR, `block ${i} started twice`);
    // A held search whose result does not come next goes on without one.
    const out: Ev[] = this.search && !isResultOf(cb, this.search) ? this.flushSearch() : [];
    if (!KNOWN.has(cb.type)) {
      this.blocks.set(i, { index: -1, type: cb.type, sawArgs: false, raw: { ...cb }, rawJson: "" });
      return out;
    }
    const index = this.next++;
    const part = partOf(cb, this.ctx.customTools);
    const b: Block = { index, type: cb.type, sawArgs: false, rawJson: "", custom: part.kind.case === "toolCall" && part.kind.value.input !== undefined };
    this.blocks.set(i, b);
    out.push(ev({ case: "partStart", value: { candidateIndex: 0, index, part: partSkeleton(part) } }));
    if (cb.type === "text" && cb.text) out.push(this.delta(index, { case: "text", value: cb.text }));
    if (cb.type === "thinking" && cb.thinking) out.push(this.delta(index, { case: "thinking", value: cb.thinking }));
    if (cb.type === "thinking" && cb.signature) out.push(this.delta(index, { case: "signature", value: { issuer: VENDOR, value: cb.signature } }));
    if (cb.type === "tool_use" && cb.input && typeof cb.input === "object" && Object.keys(cb.input).length) b.startInput = cb.input;
    return out;
  }

  private blockDelta(i: number, d: NonNullable<wire.StreamEvent["delta"]>): Ev[] {
    const b = this.blocks.get(i);
    if (!b) throw protocolError(VENDOR, `delta for block ${i} that was not started`);
    if (b.raw || b.custom) {
      if (d.type === "input_json_delta" && d.partial_json) {
        b.rawJson += d.partial_json;
        b.sawArgs = true;
      }
      return [];
    }
    switch (d.type) {
      case "text_delta":
        return d.text ? [this.delta(b.index, { case: "text", value: d.text })] : [];
      case "thinking_delta":
        return d.thinking ? [this.delta(b.index, { case: "thinking", value: d.thinking })] : [];
      case "signature_delta":
        return d.signature ? [this.delta(b.index, { case: "signature", value: { issuer: VENDOR, value: d.signature } })] : [];
      case "input_json_delta":
        if (!d.partial_json) return [];
        b.sawArgs = true;
        return [this.delta(b.index, { case: "argumentsJson", value: d.partial_json })];
      case "citations_delta":
        return d.citation ? [this.delta(b.index, { case: "citation", value: d.citation as JsonObject })] : [];
      default:
        return [];
    }
  }

  private blockStop(i: number): Ev[] {
    const b = this.blocks.get(i);
    if (!b) throw protocolError(VENDOR, `stop for block ${i} that was not started`);
    this.blocks.delete(i);
    if (b.raw) {
      if (b.rawJson) b.raw.input = argsObject(b.rawJson);
      if (isWebSearchUse(b.raw)) {
        const held = this.flushSearch();
        this.search = b.raw;
        return held;
      }
      if (this.search && isResultOf(b.raw, this.search)) return this.flushSearch(b.raw);
      const index = this.next++;
      return [ev({ case: "partStart", value: { candidateIndex: 0, index, part: partOf(b.raw) } }), ev({ case: "partStop", value: { candidateIndex: 0, index } })];
    }
    const out: Ev[] = [];
    if (b.custom) {
      const input = customInputOf(b.sawArgs ? argsObject(b.rawJson) : (b.startInput as JsonObject | undefined));
      if (input) out.push(this.delta(b.index, { case: "input", value: input }));
    } else if (b.type === "tool_use" && !b.sawArgs && b.startInput) out.push(this.delta(b.index, { case: "argumentsJson", value: JSON.stringify(b.startInput) }));
    out.push(ev({ case: "partStop", value: { candidateIndex: 0, index: b.index } }));
    return out;
  }
}
