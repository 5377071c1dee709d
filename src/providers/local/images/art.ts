// Deterministic artwork for the local image engine: a hash of the prompt, seed
// and image index picks a palette, gradients and shapes, and the prompt itself
// is set as text. Pure: returns an SVG document and a seeded random source.
import { createHash } from "node:crypto";

export interface ArtSpec {
  prompt: string;
  seed: number;
  /** Index of the image within the request (n > 1 gives different images). */
  index: number;
  width: number;
  height: number;
  transparent: boolean;
  /** "low" | "medium" | "high" | "standard" | "hd" | "": more shapes for finer qualities. */
  quality: string;
  /** "natural" mutes the colours; anything else is vivid. */
  style: string;
}

/** 32 bytes that identify the image. */
export function artHash(prompt: string, seed: number, index: number): Buffer {
  return createHash("sha256").update(`${prompt}\u0000${seed}\u0000${index}`).digest();
}

/** mulberry32: a small, fast, seeded PRNG in [0, 1). */
export function prng(hash: Buffer, salt = 0): () => number {
  let a = (hash.readUInt32LE(0) ^ hash.readUInt32LE(4) ^ salt) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Text as XML character data: markup characters as references, and what XML 1.0
 * cannot hold at all (C0 controls but tab, LF and CR; lone surrogates; U+FFFE,
 * U+FFFF) as U+FFFD, so any prompt renders.
 */
export const escapeXml = (s: string) =>
  s.replace(/[&<>"']|[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, (c) => (c.length === 1 && `&<>"'`.includes(c) ? `&#${c.charCodeAt(0)};` : "\uFFFD"));

function hsl(h: number, s: number, l: number): string {
  return `hsl(${Math.round(((h % 360) + 360) % 360)},${Math.round(s)}%,${Math.round(l)}%)`;
}

/** Splits text into at most `lines` lines of at most `width` characters; "…" marks a cut. */
export function wrapText(text: string, width: number, lines: number): string[] {
  const words = text
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => (w.length > width ? w.slice(0, width - 1) + "…" : w));
  const out: string[] = [];
  let cur = "";
  let i = 0;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (!cur) cur = w;
    else if (cur.length + 1 + w.length <= width) cur += " " + w;
    else {
      out.push(cur);
      cur = w;
      if (out.length === lines) break;
    }
  }
  if (i === words.length && cur) out.push(cur);
  if (i < words.length && out.length) {
    const last = out[out.length - 1]!;
    out[out.length - 1] = last.length < width ? last + "…" : last.slice(0, width - 1) + "…";
  }
  return out;
}

const SHAPES: Record<string, number> = { low: 6, standard: 9, medium: 9, auto: 9, high: 14, hd: 14 };

export function artSvg(spec: ArtSpec): string {
  const { width: w, height: h } = spec;
  const hash = artHash(spec.prompt, spec.seed, spec.index);
  const rnd = prng(hash, 1);
  const sat = spec.style === "natural" ? 38 : 78;
  const hue = (hash[2]! / 256) * 360;
  const palette = [0, 35 + rnd() * 40, 150 + rnd() * 60, 220 + rnd() * 60].map((d, i) => hsl(hue + d, sat + rnd() * 15, 32 + i * 9 + rnd() * 12));
  const angle = Math.round(rnd() * 360);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">`);
  parts.push(
    `<defs><linearGradient id="bg" gradientTransform="rotate(${angle} .5 .5)"><stop offset="0" stop-color="${palette[0]}"/><stop offset="1" stop-color="${palette[3]}"/></linearGradient>` +
      `<radialGradient id="glow" cx="${(0.2 + rnd() * 0.6).toFixed(3)}" cy="${(0.2 + rnd() * 0.6).toFixed(3)}" r="${(0.35 + rnd() * 0.4).toFixed(3)}"><stop offset="0" stop-color="${palette[1]}" stop-opacity="0.85"/><stop offset="1" stop-color="${palette[1]}" stop-opacity="0"/></radialGradient></defs>`,
  );
  if (!spec.transparent) parts.push(`<rect width="${w}" height="${h}" fill="url(#bg)"/><rect width="${w}" height="${h}" fill="url(#glow)"/>`);
  const count = SHAPES[spec.quality] ?? 9;
  const m = Math.min(w, h);
  for (let i = 0; i < count; i++) {
    const fill = palette[1 + Math.floor(rnd() * 3)]!;
    const op = (0.45 + rnd() * 0.45).toFixed(2);
    const x = rnd() * w;
    const y = rnd() * h;
    const s = m * (0.08 + rnd() * 0.25);
    const kind = Math.floor(rnd() * 3);
    if (kind === 0) parts.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${s.toFixed(1)}" fill="${fill}" fill-opacity="${op}"/>`);
    else if (kind === 1)
      parts.push(
        `<rect x="${(x - s).toFixed(1)}" y="${(y - s / 2).toFixed(1)}" width="${(2 * s).toFixed(1)}" height="${s.toFixed(1)}" rx="${(s / 6).toFixed(1)}" fill="${fill}" fill-opacity="${op}" transform="rotate(${Math.round(rnd() * 180)} ${x.toFixed(1)} ${y.toFixed(1)})"/>`,
      );
    else {
      const pts = [0, 1, 2].map((k) => {
        const a = rnd() * Math.PI * 2 + (k * Math.PI * 2) / 3;
        return `${(x + Math.cos(a) * s).toFixed(1)},${(y + Math.sin(a) * s).toFixed(1)}`;
      });
      parts.push(`<polygon points="${pts.join(" ")}" fill="${fill}" fill-opacity="${op}"/>`);
    }
  }
  const fontSize = Math.max(10, Math.round(m / 16));
  const lines = wrapText(spec.prompt, Math.max(8, Math.floor(w / (fontSize * 0.6))), 3);
  lines.forEach((line, i) => {
    const y = h - fontSize * (lines.length - i) - fontSize * 0.4;
    parts.push(
      `<text x="${Math.round(fontSize * 0.6)}" y="${Math.round(y + fontSize)}" font-family="DejaVu Sans, Arial, sans-serif" font-size="${fontSize}" fill="#ffffff" stroke="#000000" stroke-width="${Math.max(1, fontSize / 14).toFixed(1)}" paint-order="stroke">${escapeXml(line)}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("");
}
