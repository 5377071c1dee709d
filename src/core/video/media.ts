// Media tools over the ffmpeg and ffprobe binaries of @ffmpeg-installer/ffmpeg
// and @ffprobe-installer/ffprobe (static builds with libx264 and libwebp, so no
// system package is needed): run ffmpeg, probe a file for the facts a Video
// reports, and cut the thumbnail and spritesheet out of its real frames.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

let paths: { ffmpeg: string; ffprobe: string } | undefined;

/** Paths of the two binaries (resolved once). */
export function mediaBinaries(): { ffmpeg: string; ffprobe: string } {
  paths ??= {
    ffmpeg: (require("@ffmpeg-installer/ffmpeg") as { path: string }).path,
    ffprobe: (require("@ffprobe-installer/ffprobe") as { path: string }).path,
  };
  return paths;
}

export class MediaError extends Error {
  override name = "MediaError";
}

const MAX_STDERR = 8 * 1024;
const MAX_STDOUT = 1024 * 1024;

/** Runs a binary to completion; rejects with its stderr tail on a non-zero exit or when `signal` aborts. */
export function runBinary(bin: string, args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
    const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      if (out.length < MAX_STDOUT) out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err = (err + d.toString()).slice(-MAX_STDERR);
    });
    const onAbort = () => child.kill("SIGKILL");
    signal?.addEventListener("abort", onAbort, { once: true });
    child.once("error", (e) => {
      signal?.removeEventListener("abort", onAbort);
      reject(new MediaError(`${bin} could not start: ${e.message}`));
    });
    child.once("close", (code) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
      if (code === 0) resolve(out);
      else reject(new MediaError(`${bin.split("/").pop()} exited with ${code}: ${err.trim().split("\n").slice(-3).join(" | ")}`));
    });
  });
}

export const ffmpeg = (args: string[], signal?: AbortSignal) => runBinary(mediaBinaries().ffmpeg, ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", ...args], signal);

/** What a file really is, as ffprobe sees it. */
export interface MediaFacts {
  /** "mp4", "webm", "webp", ... */
  format: string;
  /** Codec of the video stream ("h264"). */
  codec: string;
  width: number;
  height: number;
  /** Frames per second, rounded to a whole number. */
  fps: number;
  /** Seconds (fractional). */
  duration: number;
  frames: number;
}

interface ProbeJson {
  streams?: { codec_type?: string; codec_name?: string; width?: number; height?: number; r_frame_rate?: string; avg_frame_rate?: string; nb_frames?: string; duration?: string }[];
  format?: { format_name?: string; duration?: string };
}

function rate(r: string | undefined): number {
  const m = /^(\d+)\/(\d+)$/.exec(r ?? "");
  if (!m || Number(m[2]) === 0) return 0;
  return Number(m[1]) / Number(m[2]);
}

/** ffprobe's JSON -> MediaFacts (pure; exported for tests). */
export function factsFromProbe(json: ProbeJson): MediaFacts | undefined {
  const v = json.streams?.find((s) => s.codec_type === "video" || (s.width && s.height));
  if (!v?.width || !v.height) return undefined;
  const names = (json.format?.format_name ?? "").split(",");
  const format = names.includes("mp4") ? "mp4" : names.includes("webm") ? "webm" : names.includes("webp_pipe") ? "webp" : (names[0] ?? "");
  const fps = rate(v.avg_frame_rate) || rate(v.r_frame_rate);
  const duration = Number(v.duration ?? json.format?.duration ?? 0) || 0;
  const frames = Number(v.nb_frames ?? 0) || Math.round(duration * fps);
  return { format, codec: v.codec_name ?? "", width: v.width, height: v.height, fps: Math.round(fps), duration, frames };
}

/** Probes a file; undefined when it holds no readable video stream. */
export async function probe(file: string, signal?: AbortSignal): Promise<MediaFacts | undefined> {
  let out: string;
  try {
    out = await runBinary(
      mediaBinaries().ffprobe,
      ["-v", "error", "-show_entries", "stream=codec_type,codec_name,width,height,r_frame_rate,avg_frame_rate,nb_frames,duration:format=format_name,duration", "-of", "json", file],
      signal,
    );
  } catch (err) {
    if (signal?.aborted) throw err;
    return undefined;
  }
  try {
    return factsFromProbe(JSON.parse(out) as ProbeJson);
  } catch {
    return undefined;
  }
}

/** The spritesheet grid for a clip of `frames` frames: at most 5 x 5 tiles, each a real frame. */
export function spriteGrid(frames: number): { cols: number; rows: number; step: number } {
  const n = Math.max(1, frames);
  const cols = Math.min(5, n);
  const rows = Math.max(1, Math.min(5, Math.floor(n / cols)));
  return { cols, rows, step: Math.max(1, Math.floor(n / (cols * rows))) };
}

/** Width of a spritesheet tile. */
const TILE_WIDTH = 160;
/** Longest side of the thumbnail. */
const THUMB_MAX = 640;

/**
 * Writes the thumbnail (the middle frame, WebP) and the spritesheet (a grid of
 * evenly spaced frames, JPEG) of a video, in one ffmpeg run.
 */
export async function extractStills(input: string, facts: MediaFacts, out: { thumbnail: string; spritesheet: string }, signal?: AbortSignal): Promise<void> {
  const frames = Math.max(1, facts.frames);
  const middle = Math.floor(frames / 2);
  const { cols, rows, step } = spriteGrid(frames);
  const landscape = facts.width >= facts.height;
  const thumbScale = landscape ? `scale='min(${THUMB_MAX},iw)':-2` : `scale=-2:'min(${THUMB_MAX},ih)'`;
  const graph = [
    `[0:v]split=2[a][b]`,
    `[a]select='eq(n\\,${middle})',${thumbScale}[t]`,
    `[b]select='not(mod(n\\,${step}))*lt(n\\,${cols * rows * step})',scale=${TILE_WIDTH}:-2,tile=${cols}x${rows}[s]`,
  ].join(";");
  await ffmpeg(
    ["-i", input, "-filter_complex", graph, "-map", "[t]", "-frames:v", "1", "-c:v", "libwebp", "-quality", "80", out.thumbnail, "-map", "[s]", "-frames:v", "1", "-q:v", "4", out.spritesheet],
    signal,
  );
}

export const MIME = { mp4: "video/mp4", webm: "video/webm", webp: "image/webp", jpeg: "image/jpeg" } as const;
