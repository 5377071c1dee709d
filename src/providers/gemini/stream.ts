// Gemini stream chunks (each a whole GenerateContentResponse holding the next
// pieces) -> neutral stream events: a state machine per candidate. Text and
// thought pieces extend the open part of their kind; a function call, media or
// code part is whole in one chunk; a thoughtSignature is a signature delta on
// the part it came with (an empty text carrying only a signature lands on the
// open part). A call of an emulated custom tool arrives whole too: its input
// goes out as one input delta. Grounding by Google Search (read once per
// candidate, usually on its last chunk) puts citations on the open text and
// follows as a WebSearchCall part. The chunk with a finishReason finishes its
// candidate; the body ending before that is left to the stream guard to report.
import { type MessageInitShape } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import type { StreamTranslator } from "../../lib/stream-translator.js";
import { PartDeltaSchema, StreamGenerateResponseSchema, type Part, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { partSkeleton } from "../../core/chat/stream.js";
import { streamError } from "./errors.js";
import { VENDOR } from "./request.js";
import { finishOf, logprobsOf, partOf, promptFeedbackOf, safetyRatingsOf, usageOf } from "./response.js";
import { groundingCitations, groundingPart, isWebGrounding } from "./web-search.js";
import type * as wire from "./wire.js";

type Ev = StreamGenerateResponse;
type EvInit = MessageInitShape<typeof StreamGenerateResponseSchema>["event"];
type DeltaInit = MessageInitShape<typeof PartDeltaSchema>["delta"];
const ev = (e: EvInit): Ev => create(StreamGenerateResponseSchema, { event: e });

interface CandState {
  next: number;
  open?: { kind: "text" | "thinking"; index: number; signed: boolean };
  calls: number;
  finished: boolean;
  /** Its web search went out (grounding metadata is read once). */
  grounded: boolean;
}

export class GeminiStreamTranslator implements StreamTranslator<wire.GenerateContentResponse, Ev> {
  private started = false;
  private cands = new Map<number, CandState>();
  private feedbackSent = false;

  constructor(private readonly ctx: { model: string; channel: string; newId: () => string; singleCall?: boolean; customTools?: ReadonlySet<string> }) {}

  private cand(i: number): CandState {
    let c = this.cands.get(i);
    if (!c) {
      c = { next: 0, calls: 0, finished: false, grounded: false };
      this.cands.set(i, c);
    }
    return c;
  }

  private close(ci: number, c: CandState): Ev[] {
    if (!c.open) return [];
    const index = c.open.index;
    c.open = undefined;
    return [ev({ case: "partStop", value: { candidateIndex: ci, index } })];
  }

  private delta(ci: number, index: number, delta: DeltaInit): Ev {
    return ev({ case: "partDelta", value: { candidateIndex: ci, index, delta } });
  }

  private signature(ci: number, index: number, value: string): Ev {
    return this.delta(ci, index, { case: "signature", value: { issuer: VENDOR, value } });
  }

  /** A part that arrives whole: start, its growing content, its signature, stop. */
  private whole(ci: number, c: CandState, p: Part): Ev[] {
    const out = this.close(ci, c);
    const index = c.next++;
    out.push(ev({ case: "partStart", value: { candidateIndex: ci, index, part: partSkeleton(p) } }));
    if (p.kind.case === "toolCall" && p.kind.value.input !== undefined) {
      if (p.kind.value.input) out.push(this.delta(ci, index, { case: "input", value: p.kind.value.input }));
    } else if (p.kind.case === "toolCall") out.push(this.delta(ci, index, { case: "argumentsJson", value: JSON.stringify(p.kind.value.arguments ?? {}) }));
    if (p.signature) out.push(this.signature(ci, index, p.signature.value));
    out.push(ev({ case: "partStop", value: { candidateIndex: ci, index } }));
    return out;
  }

  private piece(ci: number, c: CandState, wp: wire.Part): Ev[] {
    const sig = wp.thoughtSignature;
    const isText = wp.text !== undefined && !wp.functionCall && !wp.inlineData && !wp.fileData && !wp.executableCode && !wp.codeExecutionResult && !wp.functionResponse;
    if (isText) {
      const kind = wp.thought ? "thinking" : "text";
      const text = wp.text ?? "";
      const out: Ev[] = [];
      // A signature-only empty text belongs to the part before it.
      if (!text && !wp.thought && sig && c.open && !c.open.signed) {
        c.open.signed = true;
        return [this.signature(ci, c.open.index, sig)];
      }
      if (!text && !sig) return [];
      if (kind === "text" && sig) {
        const pre = this.signOpenThinking(ci, c, sig);
        if (pre.length) return [...pre, ...(text ? this.piece(ci, c, { text }) : [])];
      }
      if (c.open?.kind !== kind || (sig && c.open.signed)) {
        out.push(...this.close(ci, c));
        const index = c.next++;
        c.open = { kind, index, signed: false };
        out.push(ev({ case: "partStart", value: { candidateIndex: ci, index, part: { kind: kind === "text" ? { case: "text", value: {} } : { case: "thinking", value: {} } } } }));
      }
      const open = c.open!;
      if (text) out.push(this.delta(ci, open.index, kind === "text" ? { case: "text", value: text } : { case: "thinking", value: text }));
      if (sig) {
        open.signed = true;
        out.push(this.signature(ci, open.index, sig));
      }
      return out;
    }
    if (wp.functionCall) {
      if (this.ctx.singleCall && c.calls > 0) return [];
      c.calls++;
    }
    const p = partOf(wp, this.ctx.newId, this.ctx.customTools);
    if (!p) return [];
    // The thinking's signature stays with the thinking (see response.ts partsOf).
    const pre = this.signOpenThinking(ci, c, p.signature?.value);
    if (pre.length) p.signature = undefined;
    return [...pre, ...this.whole(ci, c, p)];
  }

  /** A web search the grounding tells of: its citations on the open text (the answer so far), then the search as a part of its own. */
  private grounding(ci: number, c: CandState, gm: Record<string, unknown>): Ev[] {
    c.grounded = true;
    const out: Ev[] = [];
    if (c.open?.kind === "text") for (const cite of groundingCitations(gm)) out.push(this.delta(ci, c.open.index, { case: "citation", value: cite }));
    out.push(...this.whole(ci, c, groundingPart(gm, this.ctx.newId())));
    return out;
  }

  /** Signs the open, unsigned thinking part with a signature that arrived on the part after it. */
  private signOpenThinking(ci: number, c: CandState, sig: string | undefined): Ev[] {
    if (!sig || c.open?.kind !== "thinking" || c.open.signed) return [];
    c.open.signed = true;
    return [this.signature(ci, c.open.index, sig)];
  }

  /** Nothing: the vendor's last event closes the answer, and a stream cut before it is caught by the core's stream guard. */
  end(): Ev[] {
    return [];
  }

  push(chunk: wire.GenerateContentResponse): Ev[] {
    if (chunk.error) throw streamError(chunk.error);
    const out: Ev[] = [];
    if (!this.started) {
      this.started = true;
      const u = chunk.usageMetadata ? usageOf({ promptTokenCount: chunk.usageMetadata.promptTokenCount, cachedContentTokenCount: chunk.usageMetadata.cachedContentTokenCount }) : undefined;
      out.push(ev({ case: "start", value: { id: chunk.responseId ?? "", model: this.ctx.model, modelVersion: chunk.modelVersion ?? "", channel: this.ctx.channel, ...(u ? { usage: u } : {}) } }));
    }
    const pf = promptFeedbackOf(chunk.promptFeedback);
    if (pf && !this.feedbackSent && (pf.blockReason || pf.safetyRatings.length)) {
      this.feedbackSent = true;
      out.push(ev({ case: "promptFeedback", value: pf }));
    }
    for (const [i, cand] of (chunk.candidates ?? []).entries()) {
      const ci = cand.index ?? i;
      const c = this.cand(ci);
      if (c.finished) continue;
      for (const wp of cand.content?.parts ?? []) out.push(...this.piece(ci, c, wp));
      if (!c.grounded && isWebGrounding(cand.groundingMetadata)) out.push(...this.grounding(ci, c, cand.groundingMetadata));
      if (cand.finishReason) {
        out.push(...this.close(ci, c));
        c.finished = true;
        const fin = finishOf(cand.finishReason, c.calls > 0);
        const logprobs = logprobsOf(cand.logprobsResult);
        out.push(ev({ case: "finish", value: { candidateIndex: ci, ...fin, safetyRatings: safetyRatingsOf(cand.safetyRatings), ...(logprobs ? { logprobs } : {}) } }));
      }
    }
    if (chunk.usageMetadata) out.push(ev({ case: "usage", value: usageOf(chunk.usageMetadata) }));
    return out;
  }
}
