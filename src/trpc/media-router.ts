// Image generation and videos for typed frontends (the console's playground
// and task detail), through ImageService and VideoService.
import { z } from "zod";
import { ResponseFormat } from "../../gen/omnigate/image/v1/image_pb.js";
import { videoView } from "./admin-tasks-router.js";
import { core, t } from "./trpc.js";

export const imagesRouter = t.router({
  generate: t.procedure
    .input(
      z.object({
        model: z.string().min(1).max(256).default("dall-e-2"),
        prompt: z.string().min(1).max(32_000),
        size: z.string().max(32).default(""),
        n: z.number().int().min(1).max(10).default(1),
        quality: z.string().max(32).default(""),
      }),
    )
    .mutation(async ({ input, ctx }) => {
      const res = await core(() =>
        ctx.clients.images.generateImages(
          { prompt: input.prompt, options: { model: input.model, n: input.n, size: input.size, quality: input.quality, responseFormat: ResponseFormat.URL } },
          ctx.call,
        ),
      );
      const b = res.batch!;
      return {
        model: b.model,
        channel: b.channel,
        size: b.size,
        images: b.images.map(({ file, revisedPrompt }) => ({ url: file!.url, mimeType: file!.mimeType, width: file!.width, height: file!.height, revisedPrompt })),
      };
    }),
});

export const videoRouter = t.router({
  create: t.procedure
    .input(
      z.object({
        model: z.string().min(1).max(256),
        prompt: z.string().min(1).max(32_000),
        seconds: z.number().int().min(1).max(60).optional(),
        size: z.string().max(32).default(""),
      }),
    )
    .mutation(async ({ input, ctx }) => {
      const res = await core(() => ctx.clients.video.createVideo({ model: input.model, prompt: input.prompt, duration: input.seconds ?? 0, size: input.size }, ctx.call));
      return videoView(res.video!);
    }),
  get: t.procedure.input(z.object({ id: z.string().min(1).max(128) })).query(async ({ input, ctx }) => {
    const res = await core(() => ctx.clients.video.getVideo({ id: input.id }, ctx.call));
    return videoView(res.video!);
  }),
  /** Stops a queued or rendering video (it stays, failed with code "cancelled"; the charge is refunded). */
  cancel: t.procedure.input(z.object({ id: z.string().min(1).max(128) })).mutation(async ({ input, ctx }) => {
    const res = await core(() => ctx.clients.video.cancelVideo({ id: input.id }, ctx.call));
    return videoView(res.video!);
  }),
});
