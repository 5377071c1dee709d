// What a remote gateway speaking /v1/video/generations answers: omnigate's own
// shape (spec 2.7: task_id, status processing|succeeded|failed, url, metadata,
// error) or new-api's OpenAI-style video object (id/task_id, status
// queued|in_progress|completed|failed, progress, metadata.url). Read leniently.
import { z } from "zod";

const id = z.union([z.string().min(1), z.number()]).transform(String);

export const submitted = z
  .object({ task_id: id.nullish(), id: id.nullish(), status: z.string().nullish() })
  .passthrough()
  .refine((v) => !!(v.task_id || v.id), { message: "no task id" });

export const task = z
  .object({
    task_id: id.nullish(),
    id: id.nullish(),
    status: z.string(),
    progress: z.union([z.number(), z.string()]).nullish(),
    url: z.string().nullish(),
    video_url: z.string().nullish(),
    format: z.string().nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
    error: z.union([z.object({ code: z.union([z.string(), z.number()]).nullish(), message: z.string().nullish() }).passthrough(), z.string()]).nullish(),
  })
  .passthrough();

export type Task = z.infer<typeof task>;

/** Error bodies: spec 7.6 `{code, message, param, type}` or OpenAI's `{error:{...}}`. */
export const errorBody = z.union([
  z.object({ error: z.object({ code: z.unknown().optional(), type: z.string().nullish(), message: z.string().nullish() }).passthrough() }).passthrough(),
  z.object({ code: z.unknown().optional(), type: z.string().nullish(), message: z.string().nullish() }).passthrough(),
]);
