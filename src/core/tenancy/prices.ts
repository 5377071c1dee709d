// The price table: turns usage into credits. Pure. Rules are matched by model
// glob, first match wins; no matching rule means free.
import { z } from "zod";
import { globMatch } from "../routing/glob.js";

export const priceSchema = z
  .object({
    /** Chat, credits per million tokens, by model glob. */
    chat: z
      .array(
        z
          .object({
            model: z.string().min(1),
            input: z.number().min(0).default(0),
            output: z.number().min(0).default(0),
            cacheRead: z.number().min(0).optional(),
            cacheWrite: z.number().min(0).optional(),
            /** Flat credits per request. */
            request: z.number().min(0).default(0),
          })
          .strict(),
      )
      .default([]),
    /** Images, credits per image by model glob, optionally per size and quality. */
    images: z.array(z.object({ model: z.string().min(1), size: z.string().optional(), quality: z.string().optional(), perImage: z.number().min(0) }).strict()).default([]),
    /** Image-bot tasks, credits per action (IMAGINE, UPSCALE, ...); "*" is the default. */
    imageBot: z.record(z.string(), z.number().min(0)).default({}),
    /** Video, credits per second of video by model glob. */
    video: z.array(z.object({ model: z.string().min(1), perSecond: z.number().min(0) }).strict()).default([]),
  })
  .strict();

export type PriceTable = z.infer<typeof priceSchema>;

export const EMPTY_PRICES: PriceTable = { chat: [], images: [], imageBot: {}, video: [] };

export interface ChatUsageForPrice {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export function chatCost(p: PriceTable, model: string, u: ChatUsageForPrice): number {
  const r = p.chat.find((x) => globMatch(x.model, model));
  if (!r) return 0;
  const m = 1_000_000;
  return (
    r.request +
    (u.inputTokens * r.input) / m +
    (u.outputTokens * r.output) / m +
    ((u.cacheReadTokens ?? 0) * (r.cacheRead ?? r.input)) / m +
    ((u.cacheWriteTokens ?? 0) * (r.cacheWrite ?? r.input)) / m
  );
}

export function imageCost(p: PriceTable, model: string, size: string, quality: string, n: number): number {
  const r = p.images.find((x) => globMatch(x.model, model) && (!x.size || x.size === size) && (!x.quality || x.quality === quality));
  return r ? r.perImage * n : 0;
}

export function imageBotCost(p: PriceTable, action: string): number {
  return p.imageBot[action] ?? p.imageBot["*"] ?? 0;
}

export function videoCost(p: PriceTable, model: string, seconds: number): number {
  const r = p.video.find((x) => globMatch(x.model, model));
  return r ? r.perSecond * seconds : 0;
}
