// The parameters of a video request: defaults, and the checks the core makes
// on their meaning (shape was checked by the facade). Pure; errors are
// InvalidArgument with the neutral field name.
import { invalidArgument } from "../errors.js";

export const DEFAULT_VIDEO_MODEL = "sora-2";
export const DEFAULTS = { duration: 4, fps: 24, width: 1280, height: 720 } as const;
export const LIMITS = { prompt: 32_000, duration: 60, fps: 60, side: 3840, minSide: 16, pixels: 3840 * 2160, seed: 4_294_967_295 } as const;
/** Short side of a size derived from an aspect ratio. */
const RATIO_SHORT_SIDE = 720;

export interface VideoParams {
  model: string;
  prompt: string;
  width: number;
  height: number;
  duration: number;
  fps: number;
  /** Undefined: the core draws one. */
  seed?: number | undefined;
}

export interface ParamsInput {
  model: string;
  prompt: string;
  duration: number;
  size: string;
  aspectRatio: string;
  fps: number;
  seed?: bigint | undefined;
}

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/** "16:9" -> a size whose short side is 720 (even numbers, as H.264 needs). */
export function sizeFromAspectRatio(ratio: string): { width: number; height: number } | undefined {
  const m = /^\s*(\d{1,3}(?:\.\d+)?)\s*:\s*(\d{1,3}(?:\.\d+)?)\s*$/.exec(ratio);
  if (!m) return undefined;
  const a = Number(m[1]);
  const b = Number(m[2]);
  if (!(a > 0 && b > 0) || a / b > 4 || b / a > 4) return undefined;
  return a >= b ? { width: even((RATIO_SHORT_SIDE * a) / b), height: RATIO_SHORT_SIDE } : { width: RATIO_SHORT_SIDE, height: even((RATIO_SHORT_SIDE * b) / a) };
}

function parseSize(size: string): { width: number; height: number } {
  const m = /^\s*(\d{1,5})\s*[x*]\s*(\d{1,5})\s*$/i.exec(size);
  if (!m) throw invalidArgument(`Invalid size '${size}': expected WIDTHxHEIGHT, e.g. '1280x720'.`, "size", "invalid_value");
  const width = Number(m[1]);
  const height = Number(m[2]);
  if (width < LIMITS.minSide || height < LIMITS.minSide || width > LIMITS.side || height > LIMITS.side || width * height > LIMITS.pixels) {
    throw invalidArgument(`Invalid size '${size}': each side must be between ${LIMITS.minSide} and ${LIMITS.side} pixels, at most ${LIMITS.pixels} pixels in all.`, "size", "invalid_value");
  }
  if (width % 2 || height % 2) throw invalidArgument(`Invalid size '${size}': width and height must be even numbers.`, "size", "invalid_value");
  return { width, height };
}

export function resolveParams(i: ParamsInput): VideoParams {
  const prompt = i.prompt.trim();
  if (!prompt) throw invalidArgument("Missing required parameter: 'prompt'.", "prompt", "missing_required_parameter");
  if (i.prompt.length > LIMITS.prompt) throw invalidArgument(`The prompt is too long: at most ${LIMITS.prompt} characters.`, "prompt", "string_above_max_length");
  if (i.model.length > 256) throw invalidArgument("The model name is too long: at most 256 characters.", "model", "invalid_value");
  if (!Number.isInteger(i.duration) || i.duration < 0 || i.duration > LIMITS.duration) {
    throw invalidArgument(`Invalid duration ${i.duration}: expected whole seconds from 1 to ${LIMITS.duration}.`, "duration", "invalid_value");
  }
  if (!Number.isInteger(i.fps) || i.fps < 0 || i.fps > LIMITS.fps) throw invalidArgument(`Invalid fps ${i.fps}: expected 1 to ${LIMITS.fps}.`, "fps", "invalid_value");
  let dims: { width: number; height: number } = { width: DEFAULTS.width, height: DEFAULTS.height };
  if (i.size) dims = parseSize(i.size);
  else if (i.aspectRatio) {
    const d = sizeFromAspectRatio(i.aspectRatio);
    if (!d) throw invalidArgument(`Invalid aspect_ratio '${i.aspectRatio}': expected W:H between 1:4 and 4:1, e.g. '16:9'.`, "aspect_ratio", "invalid_value");
    dims = d;
  }
  if (i.size && i.aspectRatio) {
    const d = sizeFromAspectRatio(i.aspectRatio);
    if (d && Math.abs(d.width / d.height - dims.width / dims.height) > 0.02) {
      throw invalidArgument(`size '${i.size}' and aspect_ratio '${i.aspectRatio}' disagree; give one of them.`, "aspect_ratio", "invalid_value");
    }
  }
  if (i.seed !== undefined && (i.seed < 0n || i.seed > BigInt(LIMITS.seed))) throw invalidArgument(`Invalid seed: expected 0 to ${LIMITS.seed}.`, "seed", "invalid_value");
  return {
    model: i.model || DEFAULT_VIDEO_MODEL,
    prompt,
    ...dims,
    duration: i.duration || DEFAULTS.duration,
    fps: i.fps || DEFAULTS.fps,
    seed: i.seed === undefined ? undefined : Number(i.seed),
  };
}
