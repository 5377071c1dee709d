// The tRPC router for typed frontends. Procedures call the core through the
// same clients and call pipeline as everything else.
import { z } from "zod";
import { Capability } from "../../gen/omnigate/model/v1/model_pb.js";
import { FinishReason } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { adminRouter } from "./admin-router.js";
import { chatGenerateInput } from "./chat-input.js";
import { chatStream, toChatInput } from "./chat-stream.js";
import { imageBotRouter } from "./image-bot-router.js";
import { imagesRouter, videoRouter } from "./media-router.js";
import { core, t } from "./trpc.js";

const CAPABILITIES = { chat: Capability.CHAT, image: Capability.IMAGE, "image-bot": Capability.IMAGE_BOT, video: Capability.VIDEO, embedding: Capability.EMBEDDING } as const;

const FINISH_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(FinishReason)
    .filter(([, v]) => typeof v === "number")
    .map(([k, v]) => [v as number, k.toLowerCase()]),
);

export const appRouter = t.router({
  admin: adminRouter,
  models: t.router({
    list: t.procedure.input(z.object({ capability: z.enum(["chat", "image", "image-bot", "video", "embedding"]).optional() }).optional()).query(async ({ input, ctx }) => {
      const res = await core(() => ctx.clients.models.listModels({ capability: input?.capability ? CAPABILITIES[input.capability] : Capability.UNSPECIFIED }, ctx.call));
      return res.models.map((m) => ({
        id: m.id,
        displayName: m.displayName,
        ownedBy: m.ownedBy,
        provider: m.provider,
        capabilities: m.capabilities.map((c) => Capability[c].toLowerCase()),
      }));
    }),
  }),
  chat: t.router({
    generate: t.procedure.input(chatGenerateInput).mutation(async ({ input, ctx }) => {
      const chatInput = toChatInput(input);
      const res = await core(() => ctx.clients.chat.generate({ input: chatInput }, ctx.call));
      const cand = res.candidates[0];
      return {
        id: res.id,
        model: res.model,
        text: (cand?.parts ?? []).flatMap((p) => (p.kind.case === "text" ? [p.kind.value.text] : [])).join(""),
        finishReason: FINISH_NAMES[cand?.finishReason ?? FinishReason.UNSPECIFIED] ?? "unspecified",
        usage: { inputTokens: Number(res.usage?.inputTokens ?? 0n), outputTokens: Number(res.usage?.outputTokens ?? 0n) },
      };
    }),
    /** The answer as it is generated: start, text (and thinking) deltas, usage, finish. */
    stream: t.procedure.input(chatGenerateInput).subscription(({ input, ctx, signal }) => chatStream(ctx, input, signal)),
  }),
  imageBot: imageBotRouter,
  images: imagesRouter,
  videos: videoRouter,
});

export type AppRouter = typeof appRouter;
