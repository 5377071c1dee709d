// The video core's parameter rules: defaults, sizes from aspect ratios, and
// each refusal naming its field.
import t from "tap";
import { ConnectError } from "@connectrpc/connect";
import { errorDetail } from "../../../src/core/errors.js";
import { DEFAULTS, DEFAULT_VIDEO_MODEL, resolveParams, sizeFromAspectRatio, type ParamsInput } from "../../../src/core/video/params.js";

const base: ParamsInput = { model: "", prompt: "a cat", duration: 0, size: "", aspectRatio: "", fps: 0 };

t.test("defaults fill what the request leaves out", async (t) => {
  t.same(resolveParams(base), { model: DEFAULT_VIDEO_MODEL, prompt: "a cat", width: DEFAULTS.width, height: DEFAULTS.height, duration: DEFAULTS.duration, fps: DEFAULTS.fps, seed: undefined });
  t.same(resolveParams({ ...base, model: "veo", size: "160x90", duration: 2, fps: 8, seed: 7n }), { model: "veo", prompt: "a cat", width: 160, height: 90, duration: 2, fps: 8, seed: 7 });
});

t.test("aspect ratios become even sizes with a 720 short side", async (t) => {
  const cases: Array<[string, { width: number; height: number } | undefined]> = [
    ["16:9", { width: 1280, height: 720 }],
    ["9:16", { width: 720, height: 1280 }],
    ["1:1", { width: 720, height: 720 }],
    ["4:3", { width: 960, height: 720 }],
    ["21:9", { width: 1680, height: 720 }],
    ["5:1", undefined],
    ["wide", undefined],
    ["0:1", undefined],
  ];
  for (const [ratio, want] of cases) t.same(sizeFromAspectRatio(ratio), want, ratio);
  t.same(resolveParams({ ...base, aspectRatio: "9:16" }).width, 720);
});

t.test("bad values are refused with their field", async (t) => {
  const cases: Array<[Partial<ParamsInput>, string, string]> = [
    [{ prompt: "  " }, "prompt", "missing_required_parameter"],
    [{ prompt: "x".repeat(32_001) }, "prompt", "string_above_max_length"],
    [{ size: "big" }, "size", "invalid_value"],
    [{ size: "161x90" }, "size", "invalid_value"],
    [{ size: "8x8" }, "size", "invalid_value"],
    [{ size: "5000x100" }, "size", "invalid_value"],
    [{ aspectRatio: "10:1" }, "aspect_ratio", "invalid_value"],
    [{ size: "1280x720", aspectRatio: "9:16" }, "aspect_ratio", "invalid_value"],
    [{ duration: 61 }, "duration", "invalid_value"],
    [{ duration: 1.5 }, "duration", "invalid_value"],
    [{ fps: 120 }, "fps", "invalid_value"],
    [{ seed: -1n }, "seed", "invalid_value"],
    [{ seed: 2n ** 40n }, "seed", "invalid_value"],
  ];
  for (const [patch, field, reason] of cases) {
    try {
      resolveParams({ ...base, ...patch });
      t.fail(`accepted ${JSON.stringify(patch, (_k, v) => (typeof v === "bigint" ? String(v) : v)).slice(0, 60)}`);
    } catch (err) {
      t.ok(err instanceof ConnectError);
      const d = errorDetail(err as ConnectError);
      t.equal(d?.field, field, field);
      t.equal(d?.reason, reason, reason);
    }
  }
  t.same(resolveParams({ ...base, size: "1280x720", aspectRatio: "16:9" }).width, 1280, "agreeing size and ratio pass");
});
