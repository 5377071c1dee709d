// Runs image-bot tasks for the task runner: loads the inputs and the parent's
// image, hands the job to the provider of the task's account, stores previews
// and the result in the blob store, and fills in the buttons.
import { ConnectError } from "@connectrpc/connect";
import type { ImageBotButton, ImageBotJob, ImageBotOutput } from "../ports.js";
import { isChannelFault } from "../routing/channel-state.js";
import { TaskFailure, type ExecContext, type TaskHandler } from "../tasks/types.js";
import { describeButtons, gridButtons, shortenButtons, upscaleButtons } from "./buttons.js";
import { parseCustomId, rehash } from "./custom-id.js";
import type { ImageBotDeps } from "./deps.js";
import { IMAGE_BOT_KIND, toProtoTask, type ImageBotPayload, type ImageBotTask } from "./model.js";

/** The buttons of a local result, by what the operation produced. */
export function localButtons(p: ImageBotPayload, out: ImageBotOutput): ImageBotButton[] {
  switch (p.operation.kind) {
    case "describe":
      return describeButtons(out.prompts?.length ?? 0);
    case "shorten":
      return shortenButtons(out.prompts?.length ?? 0);
    case "swap_face":
      return [];
    case "upscale":
      return upscaleButtons(p.hash, true);
    case "upscale_2x":
      return upscaleButtons(p.hash, false);
    default:
      return out.image?.grid ? gridButtons(p.hash) : out.image ? upscaleButtons(p.hash, false) : [];
  }
}

/** The upstream's buttons the gateway understands, re-hashed to this task, and the way back to the upstream's ids. */
export function relayButtons(hash: string, upstream: ImageBotButton[]): { buttons: ImageBotButton[]; map: Record<string, string> } {
  const buttons: ImageBotButton[] = [];
  const map: Record<string, string> = {};
  for (const b of upstream) {
    const parsed = parseCustomId(b.customId);
    const ours = parsed ? rehash(b.customId, parsed.hash === undefined ? "" : hash) : undefined;
    if (!ours || map[ours]) continue;
    map[ours] = b.customId;
    buttons.push({ ...b, customId: ours });
  }
  return { buttons, map };
}

function failure(err: unknown): TaskFailure {
  if (err instanceof TaskFailure) return err;
  if (err instanceof ConnectError) return new TaskFailure(err.rawMessage.startsWith("failed: ") ? err.rawMessage : `failed: ${err.rawMessage}`);
  return new TaskFailure("failed: internal error in the image engine");
}

export function imageBotHandler(deps: ImageBotDeps): TaskHandler<ImageBotPayload> {
  const { files, pool } = deps;

  const buildJob = async (task: ImageBotTask): Promise<ImageBotJob> => {
    const p = task.payload;
    const job: ImageBotJob = {
      taskId: task.id,
      operation: p.operation,
      prompt: p.promptEn || p.prompt,
      botType: p.botType,
      seed: p.seed,
      inputs: await Promise.all(p.inputs.map((id) => files.read(id))),
      ...(p.upstreamCustomId ? { upstreamCustomId: p.upstreamCustomId } : {}),
      ...(p.upstream ? { resume: p.upstream } : {}),
    };
    if (p.mask) job.mask = await files.read(p.mask);
    if (p.parentId) {
      const parent = await deps.runner.get<ImageBotPayload>(p.parentId);
      if (!parent) throw new TaskFailure(`failed: the parent task ${p.parentId} no longer exists`);
      const pp = parent.payload;
      job.parent = { prompt: pp.promptEn || pp.prompt, seed: pp.seed };
      if (pp.result && p.operation.kind !== "describe") job.parent.image = await files.read(pp.result.fileId);
      const upstreamId = pp.upstream?.taskId;
      if (typeof upstreamId === "string") job.parent.upstreamTaskId = upstreamId;
    }
    return job;
  };

  return {
    kind: IMAGE_BOT_KIND,

    async execute(task: ImageBotTask, ctx: ExecContext<ImageBotPayload>): Promise<ImageBotPayload> {
      let payload = task.payload;
      const account = pool.get(payload.accountId);
      if (!account) throw new TaskFailure(`failed: account ${payload.accountId} no longer exists`);
      const owner = task.ownerKeyId;
      try {
        const job = await buildJob(task);
        const provider = deps.provider(account);
        const out = await provider.run(job, {
          signal: ctx.signal,
          progress: async (percent, preview) => {
            if (preview) payload = { ...payload, previewFileId: await files.put(preview.data, { mimeType: preview.mimeType, kind: "image-bot", ownerKeyId: owner }) };
            payload = (await ctx.progress(percent, payload)).payload;
          },
          save: async (state) => {
            payload = { ...payload, upstream: { ...payload.upstream, ...state } };
            payload = (await ctx.save(payload)).payload;
          },
        });
        const next: ImageBotPayload = { ...payload, properties: { ...payload.properties, finalPrompt: out.finalPrompt ?? payload.promptEn ?? payload.prompt, ...out.properties } };
        if (out.image) {
          const fileId = await files.put(out.image.data, { mimeType: out.image.mimeType, kind: "image-bot", ownerKeyId: owner });
          next.result = { fileId, mimeType: out.image.mimeType, width: out.image.width, height: out.image.height, grid: out.image.grid };
        }
        if (out.prompts) next.prompts = out.prompts;
        if (out.upstreamButtons) {
          const relayed = relayButtons(payload.hash, out.upstreamButtons);
          next.buttons = relayed.buttons;
          next.upstreamButtons = relayed.map;
        } else next.buttons = localButtons(payload, out);
        return next;
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        const f = failure(err);
        await pool.recordError(payload.accountId, f.message);
        if (err instanceof ConnectError && isChannelFault(err)) deps.channels?.recordError(account.channel, err);
        throw f;
      }
    },

    resume: () => true,

    callbackBody(task) {
      if (!deps.callbackBody) return undefined;
      const base = (deps.settings.publicUrl ?? "").replace(/\/+$/, "") || task.payload.urlBase || "";
      return deps.callbackBody(toProtoTask(task, (id) => files.url(id, base), pool.get(task.payload.accountId)?.instanceId ?? ""));
    },
  };
}
