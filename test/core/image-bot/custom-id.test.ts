// customId forms of midjourney-proxy (wire-formats.md D.4): parse and format, table-tested.
import t from "tap";
import { formatCustomId, parseCustomId, rehash, type ButtonAction } from "../../../src/core/image-bot/custom-id.js";

const H = "85a4b4c1-8835-46c5-a15c-aea34fad1862";

const TABLE: [string, ButtonAction, string | undefined][] = [
  [`MJ::JOB::upsample::1::${H}`, { kind: "upsample", index: 1 }, H],
  [`MJ::JOB::upsample::4::${H}`, { kind: "upsample", index: 4 }, H],
  [`MJ::JOB::variation::2::${H}`, { kind: "variation", index: 2 }, H],
  [`MJ::JOB::reroll::0::${H}::SOLO`, { kind: "reroll" }, H],
  [`MJ::JOB::low_variation::1::${H}::SOLO`, { kind: "low_variation" }, H],
  [`MJ::JOB::high_variation::1::${H}::SOLO`, { kind: "high_variation" }, H],
  [`MJ::Inpaint::1::${H}::SOLO`, { kind: "inpaint" }, H],
  [`MJ::Outpaint::50::1::${H}::SOLO`, { kind: "outpaint", zoom: 50 }, H],
  [`MJ::Outpaint::75::1::${H}::SOLO`, { kind: "outpaint", zoom: 75 }, H],
  [`MJ::CustomZoom::${H}`, { kind: "custom_zoom" }, H],
  [`MJ::JOB::pan_left::1::${H}::SOLO`, { kind: "pan", direction: "left" }, H],
  [`MJ::JOB::pan_right::1::${H}::SOLO`, { kind: "pan", direction: "right" }, H],
  [`MJ::JOB::pan_up::1::${H}::SOLO`, { kind: "pan", direction: "up" }, H],
  [`MJ::JOB::pan_down::1::${H}::SOLO`, { kind: "pan", direction: "down" }, H],
  [`MJ::JOB::upsample_v6_2x_subtle::1::${H}::SOLO`, { kind: "upscale_2x", mode: "subtle", version: "v6" }, H],
  [`MJ::JOB::upsample_v6_2x_creative::1::${H}::SOLO`, { kind: "upscale_2x", mode: "creative", version: "v6" }, H],
  ["MJ::Job::PicReader::1", { kind: "pic_reader", index: 1 }, undefined],
  ["MJ::Job::PicReader::4", { kind: "pic_reader", index: 4 }, undefined],
  ["MJ::Picread::Retry", { kind: "picread_retry" }, undefined],
  ["MJ::Job::PromptAnalyzer::5", { kind: "prompt_analyzer", index: 5 }, undefined],
];

t.test("every form parses to its action and formats back to itself", async (t) => {
  for (const [id, action, hash] of TABLE) {
    t.same(parseCustomId(id), hash === undefined ? { action } : { action, hash }, id);
    t.equal(formatCustomId(action, hash ?? ""), id, `format ${id}`);
  }
});

t.test("variants other proxies emit are understood", async (t) => {
  t.same(parseCustomId(`MJ::CustomZoom::1::${H}`), { action: { kind: "custom_zoom" }, hash: H });
  t.same(parseCustomId(`MJ::JOB::upsample::2::${H}::SOLO`), { action: { kind: "upsample", index: 2 }, hash: H });
  t.same(parseCustomId(`MJ::JOB::upsample_v6r1_2x_subtle::1::${H}::SOLO`), { action: { kind: "upscale_2x", mode: "subtle", version: "v6r1" }, hash: H });
  t.same(parseCustomId(`MJ::JOB::upsample_v5_4x::1::${H}::SOLO`), { action: { kind: "upscale_2x", mode: "creative", version: "v5" }, hash: H });
});

t.test("unknown or malformed customIds are refused", async (t) => {
  for (const bad of [
    "",
    "hello",
    `MJ::JOB::upsample::5::${H}`,
    `MJ::JOB::upsample::0::${H}`,
    `MJ::JOB::variation::1::`,
    `MJ::JOB::animate_high::1::${H}::SOLO`,
    `MJ::BOOKMARK::${H}`,
    `MJ::Outpaint::60::1::${H}::SOLO`,
    "MJ::Job::PicReader::5",
    "MJ::Job::PromptAnalyzer::6",
    `mj::job::upsample::1::${H}`,
    `MJ::JOB::upsample::1::${H}::SOLO::extra`,
  ]) {
    t.equal(parseCustomId(bad), undefined, JSON.stringify(bad));
  }
});

t.test("rehash keeps the button and swaps the job hash", async (t) => {
  t.equal(rehash(`MJ::JOB::variation::3::${H}`, "mine"), "MJ::JOB::variation::3::mine");
  t.equal(rehash("MJ::Job::PicReader::2", "mine"), "MJ::Job::PicReader::2");
  t.equal(rehash("MJ::JOB::animate_low::1::x::SOLO", "mine"), undefined);
});
