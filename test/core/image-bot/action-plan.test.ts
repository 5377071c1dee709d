// What each button starts, from what kind of parent, and which buttons each result offers. Pure.
import t from "tap";
import { planAction } from "../../../src/core/image-bot/action-plan.js";
import { describeButtons, gridButtons, shortenButtons, upscaleButtons } from "../../../src/core/image-bot/buttons.js";
import { parseCustomId } from "../../../src/core/image-bot/custom-id.js";
import { localButtons, relayButtons } from "../../../src/core/image-bot/handler.js";
import type { ImageBotPayload, ImageBotTask } from "../../../src/core/image-bot/model.js";

function task(p: Partial<ImageBotPayload>): ImageBotTask {
  return {
    id: "100",
    kind: "image-bot",
    run: { status: "SUCCESS", progress: 100, submitTime: 1, queue: "q", notifyHook: "", seq: 0, runs: 1 },
    payload: {
      action: "IMAGINE",
      operation: { kind: "imagine" },
      prompt: "a cat",
      promptEn: "a cat",
      description: "",
      state: "",
      botType: "PRIMARY_BOT",
      accountId: "local",
      hash: "h",
      seed: 1,
      inputs: [],
      properties: {},
      buttons: [],
      ...p,
    },
    version: 1,
    createTime: 1,
    updateTime: 1,
  };
}

const grid = task({ result: { fileId: "f", mimeType: "image/png", width: 128, height: 128, grid: true } });
const upscaled = task({ action: "UPSCALE", operation: { kind: "upscale", index: 2 }, result: { fileId: "f", mimeType: "image/png", width: 64, height: 64, grid: false } });
const upscaled2x = task({ action: "UPSCALE", operation: { kind: "upscale_2x", mode: "subtle" }, result: { fileId: "f", mimeType: "image/png", width: 128, height: 128, grid: false } });
const described = task({
  action: "DESCRIBE",
  operation: { kind: "describe" },
  prompts: ["p1", "p2", "p3", "p4"],
  inputs: ["file_in"],
  result: { fileId: "f", mimeType: "image/png", width: 64, height: 64, grid: false },
});
const shortened = task({ action: "SHORTEN", operation: { kind: "shorten" }, prompts: ["s1", "s2", "s3", "s4", "s5"] });

const plan = (id: string, parent: ImageBotTask) => planAction(parseCustomId(id)!, parent);

t.test("each button of a grid, an upscale, a describe and a shorten result", async (t) => {
  const rows: [string, ImageBotTask, Record<string, unknown>][] = [
    ["MJ::JOB::upsample::3::h", grid, { action: "UPSCALE", operation: { kind: "upscale", index: 3 }, modal: "never", description: "/up 100 U3" }],
    ["MJ::JOB::variation::1::h", grid, { action: "VARIATION", operation: { kind: "variation", index: 1 }, modal: "remix", modalKind: "remix" }],
    ["MJ::JOB::reroll::0::h::SOLO", grid, { action: "REROLL", actionDetail: "REROLL", operation: { kind: "reroll" }, modal: "remix" }],
    ["MJ::JOB::low_variation::1::h::SOLO", upscaled, { action: "VARIATION", actionDetail: "LOW_VARIATION", operation: { kind: "vary", strength: "subtle" }, modal: "remix" }],
    ["MJ::JOB::high_variation::1::h::SOLO", upscaled, { action: "VARIATION", operation: { kind: "vary", strength: "strong" }, modal: "remix" }],
    ["MJ::Inpaint::1::h::SOLO", upscaled, { action: "INPAINT", operation: { kind: "inpaint" }, modal: "always", modalKind: "inpaint" }],
    ["MJ::Outpaint::50::1::h::SOLO", upscaled, { action: "ZOOM", operation: { kind: "zoom", factor: 2 }, modal: "never" }],
    ["MJ::Outpaint::75::1::h::SOLO", upscaled, { action: "ZOOM", operation: { kind: "zoom", factor: 1.5 }, modal: "never" }],
    ["MJ::CustomZoom::h", upscaled, { action: "ZOOM", actionDetail: "CUSTOM_ZOOM", modal: "always", modalKind: "custom_zoom" }],
    ["MJ::JOB::pan_up::1::h::SOLO", upscaled, { action: "PAN", operation: { kind: "pan", direction: "up" }, modal: "remix" }],
    ["MJ::JOB::upsample_v6_2x_creative::1::h::SOLO", upscaled, { action: "UPSCALE", operation: { kind: "upscale_2x", mode: "creative" }, modal: "never" }],
    ["MJ::Job::PicReader::2", described, { action: "IMAGINE", actionDetail: "PIC_READER", prompt: "p2", promptEn: "p2", modal: "always", modalKind: "pic_reader" }],
    ["MJ::Picread::Retry", described, { action: "DESCRIBE", operation: { kind: "describe" }, modal: "never", inputs: ["file_in"] }],
    ["MJ::Job::PromptAnalyzer::5", shortened, { action: "IMAGINE", prompt: "s5", modal: "always", modalKind: "prompt_analyzer" }],
  ];
  for (const [id, parent, want] of rows) {
    const r = plan(id, parent);
    t.ok("plan" in r, id);
    if ("plan" in r) t.match(r.plan, want, id);
  }
});

t.test("buttons that do not fit their parent are refused with a reason", async (t) => {
  t.same(plan("MJ::JOB::upsample::1::h", upscaled), { refused: "task 100 has no image grid; this button needs one" });
  t.same(plan("MJ::JOB::pan_left::1::h::SOLO", grid), { refused: "task 100 has no upscaled image; this button needs one" });
  t.same(plan("MJ::JOB::upsample_v6_2x_subtle::1::h::SOLO", upscaled2x), { refused: "task 100 is not an upscale of a grid image" });
  t.same(plan("MJ::Job::PicReader::1", grid), { refused: "task 100 is not a DESCRIBE task" });
  t.same(plan("MJ::Job::PromptAnalyzer::5", task({ action: "SHORTEN", prompts: ["only"] })), { refused: "task 100 has no prompt 5" });
});

t.test("result buttons: grids, upscales (subtle/creative only once), describe and shorten", async (t) => {
  t.same(
    gridButtons("h").map((b) => b.label || b.emoji),
    ["U1", "U2", "U3", "U4", "🔄", "V1", "V2", "V3", "V4"],
  );
  t.same(
    upscaleButtons("h", true).map((b) => b.label || b.emoji),
    ["Upscale (Subtle)", "Upscale (Creative)", "Vary (Subtle)", "Vary (Strong)", "Vary (Region)", "Zoom Out 2x", "Zoom Out 1.5x", "Custom Zoom", "⬅️", "➡️", "⬆️", "⬇️"],
  );
  t.equal(upscaleButtons("h", false).length, 10);
  t.same(
    describeButtons(4).map((b) => b.customId),
    ["MJ::Job::PicReader::1", "MJ::Job::PicReader::2", "MJ::Job::PicReader::3", "MJ::Job::PicReader::4", "MJ::Picread::Retry"],
  );
  t.equal(shortenButtons(5).length, 5);
  for (const b of [...gridButtons("h"), ...upscaleButtons("h", true)]) {
    t.equal(b.type, 2);
    t.ok(parseCustomId(b.customId), `${b.customId} parses`);
  }
  t.same(localButtons(upscaled.payload, {}).length, 12);
  t.same(localButtons(upscaled2x.payload, {}).length, 10);
  t.same(localButtons(task({ operation: { kind: "swap_face" } }).payload, { image: { data: new Uint8Array(), mimeType: "image/png", width: 1, height: 1, grid: false } }), []);
});

t.test("relayed buttons: understood ones re-hashed to this task, the way back kept", async (t) => {
  const r = relayButtons("ours", [
    { customId: "MJ::JOB::upsample::1::theirs", emoji: "", label: "U1", style: 2, type: 2 },
    { customId: "MJ::JOB::animate_high::1::theirs::SOLO", emoji: "", label: "Animate", style: 2, type: 2 },
    { customId: "MJ::Job::PicReader::1", emoji: "1️⃣", label: "", style: 2, type: 2 },
  ]);
  t.same(
    r.buttons.map((b) => b.customId),
    ["MJ::JOB::upsample::1::ours", "MJ::Job::PicReader::1"],
  );
  t.same(r.map, { "MJ::JOB::upsample::1::ours": "MJ::JOB::upsample::1::theirs", "MJ::Job::PicReader::1": "MJ::Job::PicReader::1" });
});
