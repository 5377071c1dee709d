// The local engine decides the whole answer up front ("the plan"); generate
// returns it and stream replays it, so both always agree, and token counts
// come from the same tokenizer as count_tokens.
import { create } from "@bufbuild/protobuf";
import {
  FinishReason,
  PartSchema,
  Role,
  UsageSchema,
  ModalityTokensSchema,
  Modality,
  type ChatInput,
  type Part,
  type PromptFeedback,
  type Usage,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { LocalConfig } from "../../config.js";
import { countInput, countPart, countText, splitTokens } from "./tokenizer.js";

export interface ChatPlan {
  parts: Part[];
  finishReason: FinishReason;
  stopSequence: string;
  usage: Usage;
  promptFeedback?: PromptFeedback;
}

/** Text of the last user turn (the thing the engine answers). */
export function lastUserText(input: ChatInput): string {
  for (let i = input.turns.length - 1; i >= 0; i--) {
    const t = input.turns[i]!;
    if (t.role !== Role.USER) continue;
    const text = t.parts.flatMap((p) => (p.kind.case === "text" ? [p.kind.value.text] : [])).join(" ").trim();
    if (text) return text;
  }
  return "";
}

/** The answer the engine gives to plain text input. */
export function answerText(input: ChatInput): string {
  const said = lastUserText(input);
  const clipped = said.length > 400 ? said.slice(0, 400) + "..." : said;
  return clipped ? `You said: ${clipped}` : "Hello from omnigate's local engine.";
}

/** Applies stop sequences and the output-token limit to a text answer. */
export function limitText(text: string, maxTokens: number | undefined, stopSequences: string[]): { text: string; finish: FinishReason; stopSequence: string } {
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
    const pieces = splitTokens(cut);
    let out = "";
    let n = 0;
    for (const p of pieces) {
      const c = countText(p);
      if (n + c > maxTokens) break;
      out += p;
      n += c;
    }
    cut = out;
    finish = FinishReason.MAX_TOKENS;
    stopSequence = "";
  }
  return { text: cut, finish, stopSequence };
}

export function usageFor(input: ChatInput, parts: Part[]): Usage {
  const inCount = countInput(input);
  const output = Math.max(1, parts.reduce((n, p) => n + countPart(p), 0));
  const thinking = parts.reduce((n, p) => n + (p.kind.case === "thinking" ? countPart(p) : 0), 0);
  return create(UsageSchema, {
    inputTokens: BigInt(inCount.total),
    outputTokens: BigInt(output),
    thinkingTokens: BigInt(thinking),
    inputDetails: [
      create(ModalityTokensSchema, { modality: Modality.TEXT, tokenCount: BigInt(inCount.total - inCount.media) }),
      ...(inCount.media ? [create(ModalityTokensSchema, { modality: Modality.IMAGE, tokenCount: BigInt(inCount.media) })] : []),
    ],
    outputDetails: [create(ModalityTokensSchema, { modality: Modality.TEXT, tokenCount: BigInt(output) })],
  });
}

export function planChat(input: ChatInput, _cfg: LocalConfig): ChatPlan {
  const cfgMax = input.config?.maxOutputTokens;
  const limited = limitText(answerText(input), cfgMax, input.config?.stopSequences ?? []);
  const parts = limited.text ? [create(PartSchema, { kind: { case: "text", value: { text: limited.text } } })] : [];
  return { parts, finishReason: limited.finish, stopSequence: limited.stopSequence, usage: usageFor(input, parts) };
}
