// Prompt helpers: sensitive words, Chinese detection and the --parameters a
// prompt carries (--ar, --zoom, --seed). Pure.

const CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]/;
const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;

/** True when the prompt has Chinese characters (and so needs translating). */
export function hasChinese(text: string): boolean {
  return HAN.test(text);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The first banned word the text contains, or undefined. Latin words match as
 * whole words, case-insensitively; words with CJK characters match anywhere.
 */
export function findBannedWord(text: string, words: readonly string[]): string | undefined {
  const lower = text.toLowerCase();
  for (const raw of words) {
    const w = raw.trim().toLowerCase();
    if (!w) continue;
    if (CJK.test(w)) {
      if (lower.includes(w)) return raw.trim();
      continue;
    }
    if (new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRe(w)}($|[^\\p{L}\\p{N}_])`, "u").test(lower)) return raw.trim();
  }
  return undefined;
}

export interface AspectRatio {
  w: number;
  h: number;
}

/** The --ar (or --aspect) of a prompt; 1:1 when absent or malformed. */
export function aspectOf(prompt: string): AspectRatio {
  const m = /(?:^|\s)--(?:ar|aspect)\s+(\d{1,3})\s*:\s*(\d{1,3})(?=\s|$)/i.exec(prompt);
  if (!m) return { w: 1, h: 1 };
  const w = Number(m[1]);
  const h = Number(m[2]);
  if (w < 1 || h < 1 || w / h > 4 || h / w > 4) return { w: 1, h: 1 };
  return { w, h };
}

/** The --zoom value of a prompt, when present. */
export function zoomOf(prompt: string): number | undefined {
  const m = /(?:^|\s)--zoom\s+(\d+(?:\.\d+)?)(?=\s|$)/i.exec(prompt);
  return m ? Number(m[1]) : undefined;
}

/** The --seed of a prompt (0..4294967295), when present. */
export function seedOf(prompt: string): number | undefined {
  const m = /(?:^|\s)--seed\s+(\d{1,10})(?=\s|$)/i.exec(prompt);
  if (!m) return undefined;
  const n = Number(m[1]);
  return n <= 0xffffffff ? n : undefined;
}

/** The prompt without its --parameters. */
export function stripParams(prompt: string): string {
  const i = prompt.search(/(?:^|\s)--[a-z]/i);
  return (i < 0 ? prompt : prompt.slice(0, i)).trim();
}

/** The --parameters of a prompt, as written ("--ar 3:2 --zoom 1.5"). */
export function paramsOf(prompt: string): string {
  const i = prompt.search(/(?:^|\s)--[a-z]/i);
  return i < 0 ? "" : prompt.slice(i).trim();
}
