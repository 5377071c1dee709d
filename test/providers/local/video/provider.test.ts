// The local video engine renders real H.264 MP4 files: ffprobe confirms the
// size, fps, length and codec asked for; frames depend on prompt and seed;
// a reference image becomes the background; progress rises over taskMs.
import t from "tap";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail } from "../../../../src/core/errors.js";
import { ffmpeg, probe } from "../../../../src/core/video/media.js";
import { localVideoProvider } from "../../../../src/providers/local/video/provider.js";
import type { VideoJob } from "../../../../src/core/ports.js";

const dir = mkdtempSync(path.join(tmpdir(), "omnigate-local-video-"));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const job = (over: Partial<VideoJob> = {}): VideoJob => ({
  taskId: "video_test",
  prompt: "a calico cat",
  upstreamModel: "sora-2",
  width: 160,
  height: 90,
  duration: 1,
  fps: 6,
  seed: 7,
  given: { size: "160x90", aspectRatio: "", duration: 1, fps: 6 },
  metadata: {},
  ...over,
});

function ctx() {
  const progress: number[] = [];
  return { progress, ctx: { signal: new AbortController().signal, progress: async (p: number) => void progress.push(p), save: async () => undefined } };
}

/** The RGB of the first frame's pixel at (x, y). */
async function pixel(file: string, x: number, y: number): Promise<number[]> {
  const png = file + ".png";
  await ffmpeg(["-i", file, "-frames:v", "1", png]);
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

const engine = localVideoProvider({ blocklist: ["forbidden-topic"], taskMs: 200, faultInjection: true, fontFile: "" });

t.test("the file has the asked size, fps, length and codec", async (t) => {
  const c = ctx();
  const out = await engine.run(job({ width: 160, height: 90, duration: 2, fps: 8 }), c.ctx);
  t.equal(out.video.mimeType, "video/mp4");
  const file = path.join(dir, "a.mp4");
  writeFileSync(file, out.video.data);
  const facts = await probe(file);
  t.same(facts, { format: "mp4", codec: "h264", width: 160, height: 90, fps: 8, duration: 2, frames: 16 });
  t.ok(c.progress.length >= 2, "progress was reported while it ran");
  t.same(
    [...c.progress].sort((a, b) => a - b),
    c.progress,
    "progress never goes down",
  );
  t.ok(c.progress.every((p) => p >= 0 && p <= 99));

  const tall = await engine.run(job({ width: 90, height: 160, duration: 1, fps: 5 }), ctx().ctx);
  writeFileSync(path.join(dir, "tall.mp4"), tall.video.data);
  t.match(await probe(path.join(dir, "tall.mp4")), { width: 90, height: 160, fps: 5, duration: 1, frames: 5 });
});

t.test("frames depend on prompt and seed", async (t) => {
  const render = async (name: string, j: VideoJob) => {
    const f = path.join(dir, name);
    writeFileSync(f, (await engine.run(j, ctx().ctx)).video.data);
    return pixel(f, 1, 1);
  };
  const a = await render("p1.mp4", job());
  const again = await render("p1b.mp4", job());
  const b = await render("p2.mp4", job({ prompt: "a red fox at dawn" }));
  const c = await render("p3.mp4", job({ seed: 8 }));
  t.same(again, a, "same prompt and seed: same frame");
  t.notSame(b, a, "another prompt: another frame");
  t.notSame(c, a, "another seed: another frame");
});

t.test("a reference image becomes the background", async (t) => {
  const red = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 250, g: 10, b: 10 } } })
    .png()
    .toBuffer();
  const f = path.join(dir, "ref.mp4");
  writeFileSync(f, (await engine.run(job({ reference: { data: red, mimeType: "image/png" } }), ctx().ctx)).video.data);
  const [r, g, b] = await pixel(f, 1, 1);
  t.ok(r! > 180 && g! < 90 && b! < 90, `the first frame's corner is red (${r},${g},${b})`);
  await t.rejects(engine.run(job({ reference: { data: Buffer.from("not an image"), mimeType: "image/png" } }), ctx().ctx), { code: Code.InvalidArgument });
});

t.test("blocked prompts fail as moderation; fault directives refuse at admission", async (t) => {
  const err = await engine.run(job({ prompt: "about forbidden-topic" }), ctx().ctx).catch((e: unknown) => e);
  t.ok(err instanceof ConnectError);
  t.equal(errorDetail(err as ConnectError)?.reason, "moderation_blocked");
  t.throws(() => engine.admit!("x #fault:internal"), { code: Code.Internal });
  t.throws(() => engine.admit!("x #fault:rate_limit"), { code: Code.ResourceExhausted });
  t.doesNotThrow(() => engine.admit!("a calm sea"));
});

t.test("an aborted run stops", async (t) => {
  const ac = new AbortController();
  const slow = localVideoProvider({ blocklist: [], taskMs: 10_000, faultInjection: false, fontFile: "" });
  const p = slow.run(job(), { signal: ac.signal, progress: async () => undefined, save: async () => undefined });
  setTimeout(() => ac.abort(new Error("stopped")), 50);
  await t.rejects(p, { message: "stopped" });
});
