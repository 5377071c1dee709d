// The midjourney-proxy upstream as an image-bot provider: submit (and confirm
// the modal an action asks for), poll until the upstream task ends (a callback
// from the upstream only wakes the poller early), and download the result so
// the gateway re-hosts it: clients never see the upstream's expiring links.
import { Code, ConnectError } from "@connectrpc/connect";
import { loadSharp } from "../../lib/sharp.js";
import type { ImageBotJob, ImageBotOutput, ImageBotProvider, ImageBotRunContext } from "../../core/ports.js";
import type { UpstreamLogger } from "../shared/log.js";
import type { MidjourneyClient } from "./client.js";
import { fromVendorButtons, fromVendorSubmit, fromVendorTask, isGridResult, splitPrompts, toVendorModal, toVendorSubmit } from "./translate.js";
import * as wire from "./wire.js";

export interface MidjourneyProviderOptions {
  pollIntervalMs: number;
  /** Consecutive failed polls before the task fails. */
  maxPollErrors?: number;
  /** The URL the upstream may call back when a task changes (wakes the poller); none when the gateway is not reachable. */
  notifyUrl?: string | undefined;
  /** Where the upstream's own refusal and failure texts go (never to the client). */
  log?: UpstreamLogger;
}

export interface MidjourneyProvider extends ImageBotProvider {
  /** Polls the upstream task now (its callback arrived). */
  wake(upstreamTaskId: string): void;
}

const fail = (message: string) => new ConnectError(`failed: ${message}`, Code.Internal);

function parse<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }, v: unknown, what: string): T {
  const r = schema.safeParse(v);
  if (!r.success) throw new ConnectError(`the midjourney upstream answered an unexpected ${what}`, Code.Unavailable);
  return r.data;
}

export function midjourneyProvider(client: MidjourneyClient, opts: MidjourneyProviderOptions): MidjourneyProvider {
  const wakers = new Map<string, () => void>();
  const maxErrors = opts.maxPollErrors ?? 10;
  const logged = (what: string, detail: string) => opts.log?.warn({ channel: client.channel, upstream: "midjourney", detail }, what);

  const pause = (id: string, ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const done = () => {
        clearTimeout(timer);
        wakers.delete(id);
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        clearTimeout(timer);
        wakers.delete(id);
        reject(signal.reason);
      };
      const timer = setTimeout(done, ms);
      wakers.set(id, done);
      signal.addEventListener("abort", onAbort, { once: true });
    });

  const submit = async (job: ImageBotJob, signal: AbortSignal): Promise<string> => {
    let req;
    try {
      req = toVendorSubmit(job, opts.notifyUrl);
    } catch (err) {
      throw fail((err as Error).message);
    }
    const first = fromVendorSubmit(parse(wire.submitResult, await client.post(req.path, req.body, signal), "submit answer"), job.prompt);
    if ("refused" in first) {
      logged("upstream refused a task", first.detail);
      throw fail(first.refused);
    }
    if ("accepted" in first) return first.accepted;
    const modal = toVendorModal(job, first.modal);
    const second = fromVendorSubmit(parse(wire.submitResult, await client.post(modal.path, modal.body, signal), "modal answer"), job.prompt);
    if ("refused" in second) {
      logged("upstream refused a task", second.detail);
      throw fail(second.refused);
    }
    return "accepted" in second ? second.accepted : second.modal;
  };

  const finish = async (job: ImageBotJob, task: wire.VendorTask, signal: AbortSignal): Promise<ImageBotOutput> => {
    const finalPrompt = typeof task.properties?.finalPrompt === "string" ? task.properties.finalPrompt : undefined;
    const out: ImageBotOutput = { upstreamButtons: fromVendorButtons(task), ...(finalPrompt ? { finalPrompt } : {}) };
    if (finalPrompt && (job.operation.kind === "describe" || job.operation.kind === "shorten")) out.prompts = splitPrompts(finalPrompt);
    if (task.imageUrl && job.operation.kind !== "shorten") {
      const img = await client.download(task.imageUrl, signal);
      const meta = await (
        await loadSharp()
      )(img.data)
        .metadata()
        .catch(() => undefined);
      if (!meta?.format) throw fail("the upstream's result is not an image");
      out.image = { data: img.data, mimeType: `image/${meta.format === "jpeg" ? "jpeg" : meta.format}`, width: meta.width ?? 0, height: meta.pageHeight ?? meta.height ?? 0, grid: isGridResult(job) };
    } else if (job.operation.kind !== "shorten" && job.operation.kind !== "describe") {
      throw fail("the upstream finished without an image");
    }
    return out;
  };

  return {
    kind: "midjourney",

    async run(job: ImageBotJob, ctx: ImageBotRunContext): Promise<ImageBotOutput> {
      let upstreamId = typeof job.resume?.taskId === "string" ? job.resume.taskId : "";
      if (!upstreamId) {
        if (job.resume?.phase === "submitting") throw fail("the gateway restarted while submitting to the upstream; it may or may not have been accepted there");
        await ctx.save({ phase: "submitting", channel: client.channel });
        upstreamId = await submit(job, ctx.signal);
        await ctx.save({ phase: "submitted", taskId: upstreamId });
      }
      let errors = 0;
      let lastPreview = "";
      for (;;) {
        let state;
        try {
          const raw = await client.get(`/task/${encodeURIComponent(upstreamId)}/fetch`, ctx.signal);
          state = fromVendorTask(parse(wire.task, raw, "task"));
          errors = 0;
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          // Only the gateway's own words: a library's error text (a broken socket) stays out of failReason.
          if (++errors >= maxErrors) throw fail(`the upstream task ${upstreamId} could not be polled: ${err instanceof ConnectError ? err.rawMessage : "the connection failed"}`);
          await pause(upstreamId, opts.pollIntervalMs * Math.min(8, 2 ** errors), ctx.signal);
          continue;
        }
        if (state.state === "failure") {
          logged("upstream task failed", state.detail);
          throw fail(state.reason);
        }
        if (state.state === "success") return finish(job, state.task, ctx.signal);
        let preview;
        if (state.imageUrl && state.imageUrl !== lastPreview) {
          lastPreview = state.imageUrl;
          preview = await client.download(state.imageUrl, ctx.signal).catch(() => undefined);
          if (preview && !preview.mimeType.startsWith("image/")) preview = undefined;
        }
        await ctx.progress(Math.min(99, state.progress), preview);
        await pause(upstreamId, opts.pollIntervalMs, ctx.signal);
      }
    },

    async seed(upstreamTaskId: string, signal: AbortSignal): Promise<string> {
      const r = parse(wire.submitResult, await client.get(`/task/${encodeURIComponent(upstreamTaskId)}/image-seed`, signal), "seed answer");
      if (r.code !== 1 || r.result === null || r.result === undefined) throw new ConnectError(`the upstream has no seed for this task (code ${r.code})`, Code.FailedPrecondition);
      return String(r.result);
    },

    wake(upstreamTaskId: string) {
      wakers.get(upstreamTaskId)?.();
    },
  };
}
