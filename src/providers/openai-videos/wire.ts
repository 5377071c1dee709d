// The OpenAI Videos API as an upstream answers it (openai@6.49 `Video`), read
// leniently: unknown fields pass, and only what the provider uses is checked.
import { z } from "zod";

export const VIDEO_STATUSES = ["queued", "in_progress", "completed", "failed"] as const;

export const video = z
  .object({
    id: z.string().min(1),
    object: z.string().optional(),
    status: z.string(),
    progress: z.number().nullish(),
    model: z.string().nullish(),
    seconds: z.union([z.string(), z.number()]).nullish(),
    size: z.string().nullish(),
    remixed_from_video_id: z.string().nullish(),
    error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).passthrough().nullish(),
  })
  .passthrough();

export type Video = z.infer<typeof video>;

export const errorBody = z
  .object({
    error: z.object({ message: z.string().nullish(), type: z.string().nullish(), code: z.string().nullish(), param: z.string().nullish() }).passthrough(),
  })
  .passthrough();

export type Variant = "video" | "thumbnail" | "spritesheet";
