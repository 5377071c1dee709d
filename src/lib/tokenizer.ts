// The local engine's tokenizer: deterministic and cheap, so that count_tokens,
// usage and streams always agree. Not any vendor's tokenizer.
import { Modality, type ChatInput, type Part, type Tool } from "../../gen/omnigate/chat/v1/chat_pb.js";

const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|\p{L}+|\p{N}+|[^\s\p{L}\p{N}]/gu;
/** Tokens charged for one image or other media part. */
export const MEDIA_TOKENS = 258;
/** Fixed tokens per turn (role markers). */
export const TURN_TOKENS = 3;

export function countText(text: string): number {
  let n = 0;
  for (const m of text.matchAll(TOKEN)) n += Math.max(1, Math.ceil(m[0].length / 6));
  return n;
}

/** Splits text into pieces of about one token each, keeping whitespace attached; joining them gives the text back. */
export function splitTokens(text: string): string[] {
  const out: string[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const end = (m.index ?? 0) + m[0].length;
    out.push(text.slice(last, end));
    last = end;
  }
  if (last < text.length) {
    if (out.length) out[out.length - 1] += text.slice(last);
    else out.push(text.slice(last));
  }
  return out;
}

export function countPart(p: Part): number {
  const k = p.kind;
  switch (k.case) {
    case "text":
      return countText(k.value.text);
    case "media":
      return MEDIA_TOKENS;
    case "toolCall":
      return countText(k.value.name) + (k.value.input !== undefined ? countText(k.value.input) : countText(JSON.stringify(k.value.arguments ?? {})));
    case "toolResult":
      return countText(k.value.name) + k.value.content.reduce((n, c) => n + countPart(c), 0) + (k.value.structured ? countText(JSON.stringify(k.value.structured)) : 0);
    case "thinking":
      return countText(k.value.text);
    case "redactedThinking":
      return Math.ceil(k.value.data.length / 8);
    case "executableCode":
      return countText(k.value.code);
    case "codeExecutionResult":
      return countText(k.value.output);
    default:
      return 0;
  }
}

export function countTool(t: Tool): number {
  const k = t.kind;
  if (k.case === "function") return countText(k.value.name) + countText(k.value.description) + countText(JSON.stringify(k.value.parameters ?? {}));
  if (k.case === "vendor") return countText(k.value.type) + countText(k.value.name) + 16;
  if (k.case === "custom") return countText(k.value.name) + countText(k.value.description) + countText(JSON.stringify(k.value.format ?? {}));
  if (k.case === "codeExecution") return 16;
  return 0;
}

/** The modality a media part counts under. */
export function mediaModality(mimeType: string): Modality {
  const m = mimeType.toLowerCase();
  if (m.startsWith("audio/")) return Modality.AUDIO;
  if (m.startsWith("video/")) return Modality.VIDEO;
  if (m.startsWith("image/") || !m) return Modality.IMAGE;
  return Modality.DOCUMENT;
}

export interface InputCount {
  total: number;
  /** Tokens charged for media parts (MEDIA_TOKENS each, also inside tool results). */
  media: number;
  /** Media tokens per modality. */
  mediaByModality: Map<Modality, number>;
}

function addMedia(p: Part, into: Map<Modality, number>): number {
  const k = p.kind;
  if (k.case === "media") {
    const m = mediaModality(k.value.mimeType);
    into.set(m, (into.get(m) ?? 0) + MEDIA_TOKENS);
    return MEDIA_TOKENS;
  }
  if (k.case === "toolResult") return k.value.content.reduce((n, c) => n + addMedia(c, into), 0);
  return 0;
}

/** Input tokens of a request (system, turns and tools). */
export function countInput(input: Pick<ChatInput, "system" | "turns" | "tools">): InputCount {
  let total = 0;
  let media = 0;
  const mediaByModality = new Map<Modality, number>();
  for (const p of input.system) {
    total += countPart(p);
    media += addMedia(p, mediaByModality);
  }
  for (const t of input.turns) {
    total += TURN_TOKENS;
    for (const p of t.parts) {
      total += countPart(p);
      media += addMedia(p, mediaByModality);
    }
  }
  for (const t of input.tools) total += countTool(t);
  return { total, media, mediaByModality };
}
