// Responses stream events (notes B.6) -> neutral stream events, in the shape
// the Chat Completions provider's stream has: one candidate, parts 0, 1, 2...
// in the order they begin, a part closing when the next begins.
// A reasoning item is one thinking part (its summaries joined by a blank line),
// opened at its first text and signed at output_item.done with its
// encrypted_content; each output_text or refusal content is a text part (url
// citations as citation deltas, other annotations on an empty text part of
// their own); each function or custom tool call a tool call part; a web search
// call, and any other item, arrives whole at its output_item.done. Text an
// upstream sent only in a `.done` event (no deltas) is sent then.
// response.completed / .incomplete finish the candidate with the usage;
// response.failed and the flat `error` event end the stream with the error.
import { clone, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import type { StreamTranslator } from "../../lib/stream-translator.js";
import { PartDeltaSchema, PartSchema, StreamGenerateResponseSchema, type Part, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { protocolError } from "../shared/http-errors.js";
import { streamError } from "./errors.js";
import { VENDOR } from "./request.js";
import { openaiLogprobs } from "../shared/openai-logprobs.js";
import { citationOf, finishOf, itemParts, reasoningText, refusalPart, usageOf, type ResponseContext } from "./response.js";
import type * as wire from "./wire.js";

type Ev = StreamGenerateResponse;
type EvInit = MessageInitShape<typeof StreamGenerateResponseSchema>["event"];
type DeltaInit = MessageInitShape<typeof PartDeltaSchema>["delta"];
const ev = (e: EvInit): Ev => create(StreamGenerateResponseSchema, { event: e });

interface Open {
  key: string;
  index: number;
}

/** One output_text or refusal content of a message. */
interface ContentState {
  refusal: boolean;
  text: string;
  /** Annotations other than url citations, sent on a part of their own after the text. */
  others: JsonObject[];
}

/** One output item, by its output_index. */
interface ItemState {
  type: string;
  /** Reasoning: its thinking part was opened; text went out; a blank line is due before the next summary. */
  opened: boolean;
  emitted: boolean;
  separator: boolean;
  /** Tool calls: arguments or input went out. */
  args: boolean;
  custom: boolean;
  contents: Map<number, ContentState>;
}

export class ResponsesStreamTranslator implements StreamTranslator<wire.StreamEvent, Ev> {
  private started = false;
  private finished = false;
  private next = 0;
  private open: Open | undefined;
  private readonly items = new Map<number, ItemState>();
  private hasTool = false;
  private refusal = false;
  private text = false;
  private readonly logprobs: wire.TokenLogprob[] = [];

  constructor(private readonly ctx: ResponseContext) {}

  push(e: wire.StreamEvent): Ev[] {
    if (this.finished) return [];
    const out: Ev[] = [];
    switch (e.type) {
      case "error":
        throw streamError({ code: e.code ?? null, message: e.message ?? null, param: e.param ?? null });
      case "response.failed":
        throw streamError(e.response?.error ?? undefined);
      case "response.created":
      case "response.in_progress":
      case "response.queued":
        this.begin(out, e.response);
        return out;
      case "response.completed":
      case "response.incomplete":
        this.begin(out, e.response);
        this.finish(out, e.response ?? {});
        return out;
    }
    if (typeof e.output_index !== "number") return out;
    this.begin(out, undefined);
    const oi = e.output_index;
    switch (e.type) {
      case "response.output_item.added":
        this.added(out, oi, e.item ?? {});
        break;
      case "response.output_item.done":
        this.done(out, oi, e.item ?? {});
        break;
      case "response.content_part.added":
        this.content(out, oi, e.content_index ?? 0, e.part?.type === "refusal");
        break;
      case "response.output_text.delta":
      case "response.refusal.delta":
        if (e.logprobs?.length) this.logprobs.push(...e.logprobs);
        this.textDelta(out, oi, e.content_index ?? 0, e.type === "response.refusal.delta", e.delta ?? "");
        break;
      case "response.output_text.done":
      case "response.refusal.done": {
        const refusal = e.type === "response.refusal.done";
        const whole = refusal ? ((e as { refusal?: string }).refusal ?? "") : (e.text ?? "");
        const c = this.items.get(oi)?.contents.get(e.content_index ?? 0);
        if (!c?.text && whole) this.textDelta(out, oi, e.content_index ?? 0, refusal, whole);
        break;
      }
      case "response.output_text.annotation.added":
        this.annotation(out, oi, e.content_index ?? 0, e.annotation ?? {});
        break;
      case "response.content_part.done":
        this.endContent(out, oi, e.content_index ?? 0);
        break;
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta":
        this.callDelta(out, oi, e.delta ?? "");
        break;
      case "response.function_call_arguments.done":
      case "response.custom_tool_call_input.done": {
        const it = this.items.get(oi);
        const whole = e.type === "response.function_call_arguments.done" ? (e.arguments ?? "") : (e.input ?? "");
        if (it && !it.args && whole) this.callDelta(out, oi, whole);
        break;
      }
      case "response.reasoning_summary_part.added": {
        const it = this.item(oi, "reasoning");
        if (it.emitted) it.separator = true;
        break;
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        this.thought(out, oi, e.delta ?? "");
        break;
    }
    return out;
  }

  end(): Ev[] {
    // No [DONE] in this wire: a stream without response.completed is left unfinished (the stream guard reports it).
    return [];
  }

  // ------------------------------------------------------------ plumbing

  private begin(out: Ev[], r: wire.Response | undefined): void {
    if (this.started) return;
    this.started = true;
    out.push(ev({ case: "start", value: { id: r?.id ?? "", model: this.ctx.model, modelVersion: r?.model ?? "", channel: this.ctx.channel, usage: {} } }));
  }

  private item(oi: number, type: string): ItemState {
    let it = this.items.get(oi);
    if (!it) {
      it = { type, opened: false, emitted: false, separator: false, args: false, custom: type === "custom_tool_call", contents: new Map() };
      this.items.set(oi, it);
    }
    return it;
  }

  private close(out: Ev[]): void {
    const o = this.open;
    if (!o) return;
    this.open = undefined;
    out.push(ev({ case: "partStop", value: { candidateIndex: 0, index: o.index } }));
  }

  /** Opens a part under `key` (closing the open one) and returns its index. */
  private start(out: Ev[], key: string, part: MessageInitShape<typeof PartSchema> | Part): number {
    this.close(out);
    const index = this.next++;
    this.open = { key, index };
    out.push(ev({ case: "partStart", value: { candidateIndex: 0, index, part } }));
    return index;
  }

  private delta(out: Ev[], key: string, delta: DeltaInit): void {
    if (this.open?.key !== key) throw protocolError(VENDOR, `${key} continued after another part began`);
    out.push(ev({ case: "partDelta", value: { candidateIndex: 0, index: this.open.index, delta } }));
  }

  /** A part that arrives whole: its start and its stop. */
  private whole(out: Ev[], part: Part): void {
    const index = this.start(out, `whole${this.next}`, part);
    this.open = undefined;
    out.push(ev({ case: "partStop", value: { candidateIndex: 0, index } }));
  }

  // ------------------------------------------------------------ items

  private added(out: Ev[], oi: number, item: wire.OutputItem): void {
    const it = this.item(oi, item.type ?? "");
    if (item.type !== "function_call" && item.type !== "custom_tool_call") return;
    this.hasTool = true;
    it.opened = true;
    const id = item.call_id || item.id || this.ctx.newId();
    // A custom tool's call: its input grows by input deltas ("" marks it as one).
    const call = it.custom ? { id, name: item.name ?? "", input: "" } : { id, name: item.name ?? "" };
    this.start(out, `item${oi}`, { kind: { case: "toolCall", value: call } });
  }

  private callDelta(out: Ev[], oi: number, d: string): void {
    const it = this.items.get(oi);
    if (!it?.opened || !d) return;
    it.args = true;
    this.delta(out, `item${oi}`, it.custom ? { case: "input", value: d } : { case: "argumentsJson", value: d });
  }

  private thought(out: Ev[], oi: number, d: string): void {
    if (!d) return;
    const it = this.item(oi, "reasoning");
    if (!it.opened) {
      it.opened = true;
      this.start(out, `item${oi}`, { kind: { case: "thinking", value: {} } });
    }
    this.delta(out, `item${oi}`, { case: "thinking", value: (it.separator ? "\n\n" : "") + d });
    it.separator = false;
    it.emitted = true;
  }

  private done(out: Ev[], oi: number, item: wire.OutputItem): void {
    const it = this.item(oi, item.type ?? "");
    switch (item.type) {
      case "reasoning": {
        if (!it.emitted) this.thought(out, oi, reasoningText(item));
        if (item.encrypted_content) {
          if (!it.opened) this.openEmptyThought(out, oi, it);
          this.delta(out, `item${oi}`, { case: "signature", value: { issuer: VENDOR, value: item.encrypted_content } });
        }
        if (this.open?.key === `item${oi}`) this.close(out);
        return;
      }
      case "function_call":
      case "custom_tool_call":
        if (!it.opened) this.added(out, oi, item);
        if (!it.args) this.callDelta(out, oi, (it.custom ? item.input : item.arguments) ?? "");
        if (this.open?.key === `item${oi}`) this.close(out);
        return;
      case "message":
        (item.content ?? []).forEach((c, ci) => {
          const st = it.contents.get(ci);
          // Content the upstream never streamed: sent whole now.
          if (!st && (c.type === "output_text" || c.type === "refusal")) for (const p of itemParts({ type: "message", content: [c] }, this.ctx.newId)) this.wholeContent(out, p);
        });
        if (this.open?.key.startsWith(`item${oi}:`)) this.close(out);
        return;
      default:
        // Web search calls and items the neutral model does not model, whole.
        for (const p of itemParts(item, this.ctx.newId)) this.whole(out, p);
    }
  }

  private openEmptyThought(out: Ev[], oi: number, it: ItemState): void {
    it.opened = true;
    this.start(out, `item${oi}`, { kind: { case: "thinking", value: {} } });
  }

  // ------------------------------------------------------------ message content

  private content(out: Ev[], oi: number, ci: number, refusal: boolean): ContentState {
    const it = this.item(oi, "message");
    let c = it.contents.get(ci);
    if (c) return c;
    c = { refusal, text: "", others: [] };
    it.contents.set(ci, c);
    if (refusal) this.refusal = true;
    this.start(out, `item${oi}:${ci}`, refusal ? refusalPart("") : { kind: { case: "text", value: {} } });
    return c;
  }

  private textDelta(out: Ev[], oi: number, ci: number, refusal: boolean, d: string): void {
    const c = this.content(out, oi, ci, refusal);
    if (!d) return;
    if (!c.refusal) this.text = true;
    c.text += d;
    this.delta(out, `item${oi}:${ci}`, { case: "text", value: d });
  }

  private annotation(out: Ev[], oi: number, ci: number, a: wire.Annotation): void {
    const c = this.content(out, oi, ci, false);
    const cite = citationOf(a, c.text);
    if (cite && this.open?.key === `item${oi}:${ci}`) this.delta(out, `item${oi}:${ci}`, { case: "citation", value: cite });
    else c.others.push(a as JsonObject);
  }

  private endContent(out: Ev[], oi: number, ci: number): void {
    const c = this.items.get(oi)?.contents.get(ci);
    if (this.open?.key === `item${oi}:${ci}`) this.close(out);
    if (!c?.others.length) return;
    // Annotations with no neutral form ride on an empty text part of their own: the text they annotate went out already.
    this.whole(out, create(PartSchema, { kind: { case: "text", value: {} }, vendorExtras: { [VENDOR]: { annotations: c.others } } }));
    c.others = [];
  }

  /** A message content that came only whole: start, its text, stop. */
  private wholeContent(out: Ev[], p: Part): void {
    if (p.kind.case !== "text") return;
    const refusal = p.vendorExtras[VENDOR]?.type === "refusal";
    if (refusal) this.refusal = true;
    else if (p.kind.value.text) this.text = true;
    const key = `whole${this.next}`;
    const text = p.kind.value.text;
    const skeleton = clone(PartSchema, p);
    if (skeleton.kind.case === "text") {
      skeleton.kind.value.text = "";
      skeleton.kind.value.citations = [];
    }
    this.start(out, key, skeleton);
    if (text) this.delta(out, key, { case: "text", value: text });
    if (p.kind.value.citations.length) for (const c of p.kind.value.citations) this.delta(out, key, { case: "citation", value: c });
    this.close(out);
  }

  // ------------------------------------------------------------ the end

  private finish(out: Ev[], r: wire.Response): void {
    this.close(out);
    this.finished = true;
    const fin = finishOf(r, this.hasTool, this.refusal && !this.text);
    const logprobs = openaiLogprobs(this.logprobs);
    out.push(ev({ case: "finish", value: { candidateIndex: 0, ...fin, ...(logprobs ? { logprobs } : {}) } }));
    if (r.usage) out.push(ev({ case: "usage", value: usageOf(r.usage) }));
  }
}
