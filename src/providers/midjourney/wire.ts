// What a midjourney-proxy upstream answers (notes/wire-formats.md D.1, D.2),
// read leniently: every field may be missing or null.
import { z } from "zod";

export const submitResult = z.object({
  code: z.number(),
  description: z.string().nullish(),
  result: z.union([z.string(), z.number()]).nullish(),
  properties: z.record(z.string(), z.unknown()).nullish(),
});

/** A 32-bit integer, as the neutral model holds it; any other value reads as absent. */
const int32 = z
  .number()
  .int()
  .gte(-(2 ** 31))
  .lte(2 ** 31 - 1)
  .nullish()
  .catch(undefined);

export const button = z.object({
  customId: z.string(),
  emoji: z.string().nullish(),
  label: z.string().nullish(),
  style: int32,
  type: int32,
});

export const task = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  action: z.string().nullish(),
  status: z.string().nullish(),
  progress: z.string().nullish(),
  imageUrl: z.string().nullish(),
  failReason: z.string().nullish(),
  prompt: z.string().nullish(),
  promptEn: z.string().nullish(),
  buttons: z.array(button).nullish(),
  properties: z.record(z.string(), z.unknown()).nullish(),
});

export type SubmitResult = z.infer<typeof submitResult>;
export type VendorTask = z.infer<typeof task>;
export type VendorButton = z.infer<typeof button>;
