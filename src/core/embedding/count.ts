// Token counts of embedding inputs with the gateway's own tokenizer: what a
// call is reserved at, and its usage when the upstream reports none (Gemini).
import type { EmbedInput } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import { countText } from "../../lib/tokenizer.js";

/** Tokens of one input: a text's count, or a token array's length. */
export function countEmbedInput(input: Pick<EmbedInput, "content">): number {
  const c = input.content;
  if (c.case === "text") return countText(c.value);
  if (c.case === "tokens") return c.value.ids.length;
  return 0;
}

export function countEmbedInputs(inputs: readonly Pick<EmbedInput, "content">[]): number {
  let n = 0;
  for (const i of inputs) n += countEmbedInput(i);
  return n;
}
