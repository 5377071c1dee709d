// The Chat Completions stream: a state machine that turns neutral
// StreamGenerateResponse events into chat.completion.chunk bodies, in the
// shape the openai SDK's stream() helper insists on (notes A.4/A.5/E.4):
// per choice, a first delta with role "assistant"; each tool call's first
// delta with index, id, type and name, then argument fragments (a custom
// tool's call: type "custom", `custom: {name, input: ""}`, then
// `custom: {input: <fragment>}` deltas, as OpenAI streams them); one
// finish_reason chunk; with stream_options.include_usage, `usage: null` on
// every chunk and a last chunk with `choices: []` and the usage. Every chunk
// has the stream's id, created and model. A failure after the 200 is one
// `{"error":{...}}` frame. Pure: ./sse.ts writes the frames.
import type { JsonObject } from "@bufbuild/protobuf";
import type { StreamTranslator } from "../../lib/stream-translator.js";
import type { CandidateFinish, Part, PartDelta, StreamGenerateResponse, Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { OpenAIErrorBody } from "../shared/openai-error.js";
import { toWireError, type ErrorContext } from "../shared/openai-error.js";
import {
  completionId,
  contentText,
  fingerprintOf,
  finishReasonOf,
  isRefusal,
  logprobsOf,
  messageFieldsOf,
  pushUrlCitation,
  usageOf,
  wholeToolCall,
  type ResponseOptions,
} from "./translate-response.js";
import type * as wire from "./wire.js";

export interface StreamOptions extends Omit<ResponseOptions, "id"> {
  /** The id when the upstream's is not a completion id. */
  freshId: string;
  includeUsage: boolean;
  errors?: ErrorContext;
  /** Told about every failure that became an error frame (for logs). */
  onError?: (err: unknown) => void;
}

/** A frame: a chunk's own part, an error after the 200, a keep-alive, or the end mark. */
export type Frame = { chunk: wire.ChunkBody } | { error: OpenAIErrorBody } | "ping" | "done";

type PartKind = "text" | "refusal" | "thinking" | "tool" | "custom" | "legacy" | "skip";

interface PartState {
  kind: PartKind;
  tool: number;
  /** Where the part's text begins in the content, and the citations of it seen so far (closed over its text when it stops). */
  start: number;
  cites?: JsonObject[];
}

interface ChoiceState {
  roleSent: boolean;
  parts: Map<number, PartState>;
  /** Length of the content sent so far (citations' offsets). */
  length: number;
  /** Other vendors' citations as url_citations, sent in one delta before the finish. */
  annotations: unknown[];
  nextTool: number;
  hasToolCall: boolean;
  refused: boolean;
  finished: boolean;
}

export class ChatStreamTranslator implements StreamTranslator<StreamGenerateResponse, Frame> {
  private started = false;
  private ended = false;
  private prefix = "";
  private suffixNull = "";
  private usage: Usage | undefined;
  private blocked = false;
  private readonly choices = new Map<number, ChoiceState>();

  constructor(private readonly o: StreamOptions) {}

  get done(): boolean {
    return this.ended;
  }

  /** The chunk's JSON: the stream's fixed fields, then its choices (and usage). */
  chunkText(c: wire.ChunkBody): string {
    const usage = !this.o.includeUsage ? "" : c.usage ? `,"usage":${JSON.stringify(c.usage)}` : this.suffixNull;
    return `${this.prefix}${JSON.stringify(c.choices)}${usage}}`;
  }

  /** The SSE text of a frame. */
  frameText(f: Frame): string {
    if (f === "done") return "data: [DONE]\n\n";
    if (f === "ping") return ": ping\n\n";
    return `data: ${"chunk" in f ? this.chunkText(f.chunk) : JSON.stringify(f.error)}\n\n`;
  }

  push(ev: StreamGenerateResponse): Frame[] {
    if (this.ended) return [];
    try {
      return this.step(ev);
    } catch (err) {
      return this.fail(err);
    }
  }

  /** Frames for a normal end of the neutral stream: open choices finished, the usage chunk when asked, [DONE]. */
  end(): Frame[] {
    if (this.ended) return [];
    if (!this.started) return this.fail(new Error("the stream ended before it started"));
    const out: Frame[] = [];
    for (const [ci, c] of this.choices) if (!c.finished) out.push(...this.finishChoice(ci, c, undefined));
    if (this.o.includeUsage) out.push({ chunk: { choices: [], usage: usageOf(this.usage) } });
    out.push("done");
    this.ended = true;
    return out;
  }

  /** The error frame for a failure after the 200; nothing once the stream is over. */
  fail(err: unknown): Frame[] {
    if (this.ended) return [];
    this.ended = true;
    this.o.onError?.(err);
    return [{ error: toWireError(err, this.o.errors).body }];
  }

  private choice(ci: number): ChoiceState {
    let c = this.choices.get(ci);
    if (!c) {
      c = { roleSent: false, parts: new Map(), length: 0, annotations: [], nextTool: 0, hasToolCall: false, refused: false, finished: false };
      this.choices.set(ci, c);
    }
    return c;
  }

  private chunk(index: number, delta: wire.ChunkDelta, finish: wire.FinishReason | null = null, logprobs: wire.ChoiceLogprobs | null = null): Frame {
    return { chunk: { choices: [{ index, delta, logprobs, finish_reason: finish }] } };
  }

  /** The choice's state, with its first (role) chunk when it has not gone out. */
  private open(ci: number, out: Frame[]): ChoiceState {
    const c = this.choice(ci);
    if (!c.roleSent) {
      c.roleSent = true;
      out.push(this.chunk(ci, { role: "assistant", content: "" }));
    }
    return c;
  }

  private step(ev: StreamGenerateResponse): Frame[] {
    const e = ev.event;
    if (!this.started) {
      if (e.case === "ping" || e.case === undefined) return [];
      if (e.case !== "start") throw new Error(`${e.case} before start`);
      this.started = true;
      if (e.value.usage) this.usage = e.value.usage;
      const id = completionId(e.value.id, this.o.freshId);
      const fp = fingerprintOf(e.value.channel, e.value.modelVersion);
      const tier = this.o.serviceTier ? `"service_tier":${JSON.stringify(this.o.serviceTier)},` : "";
      this.prefix = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${this.o.created},"model":${JSON.stringify(this.o.model)},${tier}"system_fingerprint":"${fp}","choices":`;
      this.suffixNull = `,"usage":null`;
      const out: Frame[] = [];
      this.open(0, out);
      return out;
    }
    switch (e.case) {
      case "partStart":
        return e.value.part ? this.startPart(e.value.candidateIndex, e.value.index, e.value.part) : [];
      case "partDelta":
        return this.delta(e.value.candidateIndex, e.value.index, e.value.delta);
      case "partStop": {
        const c = this.choices.get(e.value.candidateIndex);
        const part = c?.parts.get(e.value.index);
        if (c && part) this.closeCitations(c, part);
        return [];
      }
      case "finish": {
        const c = this.choice(e.value.candidateIndex);
        if (c.finished) return [];
        const out: Frame[] = [];
        this.open(e.value.candidateIndex, out);
        out.push(...this.finishChoice(e.value.candidateIndex, c, e.value));
        return out;
      }
      case "usage":
        this.usage = e.value;
        return [];
      case "promptFeedback":
        if (e.value.blockReason) this.blocked = true;
        return [];
      case "ping":
        return ["ping"];
      default:
        return [];
    }
  }

  private startPart(ci: number, index: number, p: Part): Frame[] {
    const out: Frame[] = [];
    const c = this.open(ci, out);
    const k = p.kind.case;
    const whole = wholeToolCall(p);
    if (k === "toolCall" || whole) {
      c.hasToolCall = true;
      const tool = c.nextTool++;
      const custom = k === "toolCall" && p.kind.value.input !== undefined;
      if (this.o.legacyFunctions) {
        // The functions API has one call: the first one, of a function.
        if (tool > 0 || k !== "toolCall" || custom) {
          c.parts.set(index, { kind: "skip", tool, start: 0 });
          return out;
        }
        c.parts.set(index, { kind: "legacy", tool, start: 0 });
        out.push(this.chunk(ci, { function_call: { name: p.kind.value.name, arguments: "" } }));
        return out;
      }
      c.parts.set(index, { kind: custom ? "custom" : "tool", tool, start: 0 });
      const first: JsonObject =
        k !== "toolCall"
          ? { index: tool, ...(whole as JsonObject) }
          : custom
            ? { index: tool, id: p.kind.value.id, type: "custom", custom: { name: p.kind.value.name, input: "" } }
            : { index: tool, id: p.kind.value.id, type: "function", function: { name: p.kind.value.name, arguments: "" } };
      out.push(this.chunk(ci, { tool_calls: [first] }));
      return out;
    }
    if (k === "text") {
      const refusal = isRefusal(p);
      if (refusal) c.refused = true;
      c.parts.set(index, { kind: refusal ? "refusal" : "text", tool: -1, start: c.length, cites: [...p.kind.value.citations] });
      // Message fields an OpenAI upstream sent beside the content (annotations, ...), as they came.
      const fields = messageFieldsOf(p);
      if (fields && Object.keys(fields).length) out.push(this.chunk(ci, { ...fields } as wire.ChunkDelta));
      return out;
    }
    if (k === "thinking") {
      c.parts.set(index, { kind: "thinking", tool: -1, start: 0 });
      return out;
    }
    // Code and its output arrive whole; media and other vendors' blocks have no place here.
    c.parts.set(index, { kind: "skip", tool: -1, start: 0 });
    const t = contentText(p);
    if (t) {
      c.length += t.length;
      out.push(this.chunk(ci, { content: t }));
    }
    return out;
  }

  private delta(ci: number, index: number, d: PartDelta["delta"]): Frame[] {
    const c = this.choices.get(ci);
    const part = c?.parts.get(index);
    if (!c || !part || !d.value) return [];
    switch (d.case) {
      case "text":
        if (part.kind === "text") {
          c.length += d.value.length;
          return [this.chunk(ci, { content: d.value })];
        }
        if (part.kind === "refusal") return [this.chunk(ci, { refusal: d.value })];
        return [];
      case "thinking":
        return part.kind === "thinking" ? [this.chunk(ci, { reasoning_content: d.value })] : [];
      case "argumentsJson":
        if (part.kind === "tool") return [this.chunk(ci, { tool_calls: [{ index: part.tool, function: { arguments: d.value } }] })];
        if (part.kind === "legacy") return [this.chunk(ci, { function_call: { arguments: d.value } })];
        return [];
      case "input":
        return part.kind === "custom" ? [this.chunk(ci, { tool_calls: [{ index: part.tool, custom: { input: d.value } }] })] : [];
      case "citation":
        part.cites?.push(d.value);
        return [];
      default:
        // Signatures have no place in this wire.
        return [];
    }
  }

  /** A text part's citations as url_citations over its whole text. */
  private closeCitations(c: ChoiceState, part: PartState): void {
    if (part.cites?.length) for (const cite of part.cites) pushUrlCitation(c.annotations, cite, part.start, c.length);
    part.cites = undefined;
  }

  private finishChoice(ci: number, c: ChoiceState, f: CandidateFinish | undefined): Frame[] {
    c.finished = true;
    const finish = f ?? { finishReason: 0, vendorFinishReason: "" };
    const reason = this.blocked && !c.parts.size ? "content_filter" : finishReasonOf(finish, { hasToolCall: c.hasToolCall, refused: c.refused, legacyFunctions: this.o.legacyFunctions });
    for (const part of c.parts.values()) this.closeCitations(c, part);
    // Every url_citation of the message in one delta (the SDK's stream helper keeps the last `annotations` it sees).
    const out: Frame[] = c.annotations.length ? [this.chunk(ci, { annotations: c.annotations } as wire.ChunkDelta)] : [];
    out.push(this.chunk(ci, {}, reason, logprobsOf(f?.logprobs)));
    return out;
  }
}
