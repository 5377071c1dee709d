// Describe in the local engine: four prompts derived from the image's real
// properties (dominant colour, brightness, contrast, aspect ratio).
import { DECODE_LIMIT } from "../../../core/pixel-limit.js";
import { loadSharp } from "../../../lib/sharp.js";
import { ratioOf } from "./params.js";

export interface ImageFacts {
  width: number;
  height: number;
  /** Dominant colour name ("deep blue"). */
  colour: string;
  /** 0..255. */
  brightness: number;
  /** Standard deviation of luminance, 0..128. */
  contrast: number;
}

const HUES: [number, string][] = [
  [15, "red"],
  [45, "orange"],
  [70, "yellow"],
  [160, "green"],
  [200, "teal"],
  [255, "blue"],
  [290, "purple"],
  [335, "magenta"],
  [360, "red"],
];

/** A plain-English name for an RGB colour. */
export function colourName(r: number, g: number, b: number): string {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2 / 255;
  const s = max === min ? 0 : (max - min) / 255 / (1 - Math.abs(2 * l - 1) || 1);
  if (s < 0.15) return l > 0.8 ? "white" : l < 0.2 ? "black" : "grey";
  let h = 0;
  if (max === r) h = (((g - b) / (max - min)) * 60 + 360) % 360;
  else if (max === g) h = ((b - r) / (max - min)) * 60 + 120;
  else h = ((r - g) / (max - min)) * 60 + 240;
  const name = HUES.find(([limit]) => h < limit)?.[1] ?? "red";
  return l < 0.3 ? `deep ${name}` : l > 0.7 ? `pale ${name}` : name;
}

export async function imageFacts(bytes: Uint8Array): Promise<ImageFacts> {
  const img = (await loadSharp())(bytes, DECODE_LIMIT);
  const meta = await img.metadata();
  const stats = await img.stats();
  const [r, g, b] = [stats.channels[0]!, stats.channels[1] ?? stats.channels[0]!, stats.channels[2] ?? stats.channels[0]!];
  const brightness = 0.299 * r.mean + 0.587 * g.mean + 0.114 * b.mean;
  const contrast = 0.299 * r.stdev + 0.587 * g.stdev + 0.114 * b.stdev;
  const d = stats.dominant;
  return { width: meta.width ?? 0, height: meta.pageHeight ?? meta.height ?? 0, colour: colourName(d.r, d.g, d.b), brightness, contrast };
}

/** Four prompts describing the image, each with its aspect ratio. */
export function describePrompts(f: ImageFacts): string[] {
  const light = f.brightness > 170 ? "bright, airy" : f.brightness < 85 ? "dark, moody" : "softly lit";
  const mood = f.contrast > 60 ? "high-contrast" : f.contrast < 25 ? "low-contrast, hazy" : "balanced";
  const shape = f.width > f.height * 1.2 ? "wide landscape composition" : f.height > f.width * 1.2 ? "tall portrait composition" : "square composition";
  const ar = `--ar ${ratioOf(f.width, f.height)}`;
  return [
    `a ${light} scene dominated by ${f.colour} tones, ${shape}, ${mood} lighting ${ar}`,
    `abstract ${f.colour} shapes and gradients, ${mood}, ${light} atmosphere, digital art ${ar}`,
    `a ${shape} in shades of ${f.colour}, ${light}, minimalist poster style ${ar}`,
    `${f.colour} colour study, ${mood} light and shadow, textured, ${light} ${ar}`,
  ];
}

const NUMBERS = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣"];

/** properties.finalPrompt of a describe or shorten result: numbered prompts separated by blank lines. */
export function numbered(prompts: string[]): string {
  return prompts.map((p, i) => `${NUMBERS[i] ?? `${i + 1}.`} ${p}`).join("\n\n");
}
