// The built-in local image engine: real images of the requested size and
// format, deterministic for a prompt and seed, with no keys and no network.
// It imitates the profiles' behaviour: IMG_MODEL_B rewrites prompts,
// IMG_MODEL_C reports token usage, the GPT image profiles stream partial
// images (preview.ts), and blocklisted words are refused like a safety system
// would.
import { Code } from "@connectrpc/connect";
import { coreError } from "../../../core/errors.js";
import type { ImageJob, ImageProvider, ImageResult, ImageStreamEvent, ProducedImage } from "../../../core/ports.js";
import type { ArtSpec } from "./art.js";
import { editImage } from "./edit.js";
import { preview, previewFactor } from "./preview.js";
import { revisePrompt } from "./prompt-rewrite.js";
import { encode, renderArt, type RawImage } from "./render.js";
import { imageUsage } from "./usage.js";
import { varyImage } from "./variation.js";

export interface LocalImageOptions {
  /** Words that make the engine refuse a prompt (safety simulation). */
  blocklist: string[];
}

/** Profiles whose outputs are always PNG (the older models have no output_format). */
const PNG_ONLY = new Set(["IMG_MODEL_A", "IMG_MODEL_B"]);

export function localImageProvider(opts: LocalImageOptions): ImageProvider {
  const blocked = (prompt: string) => {
    const p = prompt.toLowerCase();
    return opts.blocklist.some((w) => p.includes(w.toLowerCase()));
  };

  /** Checks the prompt; what every image of the job shares. */
  const begin = (job: ImageJob) => {
    if (job.prompt && blocked(job.prompt)) {
      throw coreError(Code.InvalidArgument, "Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.", {
        reason: "moderation_blocked",
        metadata: { code: "moderation_blocked" },
      });
    }
    const revised = job.profile === "IMG_MODEL_B" ? revisePrompt(job.prompt, job.style, job.quality) : undefined;
    const format = PNG_ONLY.has(job.profile) ? "png" : job.outputFormat;
    return { revised, format };
  };

  const draw = (job: ImageJob, index: number, revised: string | undefined): Promise<RawImage> => {
    const spec: ArtSpec = {
      prompt: revised ?? job.prompt,
      seed: job.seed ?? 0,
      index,
      width: job.width,
      height: job.height,
      transparent: job.background === "transparent",
      quality: job.quality,
      style: job.style,
    };
    return job.operation === "generate" ? renderArt(spec) : job.operation === "edit" ? editImage(job, spec) : varyImage(job, index);
  };

  const usageOf = (job: ImageJob) => (job.profile === "IMG_MODEL_C" ? imageUsage(job.prompt, job.images, { width: job.width, height: job.height, quality: job.quality, n: job.n }) : undefined);

  return {
    kind: "local",
    async run(job: ImageJob): Promise<ImageResult> {
      const { revised, format } = begin(job);
      const images: ProducedImage[] = [];
      for (let index = 0; index < job.n; index++) {
        const raw = await draw(job, index, revised);
        images.push({ data: await encode(raw, format, job.outputCompression), ...(revised ? { revisedPrompt: revised } : {}) });
      }
      return { images, usage: usageOf(job) };
    },
    async *stream(job: ImageJob): AsyncGenerator<ImageStreamEvent> {
      const { revised, format } = begin(job);
      const count = job.partialImages ?? 0;
      const images: ProducedImage[] = [];
      for (let imageIndex = 0; imageIndex < job.n; imageIndex++) {
        const raw = await draw(job, imageIndex, revised);
        for (let partialIndex = 0; partialIndex < count; partialIndex++) {
          yield { kind: "partial", imageIndex, partialIndex, data: await encode(await preview(raw, previewFactor(partialIndex, count)), format, job.outputCompression) };
        }
        images.push({ data: await encode(raw, format, job.outputCompression), ...(revised ? { revisedPrompt: revised } : {}) });
      }
      yield { kind: "result", result: { images, usage: usageOf(job) } };
    },
  };
}
