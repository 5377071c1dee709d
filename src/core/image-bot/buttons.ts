// The buttons a finished task offers, by what it produced. Pure.
import type { ImageBotButton } from "../ports.js";
import { formatCustomId, type ButtonAction } from "./custom-id.js";

export const UPSCALE_VERSION = "v6";

const button = (action: ButtonAction, hash: string, label: string, emoji = "", style = 2): ImageBotButton => ({
  customId: formatCustomId(action, hash),
  emoji,
  label,
  style,
  type: 2,
});

const NUMBERS = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣"];

/** After a grid: U1-U4, reroll, V1-V4. */
export function gridButtons(hash: string): ImageBotButton[] {
  return [
    ...[1, 2, 3, 4].map((i) => button({ kind: "upsample", index: i }, hash, `U${i}`)),
    button({ kind: "reroll" }, hash, "", "🔄"),
    ...[1, 2, 3, 4].map((i) => button({ kind: "variation", index: i }, hash, `V${i}`)),
  ];
}

/** After an upscale: upscale subtle/creative (only from a grid's Un), vary, vary region, zooms, pans. */
export function upscaleButtons(hash: string, canUpscaleAgain: boolean): ImageBotButton[] {
  return [
    ...(canUpscaleAgain
      ? [
          button({ kind: "upscale_2x", mode: "subtle", version: UPSCALE_VERSION }, hash, "Upscale (Subtle)"),
          button({ kind: "upscale_2x", mode: "creative", version: UPSCALE_VERSION }, hash, "Upscale (Creative)"),
        ]
      : []),
    button({ kind: "low_variation" }, hash, "Vary (Subtle)", "🪄"),
    button({ kind: "high_variation" }, hash, "Vary (Strong)", "🪄"),
    button({ kind: "inpaint" }, hash, "Vary (Region)", "🖌️"),
    button({ kind: "outpaint", zoom: 50 }, hash, "Zoom Out 2x", "🔍"),
    button({ kind: "outpaint", zoom: 75 }, hash, "Zoom Out 1.5x", "🔍"),
    button({ kind: "custom_zoom" }, hash, "Custom Zoom", "🔍"),
    button({ kind: "pan", direction: "left" }, hash, "", "⬅️"),
    button({ kind: "pan", direction: "right" }, hash, "", "➡️"),
    button({ kind: "pan", direction: "up" }, hash, "", "⬆️"),
    button({ kind: "pan", direction: "down" }, hash, "", "⬇️"),
  ];
}

/** After describe: imagine one of the four prompts (through MODAL), or describe again. */
export function describeButtons(count: number): ImageBotButton[] {
  return [...NUMBERS.slice(0, Math.min(4, count)).map((emoji, i) => button({ kind: "pic_reader", index: i + 1 }, "", "", emoji)), button({ kind: "picread_retry" }, "", "", "🔄")];
}

/** After shorten: imagine one of the shortened prompts (through MODAL). */
export function shortenButtons(count: number): ImageBotButton[] {
  return NUMBERS.slice(0, Math.min(5, count)).map((emoji, i) => button({ kind: "prompt_analyzer", index: i + 1 }, "", "", emoji));
}
