// The local video engine's scene, pure: what a clip shows follows from its
// prompt and seed (palette from both, motion from the seed alone, so a remix
// with a new prompt keeps its parent's movement), and the ffmpeg command line
// that renders it as H.264 MP4 at exactly the asked size, fps and length.
import { createHash } from "node:crypto";

export interface SceneInput {
  prompt: string;
  seed: number;
  width: number;
  height: number;
  fps: number;
  duration: number;
}

export interface Shape {
  color: string;
  w: number;
  h: number;
  /** Angular speed (radians per second) and phase of its path. */
  speedX: number;
  speedY: number;
  phase: number;
}

export interface Scene {
  background: string;
  shapes: Shape[];
  /** Hue rotation, degrees per second. */
  hueSpeed: number;
  /** Caption lines (the prompt, wrapped). */
  lines: string[];
  fontSize: number;
}

function bytes(...parts: string[]): Buffer {
  return createHash("sha256").update(parts.join("\u0000")).digest();
}

const hex = (b: Buffer, i: number) => "0x" + b.subarray(i, i + 3).toString("hex");

/** Wraps text into at most `maxLines` lines of `width` characters, with an ellipsis when cut. */
export function wrapText(text: string, width: number, maxLines: number): string[] {
  const words = text.replace(/\s+/g, " ").trim().split(" ").filter(Boolean);
  const lines: string[] = [];
  let cur = "";
  for (const raw of words) {
    const word = raw.length > width ? raw.slice(0, Math.max(1, width - 1)) + "…" : raw;
    if (!cur) cur = word;
    else if (cur.length + 1 + word.length <= width) cur += " " + word;
    else {
      lines.push(cur);
      cur = word;
    }
  }
  if (cur) lines.push(cur);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  const last = kept[maxLines - 1]!;
  kept[maxLines - 1] = (last.length >= width ? last.slice(0, width - 1) : last) + "…";
  return kept;
}

export function buildScene(s: SceneInput): Scene {
  const look = bytes("look", s.prompt, String(s.seed));
  const motion = bytes("motion", String(s.seed));
  const side = Math.min(s.width, s.height);
  const shapes: Shape[] = [0, 1, 2].map((i) => {
    const size = Math.max(2, Math.round((side * (0.12 + (motion[i]! / 255) * 0.22)) / 2) * 2);
    return {
      color: hex(look, 3 + i * 3),
      w: size,
      h: Math.max(2, Math.round((size * (0.6 + (motion[3 + i]! / 255) * 0.8)) / 2) * 2),
      speedX: Number((0.6 + (motion[6 + i]! / 255) * 2.4).toFixed(3)),
      speedY: Number((0.5 + (motion[9 + i]! / 255) * 2.0).toFixed(3)),
      phase: Number(((motion[12 + i]! / 255) * Math.PI * 2).toFixed(3)),
    };
  });
  const fontSize = Math.max(8, Math.round(side / 14));
  const perLine = Math.max(4, Math.floor(s.width / (fontSize * 0.62)));
  return {
    background: hex(look, 0),
    shapes,
    hueSpeed: Math.round(10 + (motion[15]! / 255) * 50),
    lines: wrapText(s.prompt, perLine, 3),
    fontSize,
  };
}

/** Font and caption files may only hold characters that need no filtergraph escaping. */
const SAFE_PATH = /^[\w/.\- ]+$/;

export interface RenderFiles {
  /** Output MP4. */
  output: string;
  /** A PNG to start from (image-to-video), already at any size. */
  reference?: string | undefined;
  /** The caption text file and the font to draw it with; no caption without both. */
  captionFile?: string | undefined;
  fontFile?: string | undefined;
}

/** The ffmpeg arguments (after the global ones) that render `scene`. */
export function renderArgs(s: SceneInput, scene: Scene, files: RenderFiles): string[] {
  const { width: W, height: H, fps, duration } = s;
  const frames = Math.max(1, Math.round(duration * fps));
  const d = (duration + 1).toFixed(3);
  const args: string[] = [];
  if (files.reference) args.push("-loop", "1", "-framerate", String(fps), "-t", d, "-i", files.reference);
  else args.push("-f", "lavfi", "-i", `color=c=${scene.background}:s=${W}x${H}:r=${fps}:d=${d}`);
  for (const sh of scene.shapes) args.push("-f", "lavfi", "-i", `color=c=${sh.color}:s=${sh.w}x${sh.h}:r=${fps}:d=${d}`);

  const chain: string[] = [];
  chain.push(files.reference ? `[0:v]scale=${W}:${H}:force_original_aspect_ratio=increase,crop=${W}:${H},setsar=1,format=yuv420p[l0]` : `[0:v]setsar=1,format=yuv420p[l0]`);
  scene.shapes.forEach((sh, i) => {
    const x = `(W-w)*(0.5+0.5*sin(t*${sh.speedX}+${sh.phase}))`;
    const y = `(H-h)*(0.5+0.45*cos(t*${sh.speedY}+${sh.phase * 2}))`;
    chain.push(`[l${i}][${i + 1}:v]overlay=x='${x}':y='${y}':eval=frame:shortest=1[l${i + 1}]`);
  });
  let last = `l${scene.shapes.length}`;
  const tail = [`hue=h='t*${scene.hueSpeed}'`];
  if (files.captionFile && files.fontFile && SAFE_PATH.test(files.captionFile) && SAFE_PATH.test(files.fontFile) && scene.lines.length) {
    tail.push(
      `drawtext=fontfile='${files.fontFile}':textfile='${files.captionFile}':expansion=none:fontcolor=white:fontsize=${scene.fontSize}:line_spacing=${Math.round(scene.fontSize / 4)}` +
        `:box=1:boxcolor=black@0.45:boxborderw=${Math.max(2, Math.round(scene.fontSize / 4))}:x='(w-text_w)/2':y='h-text_h-${Math.round(scene.fontSize * 1.2)}-${Math.round(scene.fontSize / 3)}*sin(t*2)'`,
    );
  }
  tail.push("format=yuv420p");
  chain.push(`[${last}]${tail.join(",")}[v]`);
  last = "v";
  args.push("-filter_complex", chain.join(";"), "-map", `[${last}]`);
  args.push("-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-r", String(fps), "-frames:v", String(frames), "-an", "-movflags", "+faststart", files.output);
  return args;
}

/** The caption file's text. */
export const captionText = (scene: Scene) => scene.lines.join("\n");
