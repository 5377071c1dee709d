// Output limits of the local engine: the token cap (max_output_tokens, thinking
// budget) and stop sequences.
import { FinishReason } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { countText, splitTokens } from "../../../lib/tokenizer.js";

/** The longest prefix of `text` (whole tokens) that fits in `maxTokens`. */
export function capTokens(text: string, maxTokens: number): string {
  if (countText(text) <= maxTokens) return text;
  let out = "";
  let n = 0;
  for (const p of splitTokens(text)) {
    const c = countText(p);
    if (n + c > maxTokens) break;
    out += p;
    n += c;
  }
  return out;
}

export interface Limited {
  text: string;
  finish: FinishReason;
  stopSequence: string;
}

/** Applies stop sequences (earliest wins) and then the output-token limit to a text answer. */
export function limitText(text: string, maxTokens: number | undefined, stopSequences: readonly string[]): Limited {
  let cut = text;
  let finish = FinishReason.STOP;
  let stopSequence = "";
  let at = -1;
  for (const s of stopSequences) {
    if (!s) continue;
    const i = cut.indexOf(s);
    if (i >= 0 && (at < 0 || i < at)) {
      at = i;
      stopSequence = s;
    }
  }
  if (at >= 0) {
    cut = cut.slice(0, at);
    finish = FinishReason.STOP_SEQUENCE;
  }
  if (maxTokens !== undefined && countText(cut) > maxTokens) {
    cut = capTokens(cut, Math.max(0, maxTokens));
    finish = FinishReason.MAX_TOKENS;
    stopSequence = "";
  }
  return { text: cut, finish, stopSequence };
}
