// Neutral EmbedRequest <-> Gemini's embedContent / batchEmbedContents. Pure.
//
// Each input becomes one EmbedContentRequest: its text as one part, the
// request's task type, the input's title, `dimensions` as
// outputDimensionality, and the "gemini" vendor extras (fields the gateway
// sets win). Gemini embeds text only: a token array is refused. Gemini's
// answers carry no token usage (unless a newer one reports usageMetadata):
// the core then counts the inputs itself.
import { create } from "../../core/proto/create.js";
import { EmbedResponseSchema, type EmbedRequest, type EmbedResponse } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import { protocolError, unsupported } from "../shared/http-errors.js";
import type { ContentEmbedding, EmbedContentRequest } from "./embed-wire.js";

const VENDOR = "gemini";

/** One request per input, in order; `model` set for batches ("models/{model}"). */
export function toVendorEmbedRequests(req: EmbedRequest, upstreamModel: string, batch: boolean): EmbedContentRequest[] {
  const extras = req.vendorExtras[VENDOR];
  return req.inputs.map((input, i) => {
    if (input.content.case !== "text") throw unsupported(VENDOR, `inputs[${i}]`, "a token array input");
    const r: EmbedContentRequest = { ...extras, content: { parts: [{ text: input.content.value }] } };
    if (batch) r.model = `models/${upstreamModel.replace(/^models\//, "")}`;
    else delete r.model;
    if (req.taskType) r.taskType = req.taskType;
    if (input.title) r.title = input.title;
    if (req.dimensions !== undefined) r.outputDimensionality = req.dimensions;
    return r;
  });
}

function valuesOf(e: ContentEmbedding | undefined): number[] {
  const v = e?.values;
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === "number")) throw protocolError(VENDOR, "embedding without values");
  return v;
}

/** The vectors of one or more answers, in order, and the tokens they report (undefined when none does). */
export function fromVendorEmbeddings(vectors: (ContentEmbedding | undefined)[], reported: (number | undefined)[], opts: { model: string; channel: string; inputs: number }): EmbedResponse {
  if (vectors.length !== opts.inputs) throw protocolError(VENDOR, `expected ${opts.inputs} embeddings, got ${vectors.length}`);
  const counted = reported.every((n) => typeof n === "number" && n >= 0) ? reported.reduce<number>((a, n) => a + Math.trunc(n!), 0) : undefined;
  return create(EmbedResponseSchema, {
    embeddings: vectors.map((e) => ({ values: valuesOf(e) })),
    model: opts.model,
    channel: opts.channel,
    ...(counted !== undefined && reported.length ? { usage: { inputTokens: BigInt(counted) } } : {}),
  });
}
