// Pure mapping between image-bot jobs and midjourney-proxy's API: which
// endpoint and body a job submits, what its answers and task states mean.
import type { ImageBotButton, ImageBotJob } from "../../core/ports.js";
import type { SubmitResult, VendorTask } from "./wire.js";

export interface VendorRequest {
  path: string;
  body: Record<string, unknown>;
}

const dataUrl = (i: { data: Uint8Array; mimeType: string }) => `data:${i.mimeType};base64,${Buffer.from(i.data).toString("base64")}`;
const botType = (b: ImageBotJob["botType"]) => (b === "ANIME_BOT" ? "NIJI_JOURNEY" : "MID_JOURNEY");

/** The first submission of a job. */
export function toVendorSubmit(job: ImageBotJob, notifyHook?: string): VendorRequest {
  const hook = notifyHook ? { notifyHook } : {};
  const op = job.operation;
  switch (op.kind) {
    case "imagine":
      if (!job.parent) return { path: "/submit/imagine", body: { prompt: job.prompt, base64Array: job.inputs.map(dataUrl), botType: botType(job.botType), ...hook } };
      break;
    case "blend":
      return { path: "/submit/blend", body: { base64Array: job.inputs.map(dataUrl), dimensions: op.dimensions, botType: botType(job.botType), ...hook } };
    case "describe":
      if (!job.upstreamCustomId) return { path: "/submit/describe", body: { base64: dataUrl(job.inputs[0]!), botType: botType(job.botType), ...hook } };
      break;
    case "shorten":
      return { path: "/submit/shorten", body: { prompt: job.prompt, botType: botType(job.botType), ...hook } };
    case "swap_face":
      return { path: "/insight-face/swap", body: { sourceBase64: dataUrl(job.inputs[0]!), targetBase64: dataUrl(job.inputs[1]!), ...hook } };
    default:
      break;
  }
  if (!job.parent?.upstreamTaskId || !job.upstreamCustomId) throw new Error("this follow-up has no upstream task or button to press");
  return { path: "/submit/action", body: { taskId: job.parent.upstreamTaskId, customId: job.upstreamCustomId, ...hook } };
}

/** The modal confirmation an action needs when the upstream answers "waiting for window confirm". */
export function toVendorModal(job: ImageBotJob, upstreamTaskId: string): VendorRequest {
  return { path: "/submit/modal", body: { taskId: upstreamTaskId, prompt: job.prompt, ...(job.mask ? { maskBase64: dataUrl(job.mask) } : {}) } };
}

/** A refusal in the gateway's words, and the upstream's answer for the log only. */
export type SubmitOutcome = { accepted: string } | { modal: string } | { refused: string; detail: string };

/**
 * What a submit answer means: 1 and 22 accepted, 21 with a task id a modal wait,
 * anything else refused. The upstream's banned word is named only when it is
 * part of the prompt sent (the client's own text); its description never is.
 */
export function fromVendorSubmit(r: SubmitResult, prompt = ""): SubmitOutcome {
  const id = r.result === null || r.result === undefined ? "" : String(r.result);
  const desc = r.description ?? "";
  if ((r.code === 1 || r.code === 22) && id) return { accepted: id };
  if (r.code === 21 && id && (/confirm|modal/i.test(desc) || r.properties?.remix === true || r.properties?.status === "MODAL")) return { modal: id };
  const word = r.properties?.bannedWord;
  const banned = typeof word === "string" && word && prompt.includes(word) ? ` (banned word: ${word})` : "";
  const what: Record<number, string> = { 3: "no available account", 4: "validation error", 9: "system error", 21: "already exists", 22: "queued", 23: "queue full", 24: "banned prompt" };
  return { refused: `the upstream refused the task: code ${r.code} (${what[r.code] ?? "error"})${banned}`, detail: JSON.stringify(r).slice(0, 4096) };
}

/** A failure's reason is the gateway's; the upstream's failReason is the detail, for the log only. */
export type TaskState = { state: "running"; progress: number; imageUrl: string } | { state: "success"; task: VendorTask } | { state: "failure"; reason: string; detail: string };

/** "45%" -> 45 (0 when unreadable). */
export function progressOf(p: string | null | undefined): number {
  const m = /(\d{1,3})/.exec(p ?? "");
  return m ? Math.min(100, Number(m[1])) : 0;
}

export function fromVendorTask(t: VendorTask): TaskState {
  switch ((t.status ?? "").toUpperCase()) {
    case "SUCCESS":
      return { state: "success", task: t };
    case "FAILURE":
      return { state: "failure", reason: "the upstream task failed", detail: t.failReason ?? "" };
    case "CANCEL":
      return { state: "failure", reason: "the upstream task was cancelled", detail: t.failReason ?? "" };
    default:
      return { state: "running", progress: progressOf(t.progress), imageUrl: t.imageUrl ?? "" };
  }
}

export function fromVendorButtons(t: VendorTask): ImageBotButton[] {
  return (t.buttons ?? []).map((b) => ({ customId: b.customId, emoji: b.emoji ?? "", label: b.label ?? "", style: b.style ?? 2, type: b.type ?? 2 }));
}

/** Describe's four prompts from its finalPrompt ("1️⃣ ...\n\n2️⃣ ..."). */
export function splitPrompts(finalPrompt: string): string[] {
  return finalPrompt
    .split(/\n\s*\n|\n(?=\s*[1-5]\uFE0F?\u20E3)/)
    .map((s) => s.replace(/^\s*[1-5]\uFE0F?\u20E3\s*/, "").trim())
    .filter(Boolean);
}

/** Whether the result of an operation is a 2x2 grid. */
export function isGridResult(job: ImageBotJob): boolean {
  return !["upscale", "upscale_2x", "describe", "shorten", "swap_face"].includes(job.operation.kind);
}
