// OpenAI's embeddings answer -> neutral EmbedResponse. Pure. Vectors come
// back in the order of their `index` (servers may list them in any order),
// decoded from base64 (little-endian float32) where the server sent a string.
// An answer without one vector per input is a protocol error.
import { create } from "../../core/proto/create.js";
import { EmbedResponseSchema, type EmbedResponse } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import { protocolError } from "../shared/http-errors.js";
import type { EmbeddingObject, EmbeddingsResponse } from "./embed-wire.js";

const VENDOR = "openai";

/** Little-endian float32 values from base64. */
export function decodeFloat32Base64(b64: string): number[] {
  const bytes = Buffer.from(b64, "base64");
  if (bytes.length % 4 !== 0) throw protocolError(VENDOR, "base64 embedding is not a whole number of float32 values");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array<number>(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

function vectorOf(e: EmbeddingObject): number[] {
  const v = e.embedding;
  if (typeof v === "string") return decodeFloat32Base64(v);
  if (Array.isArray(v) && v.every((x) => typeof x === "number")) return v;
  throw protocolError(VENDOR, "embedding is neither a number array nor base64");
}

export function fromVendorEmbedResponse(r: EmbeddingsResponse, opts: { model: string; channel: string; inputs: number }): EmbedResponse {
  const data = Array.isArray(r.data) ? r.data : [];
  const slots: (number[] | undefined)[] = new Array(opts.inputs).fill(undefined);
  data.forEach((e, i) => {
    const at = typeof e.index === "number" ? e.index : i;
    if (!Number.isInteger(at) || at < 0 || at >= opts.inputs || slots[at]) throw protocolError(VENDOR, `embedding index ${String(e.index)} is out of place`);
    slots[at] = vectorOf(e);
  });
  if (slots.some((s) => !s)) throw protocolError(VENDOR, `expected ${opts.inputs} embeddings, got ${data.length}`);
  const tokens = r.usage?.prompt_tokens ?? r.usage?.total_tokens;
  return create(EmbedResponseSchema, {
    embeddings: slots.map((values) => ({ values: values! })),
    model: opts.model,
    channel: opts.channel,
    ...(typeof tokens === "number" && tokens >= 0 ? { usage: { inputTokens: BigInt(Math.trunc(tokens)) } } : {}),
  });
}
