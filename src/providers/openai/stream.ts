// OpenAI chat.completion.chunk events -> neutral stream events: a state
// machine per choice. Reasoning, text and each tool call become parts 0, 1,
// 2... in the order they begin; a part closes when another kind starts. Tool
// call argument fragments pass through as they come. `[DONE]` without a
// finish_reason finishes open choices (lenient servers); a body that ends with
// neither is left unfinished, which the stream guard reports as truncated.
// A custom tool's call (type "custom") is a tool call part with free-text
// input: its `custom.input` fragments pass through as input deltas.
// For a Chat Completions client, as in response.ts: a refusal is a text part
// of its own standing in for OpenAI's; annotations arrive on an empty text part
// of their own.
import { type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import type { StreamTranslator } from "../../lib/stream-translator.js";
import { PartDeltaSchema, StreamGenerateResponseSchema, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { protocolError } from "../shared/http-errors.js";
import { streamError } from "./errors.js";
import { VENDOR } from "./request.js";
import { openaiLogprobs } from "../shared/openai-logprobs.js";
import { argumentsText, finishOf, refusalPart, usageOf } from "./response.js";
import type * as wire from "./wire.js";

type Ev = StreamGenerateResponse;
type EvInit = MessageInitShape<typeof StreamGenerateResponseSchema>["event"];
type DeltaInit = MessageInitShape<typeof PartDeltaSchema>["delta"];
const ev = (e: EvInit): Ev => create(StreamGenerateResponseSchema, { event: e });

type Kind = "thinking" | "text" | "refusal";

interface ChoiceState {
  next: number;
  /** The open part; `custom` for a custom tool's call. */
  open?: { kind: Kind | "tool"; index: number; tool?: number; custom?: boolean };
  /** Part index of each tool call, by its upstream index. */
  tools: Map<number, number>;
  hasTool: boolean;
  refusal: boolean;
  text: boolean;
  finished: boolean;
  logprobs: wire.TokenLogprob[];
}

export class OpenAIStreamTranslator implements StreamTranslator<wire.ChatResponse, Ev> {
  private started = false;
  private choices = new Map<number, ChoiceState>();

  constructor(private readonly ctx: { model: string; channel: string; newId: () => string; stops: string[] }) {}

  private choice(i: number): ChoiceState {
    let c = this.choices.get(i);
    if (!c) {
      c = { next: 0, tools: new Map(), hasTool: false, refusal: false, text: false, finished: false, logprobs: [] };
      this.choices.set(i, c);
    }
    return c;
  }

  private close(ci: number, c: ChoiceState): Ev[] {
    const open = c.open;
    if (!open) return [];
    c.open = undefined;
    return [ev({ case: "partStop", value: { candidateIndex: ci, index: open.index } })];
  }

  private delta(ci: number, index: number, delta: DeltaInit): Ev {
    return ev({ case: "partDelta", value: { candidateIndex: ci, index, delta } });
  }

  /** Opens a text, refusal or thinking part unless one of that kind is open. */
  private ensure(ci: number, c: ChoiceState, kind: Kind): Ev[] {
    if (c.open?.kind === kind) return [];
    const out = this.close(ci, c);
    const index = c.next++;
    c.open = { kind, index };
    const part = kind === "text" ? { kind: { case: "text" as const, value: {} } } : kind === "refusal" ? refusalPart("") : { kind: { case: "thinking" as const, value: {} } };
    out.push(ev({ case: "partStart", value: { candidateIndex: ci, index, part } }));
    return out;
  }

  /** Annotations (web search citations) on an empty text part of their own: the text they cite has gone out already. */
  private annotations(ci: number, c: ChoiceState, annotations: unknown[]): Ev[] {
    const out = this.close(ci, c);
    const index = c.next++;
    const part = { kind: { case: "text" as const, value: {} }, vendorExtras: { [VENDOR]: { annotations: annotations as JsonObject[] } } };
    out.push(ev({ case: "partStart", value: { candidateIndex: ci, index, part } }), ev({ case: "partStop", value: { candidateIndex: ci, index } }));
    return out;
  }

  push(chunk: wire.ChatResponse): Ev[] {
    if (chunk.error) throw streamError(chunk.error);
    const out: Ev[] = [];
    if (!this.started) {
      this.started = true;
      out.push(ev({ case: "start", value: { id: chunk.id ?? "", model: this.ctx.model, modelVersion: chunk.model ?? "", channel: this.ctx.channel, usage: {} } }));
    }
    for (const ch of chunk.choices ?? []) out.push(...this.choiceDelta(ch));
    if (chunk.usage) out.push(ev({ case: "usage", value: usageOf(chunk.usage) }));
    return out;
  }

  private choiceDelta(ch: wire.Choice): Ev[] {
    const ci = ch.index ?? 0;
    const c = this.choice(ci);
    if (c.finished) return [];
    const out: Ev[] = [];
    const d = ch.delta ?? {};
    if (ch.logprobs?.content) c.logprobs.push(...ch.logprobs.content);
    const reasoning = d.reasoning_content ?? d.reasoning;
    if (reasoning) {
      out.push(...this.ensure(ci, c, "thinking"));
      out.push(this.delta(ci, c.open!.index, { case: "thinking", value: reasoning }));
    }
    if (d.content) {
      c.text = true;
      out.push(...this.ensure(ci, c, "text"));
      out.push(this.delta(ci, c.open!.index, { case: "text", value: d.content }));
    }
    if (d.refusal) {
      c.refusal = true;
      out.push(...this.ensure(ci, c, "refusal"));
      out.push(this.delta(ci, c.open!.index, { case: "text", value: d.refusal }));
    }
    if (Array.isArray(d.annotations) && d.annotations.length) out.push(...this.annotations(ci, c, d.annotations));
    for (const [n, tc] of (d.tool_calls ?? []).entries()) {
      const ti = tc.index ?? n;
      const args = argumentsText(tc.function?.arguments);
      const input = tc.custom?.input ?? "";
      let index = c.tools.get(ti);
      if (index !== undefined) {
        if (c.open?.kind !== "tool" || c.open.tool !== ti) throw protocolError(VENDOR, `tool call ${ti} continued after another part began`);
      } else {
        out.push(...this.close(ci, c));
        index = c.next++;
        c.tools.set(ti, index);
        c.hasTool = true;
        const custom = tc.type === "custom";
        c.open = { kind: "tool", index, tool: ti, custom };
        const id = tc.id || this.ctx.newId();
        // A custom tool's call: its input grows by input deltas ("" marks it as one).
        const call = custom ? { id, name: tc.custom?.name ?? "", input: "" } : { id, name: tc.function?.name ?? "" };
        out.push(ev({ case: "partStart", value: { candidateIndex: ci, index, part: { kind: { case: "toolCall", value: call } } } }));
      }
      if (c.open!.custom) {
        if (input) out.push(this.delta(ci, index, { case: "input", value: input }));
      } else if (args) out.push(this.delta(ci, index, { case: "argumentsJson", value: args }));
    }
    if (ch.finish_reason) out.push(...this.finish(ci, c, ch));
    return out;
  }

  private finish(ci: number, c: ChoiceState, ch: Pick<wire.Choice, "finish_reason" | "stop_reason">): Ev[] {
    const out = this.close(ci, c);
    c.finished = true;
    const fin = finishOf(ch, c.hasTool, c.refusal && !c.text, this.ctx.stops);
    const logprobs = openaiLogprobs(c.logprobs);
    out.push(ev({ case: "finish", value: { candidateIndex: ci, ...fin, ...(logprobs ? { logprobs } : {}) } }));
    return out;
  }

  /** `data: [DONE]`: finishes choices the server left open. */
  end(): Ev[] {
    const out: Ev[] = [];
    for (const [ci, c] of this.choices) if (!c.finished) out.push(...this.finish(ci, c, { finish_reason: "stop" }));
    return out;
  }
}
