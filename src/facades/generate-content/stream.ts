// Neutral stream events -> generate-content stream chunks. Pure state machine.
// Every chunk is a whole GenerateContentResponse: text and thought deltas go out
// as they come, a function call goes out whole when its part stops (Gemini does
// not stream arguments), and the last chunk carries finishReason and the final
// usageMetadata (and the groundingMetadata of the candidate's web searches).
// One chunk is held back so that the finish can be merged into the last
// content chunk.
import type { JsonObject } from "@bufbuild/protobuf";
import type { StreamTranslator } from "../../lib/stream-translator.js";
import type { CandidateFinish, Part, PromptFeedback, Signature, StreamGenerateResponse, Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { Code, coreError } from "../../core/errors.js";
import { callArguments } from "../../core/chat/tool-calls.js";
import type { ResponseOptions } from "./translate.js";
import { fromCoreFinish, fromCoreLogprobs, fromCorePart, fromCorePromptFeedback, fromCoreSafetyRatings, fromCoreUsage, promptOnlyUsage, type WirePart } from "./translate-response.js";
import { encodeHiddenThought, encodePartSignature } from "./thought-signature.js";
import { groundingOf } from "./web-search.js";

export type Chunk = JsonObject;

interface OpenPart {
  skeleton: Part;
  text: string;
  args: string;
  signature?: Signature;
  /** Whether any chunk of this part went out (text parts). */
  emitted: boolean;
  /** Whether this part carried the thinking's signature (which replaces its own). */
  tookThoughtSignature: boolean;
}

interface CandidateState {
  open: Map<number, OpenPart>;
  /** Wire signature of finished thoughts, waiting for the next non-thought part. */
  pendingSignature?: string;
  finish?: CandidateFinish;
  /** The candidate's web searches, for its last chunk's groundingMetadata. */
  searches: Part[];
}

export class GenerateContentStreamTranslator implements StreamTranslator<StreamGenerateResponse, Chunk> {
  private id = "";
  private modelVersion = "";
  private usage: Usage | undefined;
  private feedback: PromptFeedback | undefined;
  private readonly cands = new Map<number, CandidateState>();
  private held: Chunk | undefined;

  constructor(private readonly opts: ResponseOptions) {}

  /** Whether a chunk is ready (held back for the next push or end). */
  get hasOutput(): boolean {
    return this.held !== undefined;
  }

  private cand(i: number): CandidateState {
    let c = this.cands.get(i);
    if (!c) {
      c = { open: new Map(), searches: [] };
      this.cands.set(i, c);
    }
    return c;
  }

  private chunk(candidateIndex: number, parts: WirePart[]): Chunk {
    const usage = promptOnlyUsage(this.usage);
    return {
      candidates: [{ content: { parts, role: "model" }, index: candidateIndex }],
      ...(usage ? { usageMetadata: usage } : {}),
      modelVersion: this.modelVersion,
      responseId: this.id,
    } as Chunk;
  }

  /** Queues a chunk; returns the previously held one, which can now go out. */
  private emit(candidateIndex: number, parts: WirePart[]): Chunk[] {
    const prev = this.held;
    this.held = this.chunk(candidateIndex, parts);
    return prev ? [prev] : [];
  }

  /** A non-thought part goes out, taking any waiting thought signature in place of its own. */
  private emitPart(ci: number, wp: WirePart, op: OpenPart | undefined, own?: Signature): Chunk[] {
    const c = this.cand(ci);
    if (c.pendingSignature) {
      wp.thoughtSignature = c.pendingSignature;
      c.pendingSignature = undefined;
      if (op) op.tookThoughtSignature = true;
    } else if (own && !op?.tookThoughtSignature) wp.thoughtSignature = encodePartSignature(own);
    return this.emit(ci, [wp]);
  }

  push(e: StreamGenerateResponse): Chunk[] {
    const k = e.event;
    switch (k.case) {
      case "start":
        this.id = k.value.id;
        this.modelVersion = k.value.modelVersion || k.value.model;
        if (k.value.usage) this.usage = k.value.usage;
        return [];
      case "partStart": {
        const skeleton = k.value.part;
        if (!skeleton) return [];
        const op: OpenPart = { skeleton, text: "", args: "", emitted: false, tookThoughtSignature: false };
        this.cand(k.value.candidateIndex).open.set(k.value.index, op);
        const kind = skeleton.kind.case;
        if (kind === "webSearchCall") {
          // A search is no part here: it becomes the groundingMetadata of the candidate's last chunk.
          this.cand(k.value.candidateIndex).searches.push(skeleton);
          return [];
        }
        if (kind !== "text" && kind !== "thinking" && kind !== "toolCall") {
          // Media and code parts arrive whole in part_start.
          const wp = fromCorePart(skeleton);
          op.emitted = true;
          return wp ? this.emitPart(k.value.candidateIndex, wp, op, skeleton.signature) : [];
        }
        return [];
      }
      case "partDelta": {
        const ci = k.value.candidateIndex;
        const op = this.cand(ci).open.get(k.value.index);
        if (!op) return [];
        const d = k.value.delta;
        if (d.case === "signature") {
          op.signature = d.value;
          return [];
        }
        if (d.case === "argumentsJson") {
          op.args += d.value;
          return [];
        }
        if (d.case === "input") {
          // A custom tool's call: its free-text input, sent whole as args {"input": text} when it stops.
          op.text += d.value;
          return [];
        }
        if (d.case === "thinking") {
          op.text += d.value;
          return this.opts.includeThoughts && d.value ? this.emit(ci, [{ text: d.value, thought: true }]) : [];
        }
        if (d.case === "text") {
          if (!d.value) return [];
          op.emitted = true;
          return this.emitPart(ci, { text: d.value }, op);
        }
        return [];
      }
      case "partStop":
        return this.stopPart(k.value.candidateIndex, k.value.index);
      case "finish":
        this.cand(k.value.candidateIndex).finish = k.value;
        return [];
      case "usage":
        this.usage = k.value;
        return [];
      case "promptFeedback":
        this.feedback = k.value;
        return [];
      default:
        return [];
    }
  }

  private stopPart(ci: number, index: number): Chunk[] {
    const c = this.cand(ci);
    const op = c.open.get(index);
    if (!op) return [];
    c.open.delete(index);
    const kind = op.skeleton.kind;
    if (kind.case === "thinking") {
      if (op.signature) c.pendingSignature = this.opts.includeThoughts ? encodePartSignature(op.signature) : encodeHiddenThought(op.text, op.signature);
      return [];
    }
    if (kind.case === "toolCall" && kind.value.input !== undefined) {
      const wp: WirePart = { functionCall: functionCallOf(kind.value.id, kind.value.name, callArguments({ input: op.text })) };
      return this.emitPart(ci, wp, op, op.signature);
    }
    if (kind.case === "toolCall") {
      let args: JsonObject;
      try {
        args = op.args ? (JSON.parse(op.args) as JsonObject) : {};
      } catch {
        throw coreError(Code.Internal, "the model produced malformed function call arguments", { reason: "malformed_tool_call" });
      }
      const wp: WirePart = { functionCall: functionCallOf(kind.value.id, kind.value.name, args) };
      return this.emitPart(ci, wp, op, op.signature);
    }
    if (kind.case === "text") {
      // A text part's own signature, or an empty text part, still has to reach the client.
      if ((op.signature && !op.tookThoughtSignature) || !op.emitted) return this.emitPart(ci, { text: "" }, op, op.signature);
    }
    return [];
  }

  /** The held chunk as it is, for a stream that fails: what was produced still goes out. */
  flush(): Chunk[] {
    const held = this.held;
    this.held = undefined;
    return held ? [held] : [];
  }

  /** The final chunk(s): the held chunk with every candidate's finish and the final usage. */
  end(): Chunk[] {
    const last: Chunk = this.held ?? { modelVersion: this.modelVersion, responseId: this.id };
    this.held = undefined;
    const byIndex = new Map<number, JsonObject>();
    for (const cand of (last.candidates as JsonObject[] | undefined) ?? []) byIndex.set(cand.index as number, cand);
    for (const [i, c] of [...this.cands].sort((a, b) => a[0] - b[0])) {
      let cand = byIndex.get(i);
      const parts: WirePart[] = c.pendingSignature ? [{ text: "", thoughtSignature: c.pendingSignature }] : [];
      if (!cand) {
        if (!c.finish && !parts.length && !c.searches.length) continue;
        cand = { content: { parts: [], role: "model" }, index: i };
        byIndex.set(i, cand);
      }
      if (parts.length) ((cand.content as JsonObject).parts as JsonObject[]).push(...(parts as JsonObject[]));
      const f = c.finish;
      if (f) {
        cand.finishReason = fromCoreFinish(f.finishReason, f.vendorFinishReason);
        if (f.safetyRatings.length) cand.safetyRatings = fromCoreSafetyRatings(f.safetyRatings);
        if (f.logprobs) {
          cand.logprobsResult = fromCoreLogprobs(f.logprobs);
          // The finish event has no average; it is the mean over the chosen tokens.
          const chosen = f.logprobs.chosenCandidates;
          if (chosen.length) cand.avgLogprobs = chosen.reduce((n, c) => n + c.logProbability, 0) / chosen.length;
        }
      }
      const grounding = groundingOf(c.searches);
      if (grounding) cand.groundingMetadata = grounding;
    }
    const candidates = [...byIndex.values()].sort((a, b) => (a.index as number) - (b.index as number));
    const pf = fromCorePromptFeedback(this.feedback);
    const { candidates: _c, usageMetadata: _u, modelVersion: _m, responseId: _r, ...rest } = last;
    // Object.assign, not a literal that starts with a spread (see eslint.config.js).
    return [
      Object.assign({}, rest, candidates.length ? { candidates } : {}, pf ? { promptFeedback: pf } : {}, {
        usageMetadata: fromCoreUsage(this.usage),
        modelVersion: this.modelVersion,
        responseId: this.id,
      }),
    ];
  }
}

/** A functionCall as Gemini sends it: its id first when there is one. */
const functionCallOf = (id: string, name: string, args: JsonObject): WirePart["functionCall"] => (id ? { id, name, args } : { name, args });
