// Shorten in the local engine: the prompt's important tokens (content words,
// weighted by length and position) and five shortened prompts. Pure.
import { numbered } from "./describe.js";

const STOP = new Set("a an the of and or but with without in on at to for from by as is are was were be been being this that these those it its very really into onto over under about".split(" "));

export interface Shortened {
  tokens: string[];
  prompts: string[];
  text: string;
}

export function shortenPrompt(prompt: string): Shortened {
  const params = (/(?:^|\s)(--[a-z].*)$/i.exec(prompt)?.[1] ?? "").trim();
  const body = params ? prompt.slice(0, prompt.length - params.length).trim() : prompt.trim();
  const words = body
    .split(/[\s,.;:!?()[\]{}"]+/)
    .map((w) => w.trim())
    .filter((w) => w && !STOP.has(w.toLowerCase()));
  const scored = words.map((w, i) => ({ w, score: Math.min(w.length, 10) + (words.length - i) / words.length }));
  const seen = new Set<string>();
  const ranked = scored
    .sort((a, b) => b.score - a.score)
    .map((s) => s.w)
    .filter((w) => !seen.has(w.toLowerCase()) && seen.add(w.toLowerCase()));
  const tokens = ranked.slice(0, 8);
  const inOrder = (keep: Set<string>) => words.filter((w, i) => keep.has(w) && words.indexOf(w) === i).join(", ");
  const sizes = [8, 6, 5, 4, 3];
  const prompts = sizes.map((n) => {
    const p = inOrder(new Set(ranked.slice(0, Math.max(1, n)))) || body;
    return params ? `${p} ${params}` : p;
  });
  const text = `## Important tokens\n${tokens.join(", ")}\n\n## Shortened prompts\n${numbered(prompts)}`;
  return { tokens, prompts, text };
}
