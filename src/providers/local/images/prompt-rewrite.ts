// How the local engine imitates a model that rewrites prompts (IMG_MODEL_B):
// the prompt is expanded with style, detail and palette words, deterministically.
import { artHash } from "./art.js";

const MOODS = ["warm", "cool", "luminous", "muted", "vibrant", "pastel", "dramatic", "serene"];
const LIGHT = ["soft morning light", "golden-hour light", "diffuse studio light", "moody evening light", "crisp daylight"];

/**
 * The text without its trailing dots and white space. A loop, not
 * `/[.\s]+$/`, which rescans every run of dots and spaces that is not at the
 * end (quadratic in the run).
 */
export function trimEndDots(s: string): string {
  let end = s.length;
  while (end > 0 && (s[end - 1] === "." || /\s/.test(s[end - 1]!))) end--;
  return s.slice(0, end);
}

export function revisePrompt(prompt: string, style: string, quality: string): string {
  const h = artHash(prompt, 0, 0);
  const base = trimEndDots(prompt.trim());
  const subject = base.charAt(0).toUpperCase() + base.slice(1);
  const look = style === "natural" ? "a natural, true-to-life" : "a vivid, hyper-real";
  const detail = quality === "hd" ? "fine, high-definition detail" : "clean, balanced detail";
  return `${subject}, depicted as ${look} image with ${MOODS[h[0]! % MOODS.length]} colours, ${LIGHT[h[1]! % LIGHT.length]} and ${detail}.`;
}
