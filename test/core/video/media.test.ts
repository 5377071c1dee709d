// ffprobe answers -> facts, and the spritesheet grid.
import t from "tap";
import { factsFromProbe, spriteGrid } from "../../../src/core/video/media.js";

t.test("factsFromProbe reads the video stream and the container", async (t) => {
  t.same(
    factsFromProbe({
      streams: [
        { codec_type: "audio", codec_name: "aac" },
        { codec_type: "video", codec_name: "h264", width: 160, height: 90, r_frame_rate: "8/1", avg_frame_rate: "8/1", nb_frames: "16", duration: "2.000000" },
      ],
      format: { format_name: "mov,mp4,m4a,3gp,3g2,mj2", duration: "2.000000" },
    }),
    { format: "mp4", codec: "h264", width: 160, height: 90, fps: 8, duration: 2, frames: 16 },
  );
  t.same(factsFromProbe({ streams: [{ codec_type: "video", codec_name: "vp9", width: 64, height: 64, avg_frame_rate: "30000/1001" }], format: { format_name: "matroska,webm", duration: "1.5" } }), {
    format: "webm",
    codec: "vp9",
    width: 64,
    height: 64,
    fps: 30,
    duration: 1.5,
    frames: 45,
  });
  t.equal(factsFromProbe({ streams: [{ codec_type: "audio" }] }), undefined);
  t.equal(factsFromProbe({}), undefined);
});

t.test("spriteGrid takes whole rows of evenly spaced frames, at most 5 x 5", async (t) => {
  t.same(spriteGrid(96), { cols: 5, rows: 5, step: 3 });
  t.same(spriteGrid(16), { cols: 5, rows: 3, step: 1 });
  t.same(spriteGrid(3), { cols: 3, rows: 1, step: 1 });
  t.same(spriteGrid(0), { cols: 1, rows: 1, step: 1 });
});
