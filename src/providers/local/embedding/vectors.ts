// Deterministic embedding vectors by feature hashing. A text's features are
// its words, its word pairs and the character trigrams of its words; each
// feature adds a signed weight to a few buckets picked by a hash seeded with
// the model name, and the sum is scaled to length 1. So the same text always
// gives the same vector, texts that share words point the same way (similar
// texts are closer than unrelated ones), and unrelated texts are nearly
// orthogonal. A token array's features are its ids and id pairs. Pure.

/** Buckets each feature lands in: enough to keep short vectors from being empty. */
const SPREAD = 4;
const WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}]+/gu;

const WEIGHTS = { word: 1, pair: 0.7, trigram: 0.25, title: 0.5 };

/** FNV-1a over the UTF-16 code units of `s`, from `seed`. */
export function hash32(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3's finaliser: spreads every input bit over the output. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Adds `weight` for a feature to SPREAD buckets of `acc`, each with its own sign. */
function addFeature(acc: Float64Array, feature: string, weight: number, seed: number): void {
  const h = hash32(feature, seed);
  for (let j = 0; j < SPREAD; j++) {
    const k = mix(h + Math.imul(j + 1, 0x9e3779b9));
    acc[(k & 0x7fffffff) % acc.length]! += k & 0x80000000 ? -weight : weight;
  }
}

/** The words of a text, lowercased. */
export function words(text: string): string[] {
  return Array.from(text.normalize("NFKC").toLowerCase().matchAll(WORD), (m) => m[0]);
}

function addWords(acc: Float64Array, ws: string[], scale: number, seed: number): void {
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!;
    addFeature(acc, `w:${w}`, WEIGHTS.word * scale, seed);
    if (i > 0) addFeature(acc, `p:${ws[i - 1]}\u0000${w}`, WEIGHTS.pair * scale, seed);
    const padded = `^${w}$`;
    for (let c = 0; c + 3 <= padded.length; c++) addFeature(acc, `t:${padded.slice(c, c + 3)}`, WEIGHTS.trigram * scale, seed);
  }
}

/** `acc` scaled to length 1, as float32 values; an empty sum gets one bucket picked by `fallback`. */
function unit(acc: Float64Array, fallback: number): number[] {
  let sum = 0;
  for (const v of acc) sum += v * v;
  if (sum === 0) {
    acc[fallback % acc.length] = 1;
    sum = 1;
  }
  const inv = 1 / Math.sqrt(sum);
  return Array.from(acc, (v) => Math.fround(v * inv));
}

/** The seed of a model's vectors: different models place the same text differently. */
export const modelSeed = (model: string) => hash32(`omnigate-embedding:${model}`);

export function textVector(text: string, dims: number, seed: number, title = ""): number[] {
  const acc = new Float64Array(dims);
  addWords(acc, words(text), 1, seed);
  if (title) addWords(acc, words(title), WEIGHTS.title, seed);
  return unit(acc, hash32(text, seed));
}

export function tokenVector(ids: readonly number[], dims: number, seed: number): number[] {
  const acc = new Float64Array(dims);
  for (let i = 0; i < ids.length; i++) {
    addFeature(acc, `#${ids[i]}`, WEIGHTS.word, seed);
    if (i > 0) addFeature(acc, `#${ids[i - 1]}:${ids[i]}`, WEIGHTS.pair, seed);
  }
  return unit(acc, hash32(ids.join(","), seed));
}
