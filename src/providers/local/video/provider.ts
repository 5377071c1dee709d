// The built-in local video engine: real H.264 MP4 clips rendered by ffmpeg,
// whose frames follow from the prompt and seed (scene.ts), at exactly the
// asked size, fps and length, starting from the reference image when there is
// one. Progress advances over `taskMs` (OMNIGATE_LOCAL_TASK_MS) however fast
// the render is, so clients see a task run as they would upstream.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadSharp } from "../../../lib/sharp.js";
import { Code, coreError } from "../../../core/errors.js";
import { DECODE_LIMIT } from "../../../core/pixel-limit.js";
import { ffmpeg, MIME } from "../../../core/video/media.js";
import type { VideoJob, VideoOutput, VideoProvider, VideoRunContext } from "../../../core/ports.js";
import { faultDirective, faultError } from "../faults.js";
import { buildScene, captionText, renderArgs } from "./scene.js";

export interface LocalVideoOptions {
  /** Words that make the engine refuse a prompt (safety simulation). */
  blocklist: string[];
  /** How long a task takes at least, progress rising over it. */
  taskMs: number;
  /** Whether `#fault:<kind>` directives in a prompt refuse the job at submission. */
  faultInjection: boolean;
  /** Caption font; "" = the first installed of FONT_CANDIDATES (no caption when none is). */
  fontFile: string;
  /** Temporary directory for renders (os.tmpdir() by default). */
  tmpDir?: string;
}

export const FONT_CANDIDATES = [
  "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
  "/usr/share/fonts/dejavu/DejaVuSans.ttf",
  "/usr/share/fonts/TTF/DejaVuSans.ttf",
  "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
  "/Library/Fonts/Arial.ttf",
];

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(done, ms);
    function done() {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(t);
      reject(signal.reason);
    }
    signal.addEventListener("abort", onAbort, { once: true });
  });

export function localVideoProvider(opts: LocalVideoOptions): VideoProvider {
  const font = opts.fontFile || FONT_CANDIDATES.find((f) => existsSync(f)) || "";
  const blocked = (prompt: string) => {
    const p = prompt.toLowerCase();
    return opts.blocklist.some((w) => p.includes(w.toLowerCase()));
  };

  async function render(job: VideoJob, dir: string, signal: AbortSignal): Promise<Uint8Array> {
    const input = { prompt: job.prompt, seed: job.seed, width: job.width, height: job.height, fps: job.fps, duration: job.duration };
    const scene = buildScene(input);
    const files = { output: path.join(dir, "out.mp4"), captionFile: path.join(dir, "caption.txt"), fontFile: font || undefined, reference: undefined as string | undefined };
    await writeFile(files.captionFile, captionText(scene));
    if (job.reference?.data) {
      files.reference = path.join(dir, "reference.png");
      try {
        // At the frame's size (ffmpeg's scale and crop then change nothing): ffmpeg decodes the looped image again for every frame.
        await (await loadSharp())(job.reference.data, DECODE_LIMIT).resize(job.width, job.height, { fit: "cover" }).png().toFile(files.reference);
      } catch {
        throw coreError(Code.InvalidArgument, "The reference image could not be decoded.", { reason: "invalid_image", field: "input_reference" });
      }
    }
    await ffmpeg(renderArgs(input, scene, files), signal);
    return readFile(files.output);
  }

  return {
    kind: "local",
    admit(prompt) {
      const fault = opts.faultInjection ? faultDirective(prompt) : undefined;
      if (fault) throw faultError(fault);
    },
    async run(job: VideoJob, ctx: VideoRunContext): Promise<VideoOutput> {
      const started = Date.now();
      if (blocked(job.prompt)) {
        throw coreError(Code.InvalidArgument, "Your request was blocked by our moderation system.", { reason: "moderation_blocked" });
      }
      const dir = await mkdtemp(path.join(opts.tmpDir ?? tmpdir(), "omnigate-video-"));
      try {
        let done = false;
        const rendering = render(job, dir, ctx.signal).finally(() => (done = true));
        const settled = rendering.then(
          () => true,
          () => false,
        );
        const tick = Math.max(25, Math.min(1000, Math.floor(opts.taskMs / 20)));
        for (;;) {
          const elapsed = Date.now() - started;
          if (done && (elapsed >= opts.taskMs || !(await settled))) break;
          const share = opts.taskMs > 0 ? elapsed / opts.taskMs : 1;
          await ctx.progress(Math.min(done ? 99 : 95, Math.floor(share * 100)));
          const wait = sleep(tick, ctx.signal);
          await (done ? wait : Promise.race([wait, settled]));
        }
        const data = await rendering;
        return { video: { data, mimeType: MIME.mp4 } };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
