// The profiles' rules as pure checks: defaults, resolved values, errors.
import t, { type Test } from "tap";
import { create } from "@bufbuild/protobuf";
import { ConnectError, Code } from "@connectrpc/connect";
import { ImageOptionsSchema, ResponseFormat } from "../../../gen/omnigate/image/v1/image_pb.js";
import { DEFAULT_IMAGE_ALIASES } from "../../../src/config.js";
import { errorDetail } from "../../../src/core/errors.js";
import { quoteList } from "../../../src/core/image/errors.js";
import { MAX_INPUT_BYTES, MAX_INPUT_IMAGES, MAX_MASK_BYTES, modelResolver, parseSize, PROFILES } from "../../../src/core/image/profiles.js";
import { checkOptions, checkPrompt, resolveDimensions } from "../../../src/core/image/validate.js";

const opts = (o: Parameters<typeof create<typeof ImageOptionsSchema>>[1]) => create(ImageOptionsSchema, o);

function fails(t: Test, fn: () => unknown, param: string, code: string, message?: string) {
  try {
    fn();
    t.fail("expected an error");
  } catch (e) {
    t.ok(e instanceof ConnectError);
    const err = e as ConnectError;
    t.equal(err.code, Code.InvalidArgument);
    const d = errorDetail(err)!;
    t.equal(d.field, param, "field");
    t.equal(d.metadata.code, code, "metadata.code");
    t.equal(d.reason, code, "reason");
    if (message) t.equal(err.rawMessage, message);
  }
}

t.test("defaults per profile", async (t) => {
  const a = checkOptions("generate", PROFILES.IMG_MODEL_A, "dall-e-2", undefined);
  t.match(a, { n: 1, size: "1024x1024", quality: "standard", style: "", responseFormat: "url", outputFormat: "png", background: "opaque" });
  const b = checkOptions("generate", PROFILES.IMG_MODEL_B, "dall-e-3", opts({}));
  t.match(b, { size: "1024x1024", quality: "standard", style: "vivid" });
  const c = checkOptions("generate", PROFILES.IMG_MODEL_C, "gpt-image-1", opts({ quality: "auto", responseFormat: ResponseFormat.B64_JSON }));
  t.match(c, { size: "auto", quality: "high", responseFormat: "b64_json", given: { quality: "auto", responseFormat: "b64_json" } });
  const d = checkOptions("generate", PROFILES.IMG_MODEL_D, "mini", opts({ background: "transparent", n: 8, outputCompression: 0, seed: 42n }));
  t.match(d, { n: 8, size: "1024x1024", quality: "medium", background: "transparent", outputCompression: 0, seed: 42 });
});

t.test("response_format: url by default for the DALL-E profiles, b64_json for the GPT image ones; an explicit value wins", async (t) => {
  const expected = { IMG_MODEL_A: "url", IMG_MODEL_B: "url", IMG_MODEL_C: "b64_json", IMG_MODEL_D: "b64_json" } as const;
  for (const [id, byDefault] of Object.entries(expected)) {
    const p = PROFILES[id as keyof typeof PROFILES];
    t.equal(checkOptions("generate", p, id, undefined).responseFormat, byDefault, `${id} unset`);
    t.equal(checkOptions("generate", p, id, opts({ responseFormat: ResponseFormat.URL })).responseFormat, "url", `${id} url`);
    t.equal(checkOptions("generate", p, id, opts({ responseFormat: ResponseFormat.B64_JSON })).responseFormat, "b64_json", `${id} b64_json`);
  }
});

t.test("rule violations", async (t) => {
  const A = PROFILES.IMG_MODEL_A;
  const D = PROFILES.IMG_MODEL_D;
  fails(t, () => checkPrompt("generate", A, ""), "prompt", "missing_required_parameter", "Missing required parameter: 'prompt'.");
  fails(t, () => checkPrompt("edit", PROFILES.IMG_MODEL_C, "y".repeat(32001)), "prompt", "string_above_max_length");
  checkPrompt("generate", A, "😀".repeat(1000));
  t.pass("length counts characters, not UTF-16 units");
  checkPrompt("variation", A, "");
  t.pass("variations have no prompt");
  fails(t, () => checkOptions("generate", A, "m", opts({ n: -1 })), "n", "integer_below_min_value");
  fails(t, () => checkOptions("generate", D, "m", opts({ n: 9 })), "n", "integer_above_max_value", "Invalid 'n': integer above maximum value. Expected a value <= 8, but got 9 instead.");
  fails(t, () => checkOptions("edit", A, "m", opts({ size: "auto" })), "size", "invalid_value", "Invalid value: 'auto'. Supported values are: '256x256', '512x512', and '1024x1024'.");
  fails(t, () => checkOptions("generate", A, "m", opts({ style: "vivid" })), "style", "unsupported_parameter", "Unsupported parameter: 'style' is not supported with the model 'm'.");
  fails(t, () => checkOptions("generate", D, "m", opts({ outputFormat: "jpeg", background: "transparent" })), "background", "invalid_value");
  fails(t, () => checkOptions("generate", D, "m", opts({ outputFormat: "webp", background: "transparent" })), "background", "invalid_value");
  t.match(checkOptions("generate", PROFILES.IMG_MODEL_C, "m", opts({ outputFormat: "webp", background: "transparent" })), { background: "transparent" }, "IMG_MODEL_C: webp can be transparent");
  fails(t, () => checkOptions("generate", D, "m", opts({ outputCompression: -1 })), "output_compression", "integer_below_min_value");
  fails(t, () => checkOptions("generate", A, "m", opts({ outputCompression: 50 })), "output_compression", "unsupported_parameter");
  fails(t, () => checkOptions("generate", PROFILES.IMG_MODEL_C, "m", opts({ inputFidelity: "high" })), "input_fidelity", "unsupported_parameter");
  fails(t, () => checkOptions("edit", PROFILES.IMG_MODEL_C, "m", opts({ inputFidelity: "max" })), "input_fidelity", "invalid_value");
  fails(t, () => checkOptions("generate", A, "m", opts({ moderation: "low" })), "moderation", "unsupported_parameter");
  fails(t, () => checkOptions("generate", A, "m", opts({ seed: 2n ** 60n })), "seed", "invalid_value");
});

t.test("output dimensions", async (t) => {
  t.same(resolveDimensions("512x512", PROFILES.IMG_MODEL_A, "generate"), { width: 512, height: 512 });
  t.same(resolveDimensions("auto", PROFILES.IMG_MODEL_C, "generate"), { width: 1024, height: 1024 });
  t.same(resolveDimensions("auto", PROFILES.IMG_MODEL_C, "edit", { width: 300, height: 200 }), { width: 300, height: 200 }, "edits keep the input size");
  t.same(resolveDimensions("auto", PROFILES.IMG_MODEL_C, "edit", { width: 3000, height: 2000 }), { width: 1536, height: 1024 }, "large inputs get the closest supported aspect");
  t.same(parseSize("auto"), undefined);
});

t.test("model resolver and limits", async (t) => {
  const r = modelResolver({ ...DEFAULT_IMAGE_ALIASES, IMG_MODEL_B: "IMG_MODEL_A" });
  t.equal(r.resolve("dall-e-3")?.profile.id, "IMG_MODEL_B");
  t.equal(r.resolve("IMG_MODEL_B")?.profile.id, "IMG_MODEL_B", "profile ids cannot be re-aliased");
  t.equal(r.resolve("gpt-image-1-mini")?.profile.id, "IMG_MODEL_D");
  t.equal(r.resolve("nope"), undefined);
  t.same(r.names().slice(0, 4), ["IMG_MODEL_A", "IMG_MODEL_B", "IMG_MODEL_C", "IMG_MODEL_D"]);
  t.equal(MAX_INPUT_BYTES, 25 * 1024 * 1024);
  t.equal(MAX_MASK_BYTES, 4 * 1024 * 1024);
  t.equal(MAX_INPUT_IMAGES, 16);
  t.equal(quoteList([]), "");
  t.equal(quoteList(["a"]), "'a'");
  t.equal(quoteList(["a", "b"]), "'a' and 'b'");
});

t.test("profiles carry the spec's rules", async (t) => {
  t.same(PROFILES.IMG_MODEL_A.operations, ["generate", "edit", "variation"]);
  t.same(PROFILES.IMG_MODEL_B.operations, ["generate"]);
  t.same(PROFILES.IMG_MODEL_C.operations, ["generate", "edit"]);
  t.same(PROFILES.IMG_MODEL_D.operations, ["generate"]);
  t.same([PROFILES.IMG_MODEL_A.promptMax.generate, PROFILES.IMG_MODEL_B.promptMax.generate, PROFILES.IMG_MODEL_C.promptMax.edit], [1000, 4000, 32000]);
  t.same([PROFILES.IMG_MODEL_A.nMax, PROFILES.IMG_MODEL_B.nMax, PROFILES.IMG_MODEL_C.nMax, PROFILES.IMG_MODEL_D.nMax], [10, 1, 10, 8]);
  t.same(PROFILES.IMG_MODEL_D.sizes.generate, ["1024x1024", "1536x1024", "1024x1792"]);
  t.equal(PROFILES.IMG_MODEL_C.reportsUsage, true);
  t.same(
    Object.values(PROFILES)
      .filter((p) => p.reportsUsage)
      .map((p) => p.id),
    ["IMG_MODEL_C"],
  );
});
