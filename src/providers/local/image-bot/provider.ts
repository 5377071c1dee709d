// The built-in image-bot engine: works with no keys. It computes the real
// result first, then lets progress advance over `taskMs` (OMNIGATE_LOCAL_TASK_MS)
// with a blurred preview half-way, as a remote bot would. A rerun after a
// restart gives the same result (everything is seeded by the job).
import { ConnectError, Code } from "@connectrpc/connect";
import { loadSharp } from "../../../lib/sharp.js";
import type { ImageBotJob, ImageBotOutput, ImageBotProvider, ImageBotRunContext } from "../../../core/ports.js";
import { describePrompts, imageFacts, numbered } from "./describe.js";
import { runImageOp } from "./ops.js";
import { png, resize, type RawImage } from "./raster.js";
import { shortenPrompt } from "./shorten.js";

export interface LocalImageBotOptions {
  /** Time from 0% to 100%. */
  taskMs: number;
  /** Long side of one grid image, in pixels. */
  tileSize: number;
}

const STEPS = [10, 25, 40, 55, 70, 85];
const PREVIEW_AT = 55;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });

async function preview(img: RawImage): Promise<Uint8Array> {
  const w = Math.max(8, Math.round(img.width / 4));
  const h = Math.max(8, Math.round(img.height / 4));
  const small = await resize(img, w, h, { blur: 2 });
  return (await loadSharp())(small.data, { raw: { width: w, height: h, channels: 4 } })
    .webp({ quality: 60 })
    .toBuffer();
}

async function compute(job: ImageBotJob, opts: LocalImageBotOptions): Promise<{ out: ImageBotOutput; raw?: RawImage }> {
  const op = job.operation;
  if (op.kind === "describe") {
    const input = job.inputs[0];
    if (!input) throw new ConnectError("describe needs an image", Code.InvalidArgument);
    const prompts = describePrompts(await imageFacts(input.data));
    const meta = await (await loadSharp())(input.data).metadata();
    return {
      out: {
        image: { data: input.data, mimeType: input.mimeType, width: meta.width ?? 0, height: meta.pageHeight ?? meta.height ?? 0, grid: false },
        prompts,
        finalPrompt: numbered(prompts),
      },
    };
  }
  if (op.kind === "shorten") {
    const s = shortenPrompt(job.prompt);
    return { out: { prompts: s.prompts, finalPrompt: s.text } };
  }
  const r = await runImageOp(job, opts.tileSize);
  return { out: { image: { data: await png(r.image), mimeType: "image/png", width: r.image.width, height: r.image.height, grid: r.grid } }, raw: r.image };
}

export function localImageBotProvider(opts: LocalImageBotOptions): ImageBotProvider {
  return {
    kind: "local",
    async run(job: ImageBotJob, ctx: ImageBotRunContext): Promise<ImageBotOutput> {
      let result: { out: ImageBotOutput; raw?: RawImage };
      try {
        result = await compute(job, opts);
      } catch (err) {
        if (err instanceof ConnectError) throw err;
        // The library's own text stays out of failReason (it rides along as the cause).
        throw new ConnectError("failed: the local engine could not process the images", Code.Internal, undefined, undefined, err);
      }
      const step = opts.taskMs / (STEPS.length + 1);
      for (const p of STEPS) {
        await sleep(step, ctx.signal);
        const pv = p === PREVIEW_AT && result.raw ? { data: await preview(result.raw), mimeType: "image/webp" } : undefined;
        await ctx.progress(p, pv);
      }
      await sleep(step, ctx.signal);
      return result.out;
    },
  };
}
