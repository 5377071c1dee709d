// midjourney-proxy mapping: jobs to requests, answers and task states to outcomes. Pure.
import t from "tap";
import { fromVendorButtons, fromVendorSubmit, fromVendorTask, isGridResult, progressOf, splitPrompts, toVendorModal, toVendorSubmit } from "../../../src/providers/midjourney/translate.js";
import { apiPrefix } from "../../../src/providers/midjourney/client.js";
import * as wire from "../../../src/providers/midjourney/wire.js";
import type { ImageBotJob } from "../../../src/core/ports.js";

const img = { data: new Uint8Array([1, 2, 3]), mimeType: "image/png" };
const job = (p: Partial<ImageBotJob>): ImageBotJob => ({ taskId: "t", operation: { kind: "imagine" }, prompt: "cat --ar 3:2", botType: "PRIMARY_BOT", seed: 1, inputs: [], ...p });

t.test("first submissions by operation", async (t) => {
  t.same(toVendorSubmit(job({ inputs: [img] }), "https://gw/notify"), {
    path: "/submit/imagine",
    body: { prompt: "cat --ar 3:2", base64Array: ["data:image/png;base64,AQID"], botType: "MID_JOURNEY", notifyHook: "https://gw/notify" },
  });
  t.same(toVendorSubmit(job({ operation: { kind: "blend", dimensions: "LANDSCAPE" }, inputs: [img, img], botType: "ANIME_BOT" })), {
    path: "/submit/blend",
    body: { base64Array: ["data:image/png;base64,AQID", "data:image/png;base64,AQID"], dimensions: "LANDSCAPE", botType: "NIJI_JOURNEY" },
  });
  t.same(toVendorSubmit(job({ operation: { kind: "describe" }, inputs: [img] })), { path: "/submit/describe", body: { base64: "data:image/png;base64,AQID", botType: "MID_JOURNEY" } });
  t.same(toVendorSubmit(job({ operation: { kind: "shorten" }, prompt: "long prompt" })), { path: "/submit/shorten", body: { prompt: "long prompt", botType: "MID_JOURNEY" } });
  t.same(toVendorSubmit(job({ operation: { kind: "swap_face" }, inputs: [img, img] })).path, "/insight-face/swap");
  const follow = { parent: { prompt: "cat", upstreamTaskId: "U1" }, upstreamCustomId: "MJ::JOB::upsample::2::theirs" };
  t.same(toVendorSubmit(job({ operation: { kind: "upscale", index: 2 }, ...follow })), { path: "/submit/action", body: { taskId: "U1", customId: "MJ::JOB::upsample::2::theirs" } });
  t.same(
    toVendorSubmit(job({ operation: { kind: "imagine" }, parent: { prompt: "p", upstreamTaskId: "D1" }, upstreamCustomId: "MJ::Job::PicReader::1" })).path,
    "/submit/action",
    "describe -> imagine is an action",
  );
  t.same(toVendorSubmit(job({ operation: { kind: "describe" }, parent: { prompt: "", upstreamTaskId: "D1" }, upstreamCustomId: "MJ::Picread::Retry" })).path, "/submit/action");
  t.throws(() => toVendorSubmit(job({ operation: { kind: "upscale", index: 1 }, parent: { prompt: "" } })), /no upstream task/);
  t.same(toVendorModal(job({ prompt: "cat --zoom 1.5", mask: img }), "M9"), { path: "/submit/modal", body: { taskId: "M9", prompt: "cat --zoom 1.5", maskBase64: "data:image/png;base64,AQID" } });
});

t.test("submit answers", async (t) => {
  t.same(fromVendorSubmit({ code: 1, description: "提交成功", result: "1712205491372" }), { accepted: "1712205491372" });
  t.same(fromVendorSubmit({ code: 22, description: "排队中", result: 1712205491372, properties: { numberOfQueues: 1 } }), { accepted: "1712205491372" });
  t.same(fromVendorSubmit({ code: 21, description: "Waiting for window confirm", result: "M1" }), { modal: "M1" });
  const banned = { code: 24, description: "可能包含敏感词", properties: { bannedWord: "nude" } };
  t.same(
    fromVendorSubmit(banned, "a nude statue"),
    { refused: "the upstream refused the task: code 24 (banned prompt) (banned word: nude)", detail: JSON.stringify(banned) },
    "a banned word of the prompt is named",
  );
  t.same(
    fromVendorSubmit(banned, "a statue"),
    { refused: "the upstream refused the task: code 24 (banned prompt)", detail: JSON.stringify(banned) },
    "one the prompt does not hold is the upstream's text: not named",
  );
  t.match(fromVendorSubmit({ code: 21, description: "任务已存在", result: "X" }), { refused: "the upstream refused the task: code 21 (already exists)" });
  t.match(fromVendorSubmit({ code: 23, description: null }), { refused: "the upstream refused the task: code 23 (queue full)" });
  t.match(fromVendorSubmit({ code: 77, description: "upstream words" }), { refused: "the upstream refused the task: code 77 (error)", detail: /upstream words/ });
});

t.test("task states", async (t) => {
  t.same(fromVendorTask({ id: "1", status: "IN_PROGRESS", progress: "45%", imageUrl: "https://cdn/p.webp" }), { state: "running", progress: 45, imageUrl: "https://cdn/p.webp" });
  t.same(fromVendorTask({ id: "1", status: "SUBMITTED", progress: "0%" }), { state: "running", progress: 0, imageUrl: "" });
  t.same(fromVendorTask({ id: "1", status: "NOT_START", progress: null }), { state: "running", progress: 0, imageUrl: "" });
  t.same(fromVendorTask({ id: "1", status: "FAILURE", failReason: "banned" }), { state: "failure", reason: "the upstream task failed", detail: "banned" });
  t.same(fromVendorTask({ id: "1", status: "CANCEL" }), { state: "failure", reason: "the upstream task was cancelled", detail: "" });
  t.equal(fromVendorTask({ id: "1", status: "SUCCESS" }).state, "success");
  t.equal(progressOf("100%"), 100);
  t.equal(progressOf("abc"), 0);
  t.same(fromVendorButtons({ id: "1", buttons: [{ customId: "c", emoji: null, label: "U1" }] }), [{ customId: "c", emoji: "", label: "U1", style: 2, type: 2 }]);
});

t.test("a button's style or type the neutral model cannot hold reads as absent", async (t) => {
  const parsed = wire.task.parse({
    id: 1,
    buttons: [
      { customId: "c", style: 1.5, type: 2 ** 40 },
      { customId: "d", style: 4, type: "2" },
    ],
  });
  t.same(
    fromVendorButtons(parsed).map((b) => [b.style, b.type]),
    [
      [2, 2],
      [4, 2],
    ],
  );
});

t.test("describe prompts, grids, API prefix", async (t) => {
  t.same(splitPrompts("1️⃣ a cat --ar 5:4\n\n2️⃣ a dog\n\n3️⃣ a bird\n\n4️⃣ a fish"), ["a cat --ar 5:4", "a dog", "a bird", "a fish"]);
  t.ok(isGridResult(job({})));
  t.notOk(isGridResult(job({ operation: { kind: "upscale", index: 1 } })));
  t.equal(apiPrefix(new URL("http://h:8080")), "/mj");
  t.equal(apiPrefix(new URL("http://h:8080/mj/")), "/mj");
  t.equal(apiPrefix(new URL("http://h/api")), "/api/mj");
});
