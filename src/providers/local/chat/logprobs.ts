// Log probabilities for the local engine's text: one chosen candidate per
// output token with a plausible (deterministic) log probability, and the top
// N alternatives per position when `logprobs` is set. The chosen token is
// always the most likely one, and probabilities at a position sum to <= 1.
import { create } from "../../../core/proto/create.js";
import { LogprobCandidateSchema, LogprobsResultSchema, TopLogprobCandidatesSchema, type LogprobsResult, type Part } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { splitTokens } from "../../../lib/tokenizer.js";

const VOCAB_SIZE = 256_000;
const MAX_TOP = 20;
const ALTERNATIVES = [" the", " a", ",", ".", " and", " to", " of", " is", " it", " that", " in", " you", " this", " I", " for", " on", " with", " as", " be", " at", " so", " we"];

/** FNV-1a, for stable token ids and probabilities. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export const tokenId = (token: string) => hash(token) % VOCAB_SIZE;

/** Logprobs of the text parts (thoughts excluded); undefined when there is no text. */
export function logprobsFor(parts: Part[], top: number | undefined): { result: LogprobsResult; avg: number } | undefined {
  const tokens = parts.flatMap((p) => (p.kind.case === "text" ? splitTokens(p.kind.value.text) : []));
  if (!tokens.length) return undefined;
  const n = Math.min(MAX_TOP, Math.max(0, top ?? 0));
  const result = create(LogprobsResultSchema, {});
  let sum = 0;
  tokens.forEach((token, pos) => {
    const u = (hash(`${pos}:${token}`) % 10_000) / 10_000;
    const p = Math.min(0.995, 0.35 + 0.65 * (1 - u * u));
    const lp = Math.log(p);
    sum += lp;
    result.chosenCandidates.push(create(LogprobCandidateSchema, { token, tokenId: tokenId(token), logProbability: lp }));
    if (n > 0) {
      const cands = [create(LogprobCandidateSchema, { token, tokenId: tokenId(token), logProbability: lp })];
      const start = hash(token) % ALTERNATIVES.length;
      for (let k = 1, j = 0; cands.length < n && j < ALTERNATIVES.length; j++) {
        const alt = ALTERNATIVES[(start + j) % ALTERNATIVES.length]!;
        if (alt === token) continue;
        cands.push(create(LogprobCandidateSchema, { token: alt, tokenId: tokenId(alt), logProbability: Math.log((1 - p) * 0.5 ** k) }));
        k++;
      }
      result.topCandidates.push(create(TopLogprobCandidatesSchema, { candidates: cands }));
    }
  });
  return { result, avg: sum / tokens.length };
}
