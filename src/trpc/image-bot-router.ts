// Image-bot tasks for typed frontends (the console's playground and task
// detail): imagine, read one task with its buttons, run a button, confirm a
// modal, cancel. The core decides what a key may see: its own tasks, or every
// task for an admin key.
import { z } from "zod";
import { Action, BotType, type SubmitResult, type Task } from "../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { taskView } from "./admin-tasks-router.js";
import { core, t } from "./trpc.js";

/** Base64 of an image, at most 4 MiB decoded (the core checks the bytes). */
const imageData = z.object({ data: z.string().min(1).max(5_600_000), mimeType: z.string().min(1).max(100) });

export function taskDetailView(x: Task) {
  return {
    ...taskView(x),
    customId: x.customId,
    seed: x.seed,
    imageUrls: x.imageUrls,
    /** actionDetail (e.g. CUSTOM_ZOOM, INPAINT: what a MODAL task waits for), finalPrompt, ... */
    properties: (x.properties ?? {}) as Record<string, unknown>,
    buttons: x.buttons.map((b) => ({ customId: b.customId, emoji: b.emoji, label: b.label, style: b.style })),
  };
}

/** 1 submitted (or waiting in MODAL), 22 queued, 24 no account available: the image-bot envelope codes. */
export function submitView(r: SubmitResult) {
  return { code: r.code, description: r.description, taskId: r.taskId, properties: (r.properties ?? {}) as Record<string, unknown> };
}

export const imageBotRouter = t.router({
  imagine: t.procedure.input(z.object({ prompt: z.string().min(1).max(8192), botType: z.enum(["PRIMARY_BOT", "ANIME_BOT"]).default("PRIMARY_BOT") })).mutation(async ({ input, ctx }) => {
    const res = await core(() => ctx.clients.imageBot.submitTask({ action: Action.IMAGINE, prompt: input.prompt, botType: BotType[input.botType] }, ctx.call));
    return submitView(res.result!);
  }),
  get: t.procedure.input(z.object({ id: z.string().min(1).max(128) })).query(async ({ input, ctx }) => {
    const res = await core(() => ctx.clients.imageBot.getTask({ id: input.id }, ctx.call));
    return taskDetailView(res.task!);
  }),
  action: t.procedure.input(z.object({ taskId: z.string().min(1).max(128), customId: z.string().min(1).max(500) })).mutation(async ({ input, ctx }) => {
    const res = await core(() => ctx.clients.imageBot.submitAction({ taskId: input.taskId, customId: input.customId }, ctx.call));
    return submitView(res.result!);
  }),
  modal: t.procedure.input(z.object({ taskId: z.string().min(1).max(128), prompt: z.string().max(8192).default(""), mask: imageData.optional() })).mutation(async ({ input, ctx }) => {
    const mask = input.mask ? { filename: "mask", mimeType: input.mask.mimeType, source: { case: "data" as const, value: new Uint8Array(Buffer.from(input.mask.data, "base64")) } } : undefined;
    const res = await core(() => ctx.clients.imageBot.submitModal({ taskId: input.taskId, prompt: input.prompt, ...(mask ? { mask } : {}) }, ctx.call));
    return submitView(res.result!);
  }),
  cancel: t.procedure.input(z.object({ id: z.string().min(1).max(128) })).mutation(async ({ input, ctx }) => {
    const res = await core(() => ctx.clients.imageBot.cancelTask({ id: input.id }, ctx.call));
    return taskDetailView(res.task!);
  }),
});
