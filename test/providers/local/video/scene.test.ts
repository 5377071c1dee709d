// The local engine's scene: deterministic for a prompt and seed, palette from
// both, motion from the seed; the ffmpeg command honours size, fps and length.
import t from "tap";
import { buildScene, renderArgs, wrapText, type SceneInput } from "../../../../src/providers/local/video/scene.js";

const input: SceneInput = { prompt: "a calico cat", seed: 42, width: 160, height: 90, fps: 8, duration: 2 };

t.test("the same prompt and seed make the same scene; others differ", async (t) => {
  t.same(buildScene(input), buildScene({ ...input }));
  const other = buildScene({ ...input, prompt: "a red fox" });
  t.not(other.background, buildScene(input).background, "palette follows the prompt");
  t.same(
    other.shapes.map((s) => [s.w, s.h, s.speedX, s.speedY, s.phase]),
    buildScene(input).shapes.map((s) => [s.w, s.h, s.speedX, s.speedY, s.phase]),
    "motion follows the seed alone (a remix keeps it)",
  );
  const reseeded = buildScene({ ...input, seed: 43 });
  t.not(JSON.stringify(reseeded.shapes), JSON.stringify(buildScene(input).shapes), "another seed moves differently");
  t.same(buildScene(input).lines, ["a calico cat"]);
});

t.test("wrapText wraps and cuts with an ellipsis", async (t) => {
  t.same(wrapText("one two three four", 9, 3), ["one two", "three", "four"]);
  t.same(wrapText("one two three four five six", 9, 2), ["one two", "three…"]);
  t.same(wrapText("supercalifragilistic", 6, 2), ["super…"]);
  t.same(wrapText("   ", 10, 2), []);
});

t.test("renderArgs asks for exactly duration x fps frames at the size", async (t) => {
  const args = renderArgs(input, buildScene(input), { output: "/tmp/out.mp4", captionFile: "/tmp/c.txt", fontFile: "/fonts/a.ttf" });
  t.equal(args[args.indexOf("-frames:v") + 1], "16");
  t.equal(args[args.indexOf("-r") + 1], "8");
  t.equal(args[args.indexOf("-c:v") + 1], "libx264");
  t.match(args.join(" "), /color=c=0x[0-9a-f]{6}:s=160x90:r=8/);
  t.match(args.join(" "), /drawtext=fontfile='\/fonts\/a.ttf':textfile='\/tmp\/c.txt':expansion=none/);
  t.equal(args.at(-1), "/tmp/out.mp4");
  const unsafe = renderArgs(input, buildScene(input), { output: "/tmp/o.mp4", captionFile: "/tmp/c.txt", fontFile: "/fonts/it's:bad.ttf" });
  t.notMatch(unsafe.join(" "), /drawtext/, "a font path needing escapes is not used");
  const withRef = renderArgs(input, buildScene(input), { output: "/tmp/o.mp4", reference: "/tmp/ref.png" });
  t.match(withRef.join(" "), /-loop 1 -framerate 8 .* -i \/tmp\/ref\.png/);
  t.match(withRef.join(" "), /scale=160:90:force_original_aspect_ratio=increase,crop=160:90/);
});
