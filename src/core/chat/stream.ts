// Conversions between a whole GenerateResponse and the neutral event stream.
// Providers that cannot stream use responseToEvents; callers that want a whole
// answer from a stream use collectStream, which also checks the event order.
import { clone } from "@bufbuild/protobuf";
import { create } from "../proto/create.js";
import {
  CandidateSchema,
  GenerateResponseSchema,
  PartSchema,
  StreamGenerateResponseSchema,
  UsageSchema,
  type Candidate,
  type GenerateResponse,
  type Part,
  type StreamGenerateResponse,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";

const ev = (event: MessageInitShape<typeof StreamGenerateResponseSchema>["event"]) => create(StreamGenerateResponseSchema, { event });

/** The fixed (non-growing) shape of a part, as sent in part_start. */
export function partSkeleton(p: Part): Part {
  const s = clone(PartSchema, p);
  s.signature = undefined;
  const k = s.kind;
  if (k.case === "text") k.value.text = "";
  else if (k.case === "thinking") k.value.text = "";
  else if (k.case === "toolCall") {
    k.value.arguments = undefined;
    // A custom call's input grows like text: "" marks the call as custom.
    if (k.value.input !== undefined) k.value.input = "";
  }
  return s;
}

/** Splits a whole response into stream events; `chunk` cuts text into deltas. */
export function* responseToEvents(resp: GenerateResponse, chunk: (text: string) => string[] = (t) => [t]): Generator<StreamGenerateResponse> {
  const inputOnly = create(UsageSchema, { inputTokens: resp.usage?.inputTokens ?? 0n, cacheReadTokens: resp.usage?.cacheReadTokens ?? 0n, cacheWriteTokens: resp.usage?.cacheWriteTokens ?? 0n });
  yield ev({ case: "start", value: { id: resp.id, model: resp.model, modelVersion: resp.modelVersion, usage: inputOnly, channel: resp.channel } });
  if (resp.promptFeedback) yield ev({ case: "promptFeedback", value: resp.promptFeedback });
  for (const c of resp.candidates) {
    let index = 0;
    for (const p of c.parts) {
      const ci = c.index;
      yield ev({ case: "partStart", value: { candidateIndex: ci, index, part: partSkeleton(p) } });
      const k = p.kind;
      if (k.case === "text") for (const t of chunk(k.value.text)) yield ev({ case: "partDelta", value: { candidateIndex: ci, index, delta: { case: "text", value: t } } });
      else if (k.case === "thinking") for (const t of chunk(k.value.text)) yield ev({ case: "partDelta", value: { candidateIndex: ci, index, delta: { case: "thinking", value: t } } });
      else if (k.case === "toolCall" && k.value.input !== undefined) {
        for (const t of chunk(k.value.input)) if (t) yield ev({ case: "partDelta", value: { candidateIndex: ci, index, delta: { case: "input", value: t } } });
      } else if (k.case === "toolCall") {
        const json = JSON.stringify(k.value.arguments ?? {});
        for (const t of chunk(json)) yield ev({ case: "partDelta", value: { candidateIndex: ci, index, delta: { case: "argumentsJson", value: t } } });
      }
      if (p.signature) yield ev({ case: "partDelta", value: { candidateIndex: ci, index, delta: { case: "signature", value: p.signature } } });
      yield ev({ case: "partStop", value: { candidateIndex: ci, index } });
      index++;
    }
    yield ev({
      case: "finish",
      value: {
        candidateIndex: c.index,
        finishReason: c.finishReason,
        stopSequence: c.stopSequence,
        safetyRatings: c.safetyRatings,
        vendorFinishReason: c.vendorFinishReason,
        ...(c.logprobs ? { logprobs: c.logprobs } : {}),
      },
    });
  }
  if (resp.usage) yield ev({ case: "usage", value: resp.usage });
}

export class StreamOrderError extends Error {
  override name = "StreamOrderError";
}

/** Accumulates a stream into a whole response, checking the documented order. */
export async function collectStream(stream: AsyncIterable<StreamGenerateResponse>): Promise<GenerateResponse> {
  const resp = create(GenerateResponseSchema, {});
  const cands = new Map<number, Candidate>();
  const args = new Map<string, string>();
  const open = new Set<string>();
  let started = false;
  const cand = (i: number) => {
    let c = cands.get(i);
    if (!c) {
      c = create(CandidateSchema, { index: i });
      cands.set(i, c);
    }
    return c;
  };
  for await (const e of stream) {
    const k = e.event;
    if (k.case !== "start" && k.case !== "ping" && !started) throw new StreamOrderError(`${k.case} before start`);
    switch (k.case) {
      case "start":
        if (started) throw new StreamOrderError("second start");
        started = true;
        resp.id = k.value.id;
        resp.model = k.value.model;
        resp.modelVersion = k.value.modelVersion;
        resp.channel = k.value.channel;
        if (k.value.usage) resp.usage = k.value.usage;
        break;
      case "partStart": {
        const c = cand(k.value.candidateIndex);
        if (k.value.index !== c.parts.length) throw new StreamOrderError(`part_start index ${k.value.index}, expected ${c.parts.length}`);
        c.parts.push(clone(PartSchema, k.value.part ?? create(PartSchema)));
        open.add(`${k.value.candidateIndex}:${k.value.index}`);
        break;
      }
      case "partDelta": {
        const key = `${k.value.candidateIndex}:${k.value.index}`;
        if (!open.has(key)) throw new StreamOrderError(`delta for part ${key} that is not open`);
        const p = cand(k.value.candidateIndex).parts[k.value.index]!;
        const d = k.value.delta;
        if (d.case === "text" && p.kind.case === "text") p.kind.value.text += d.value;
        else if (d.case === "thinking" && p.kind.case === "thinking") p.kind.value.text += d.value;
        else if (d.case === "argumentsJson" && p.kind.case === "toolCall" && p.kind.value.input === undefined) args.set(key, (args.get(key) ?? "") + d.value);
        else if (d.case === "input" && p.kind.case === "toolCall" && p.kind.value.input !== undefined) p.kind.value.input += d.value;
        else if (d.case === "signature") p.signature = d.value;
        else if (d.case === "citation" && p.kind.case === "text") p.kind.value.citations.push(d.value);
        else throw new StreamOrderError(`delta ${d.case} does not fit part ${p.kind.case}`);
        break;
      }
      case "partStop": {
        const key = `${k.value.candidateIndex}:${k.value.index}`;
        if (!open.delete(key)) throw new StreamOrderError(`stop for part ${key} that is not open`);
        const p = cand(k.value.candidateIndex).parts[k.value.index]!;
        if (p.kind.case === "toolCall" && args.has(key)) p.kind.value.arguments = JSON.parse(args.get(key)!) as JsonObject;
        break;
      }
      case "finish": {
        const c = cand(k.value.candidateIndex);
        c.finishReason = k.value.finishReason;
        c.stopSequence = k.value.stopSequence;
        c.safetyRatings = k.value.safetyRatings;
        c.vendorFinishReason = k.value.vendorFinishReason;
        if (k.value.logprobs) c.logprobs = k.value.logprobs;
        break;
      }
      case "usage":
        resp.usage = k.value;
        break;
      case "promptFeedback":
        resp.promptFeedback = k.value;
        break;
      default:
        break;
    }
  }
  if (!started) throw new StreamOrderError("stream ended without start");
  if (open.size) throw new StreamOrderError(`stream ended with open parts ${[...open].join(",")}`);
  resp.candidates = [...cands.values()].sort((a, b) => a.index - b.index);
  return resp;
}
