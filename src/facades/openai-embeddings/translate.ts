// OpenAI's embeddings request <-> the neutral EmbedRequest / EmbedResponse. Pure.
//
// A string is one input, an array of strings several; an array of integers
// is one tokenized input, an array of integer arrays several. Fields the
// gateway does not model go to the "openai" vendor extras (an OpenAI channel
// gets them as sent). The answer's vectors are numbers, or with
// encoding_format "base64" their little-endian float32 bytes, as OpenAI sends
// them; usage.total_tokens = prompt_tokens.
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import type { EmbedInputSchema, EmbedRequestSchema, EmbedResponse } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import type * as wire from "./wire.js";

type Input = MessageInitShape<typeof EmbedInputSchema>;

function inputsOf(input: wire.EmbeddingsBody["input"]): Input[] {
  if (typeof input === "string") return [{ content: { case: "text", value: input } }];
  if (input.length === 0) return [];
  if (input.every((x) => typeof x === "number")) return [{ content: { case: "tokens", value: { ids: input as number[] } } }];
  return (input as (string | number[])[]).map((x) => (typeof x === "string" ? { content: { case: "text", value: x } } : { content: { case: "tokens", value: { ids: x } } }));
}

export function toCoreEmbed(body: wire.EmbeddingsBody): MessageInitShape<typeof EmbedRequestSchema> {
  const { model, input, encoding_format: _format, dimensions, user, ...extras } = body;
  return {
    model,
    inputs: inputsOf(input),
    ...(dimensions !== undefined ? { dimensions } : {}),
    user: user ?? "",
    vendorExtras: Object.keys(extras).length ? { openai: extras as JsonObject } : {},
  };
}

/** The vector as little-endian float32 bytes in base64. */
export function float32Base64(values: readonly number[]): string {
  const buf = Buffer.allocUnsafe(values.length * 4);
  for (let i = 0; i < values.length; i++) buf.writeFloatLE(values[i]!, i * 4);
  return buf.toString("base64");
}

export function fromCoreEmbed(res: EmbedResponse, format: "float" | "base64" = "float"): wire.EmbeddingsResponse {
  const tokens = Number(res.usage?.inputTokens ?? 0n);
  return {
    object: "list",
    data: res.embeddings.map((e, index) => ({ object: "embedding", index, embedding: format === "base64" ? float32Base64(e.values) : e.values })),
    model: res.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** A core field in this wire's words: inputs[3] -> input[3] (input, when the client sent one string or token array). */
export function clientField(field: string, single: boolean): string {
  if (field === "inputs") return "input";
  const m = /^inputs\[(\d+)\](.*)$/.exec(field);
  if (m) return single ? `input${m[2]}` : `input[${m[1]}]${m[2]}`;
  return field;
}
