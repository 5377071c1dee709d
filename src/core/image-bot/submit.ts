// Accepting image-bot work: imagine, blend, describe, shorten and face swap,
// follow-up actions from buttons, and modal confirmations. Every path checks
// its inputs, the prompt (sensitive words, translation), the caller's balance
// and the account pool, then stores the task and answers with the envelope
// code: 1 submitted, 22 queued, 24 account unavailable; an exhausted budget is
// a PermissionDenied (code 25 at the edge).
import { randomBytes, randomUUID } from "node:crypto";
import { type JsonObject } from "@bufbuild/protobuf";
import { create } from "../proto/create.js";
import type { InputFile } from "../../../gen/omnigate/common/v1/common_pb.js";
import {
  Action,
  BotType,
  Dimensions,
  SubmitResultSchema,
  type AccountFilter,
  type SubmitActionRequest,
  type SubmitModalRequest,
  type SubmitResult,
  type SubmitTaskRequest,
} from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import type { ImageBotOperation } from "../ports.js";
import type { Call } from "../call/call.js";
import { Code, coreError, invalidArgument } from "../errors.js";
import { QueueFullError } from "../tasks/types.js";
import { callbackUrlProblem } from "../tasks/ssrf.js";
import { queueOf, type AccountFilterSpec, type AccountMode, type AccountView } from "./accounts.js";
import { planAction, type ActionPlan } from "./action-plan.js";
import { parseCustomId } from "./custom-id.js";
import type { ImageBotDeps } from "./deps.js";
import { checkImage, checkImages, type CheckedImage } from "./image-input.js";
import { IMAGE_BOT_KIND, type ActionName, type BotTypeName, type ImageBotPayload, type ImageBotTask } from "./model.js";
import { findBannedWord, seedOf, zoomOf } from "./prompt.js";
import { translatePrompt } from "./prompt-translation.js";

/** Who submits: the core call, whose principal owns the task and whose format and key the prompt translation uses. */
export type Caller = Call;

export const MAX_PROMPT_CHARS = 8192;
const MODES: Record<number, AccountMode> = { 1: "RELAX", 2: "FAST", 3: "TURBO" };

export function filterSpec(f: AccountFilter | undefined): AccountFilterSpec | undefined {
  if (!f) return undefined;
  return {
    ...(f.channelId ? { channelId: f.channelId } : {}),
    ...(f.instanceId ? { instanceId: f.instanceId } : {}),
    ...(f.modes.length ? { modes: f.modes.map((m) => MODES[m]).filter((m): m is AccountMode => !!m) } : {}),
    ...(f.remark ? { remark: f.remark } : {}),
    ...(f.remix !== undefined ? { remix: f.remix } : {}),
    ...(f.remixAutoConsidered !== undefined ? { remixAutoConsidered: f.remixAutoConsidered } : {}),
  };
}

/** Task ids as midjourney-proxy makes them: epoch ms and three random digits. */
export function newTaskId(now: number): string {
  return `${now}${String(randomBytes(2).readUInt16BE(0) % 1000).padStart(3, "0")}`;
}

const result = (code: number, description: string, taskId = "", properties: JsonObject = {}): SubmitResult => create(SubmitResultSchema, { code, description, taskId, properties });
/** A result that names the channel of the account that took the task (for its usage record). */
function tookBy(account: AccountView, r: SubmitResult): SubmitResult {
  r.channel = account.channel;
  return r;
}

/** A confirmed modal's result names the action it runs. */
function modalOf(action: string, r: SubmitResult): SubmitResult {
  r.action = action;
  return r;
}

const fieldOf = (f: InputFile | undefined, fallback: string) => f?.filename || fallback;

export class ImageBotSubmitter {
  constructor(private readonly deps: ImageBotDeps) {}

  /** The task if the caller may see it, else NotFound. */
  async owned(id: string, caller: Caller, field = "id"): Promise<ImageBotTask> {
    const t = id ? await this.deps.runner.get<ImageBotPayload>(id) : undefined;
    if (!t || t.kind !== IMAGE_BOT_KIND || (!caller.principal.admin && t.ownerKeyId !== caller.principal.keyId)) {
      throw coreError(Code.NotFound, `task ${id || "(empty)"} does not exist`, { reason: "task_not_found", field });
    }
    return t;
  }

  async submitTask(req: SubmitTaskRequest, caller: Caller): Promise<SubmitResult> {
    const botType: BotTypeName = req.botType === BotType.ANIME_BOT ? "ANIME_BOT" : "PRIMARY_BOT";
    const notifyHook = this.notifyHook(req.notifyHook);
    let action: ActionName;
    let operation: ImageBotOperation;
    let images: CheckedImage[] = [];
    let prompt = req.prompt.trim();
    switch (req.action) {
      case Action.IMAGINE:
        action = "IMAGINE";
        operation = { kind: "imagine" };
        this.requirePrompt(prompt);
        if (req.images.length > 5) throw invalidArgument(`base64Array: at most 5 image prompts are accepted; got ${req.images.length}`, "base64Array");
        images = await checkImages(req.images, "base64Array");
        break;
      case Action.BLEND: {
        action = "BLEND";
        if (req.images.length < 2 || req.images.length > 5) throw invalidArgument(`base64Array: blend takes 2 to 5 images; got ${req.images.length}`, "base64Array", "blend_image_count");
        images = await checkImages(req.images, "base64Array");
        const dims = req.dimensions === Dimensions.PORTRAIT ? "PORTRAIT" : req.dimensions === Dimensions.LANDSCAPE ? "LANDSCAPE" : "SQUARE";
        operation = { kind: "blend", dimensions: dims };
        prompt = "";
        break;
      }
      case Action.DESCRIBE:
        action = "DESCRIBE";
        operation = { kind: "describe" };
        if (req.images.length !== 1) throw invalidArgument("base64: describe takes exactly one image", "base64");
        images = [await checkImage(req.images[0], fieldOf(req.images[0], "base64"))];
        prompt = "";
        break;
      case Action.SHORTEN:
        action = "SHORTEN";
        operation = { kind: "shorten" };
        this.requirePrompt(prompt);
        break;
      case Action.SWAP_FACE:
        action = "SWAP_FACE";
        operation = { kind: "swap_face" };
        if (req.images.length !== 2) throw invalidArgument("sourceBase64 and targetBase64 are both required", req.images.length === 0 ? "sourceBase64" : "targetBase64");
        images = [await checkImage(req.images[0], fieldOf(req.images[0], "sourceBase64")), await checkImage(req.images[1], fieldOf(req.images[1], "targetBase64"))];
        prompt = "";
        break;
      default:
        throw invalidArgument("action must be IMAGINE, BLEND, DESCRIBE, SHORTEN or SWAP_FACE", "action");
    }
    const checked = prompt ? await this.checkPrompt(prompt, caller) : { promptEn: "", properties: {} };
    const choice = this.deps.pool.choose({ botType, filter: filterSpec(req.accountFilter) });
    if ("unavailable" in choice) return result(24, `account unavailable: ${choice.unavailable}`);
    const id = newTaskId(this.deps.now());
    const inputs = await this.storeInputs(images, caller);
    const payload: ImageBotPayload = {
      action,
      operation,
      prompt,
      promptEn: checked.promptEn,
      description: describeSubmission(action, id, prompt, images.length),
      state: req.clientState,
      botType,
      accountId: choice.account.id,
      hash: randomUUID(),
      seed: seedOf(checked.promptEn) ?? randomBytes(4).readUInt32BE(0),
      inputs,
      properties: { ...checked.properties, ...(checked.promptEn ? { finalPrompt: checked.promptEn } : {}) },
      buttons: [],
      ...(caller.urlBase ? { urlBase: caller.urlBase } : {}),
    };
    return this.admit(id, payload, choice.account, notifyHook, caller);
  }

  async submitAction(req: SubmitActionRequest, caller: Caller): Promise<SubmitResult> {
    if (!req.taskId) throw invalidArgument("taskId is required", "taskId");
    if (!req.customId) throw invalidArgument("customId is required", "customId");
    const notifyHook = this.notifyHook(req.notifyHook);
    const parent = await this.owned(req.taskId, caller, "taskId");
    if (parent.run.status !== "SUCCESS") throw invalidArgument(`task ${parent.id} has no buttons yet (status ${parent.run.status})`, "taskId", "task_not_finished");
    if (!parent.payload.buttons.some((b) => b.customId === req.customId)) {
      throw invalidArgument(`customId ${req.customId} is not one of the buttons of task ${parent.id}`, "customId", "unknown_custom_id");
    }
    const parsed = parseCustomId(req.customId);
    const planned = parsed ? planAction(parsed, parent) : { refused: `customId ${req.customId} is not an action this gateway runs` };
    if ("refused" in planned) throw invalidArgument(planned.refused, "customId", "unknown_custom_id");
    const plan = planned.plan;
    const parentAccount = this.deps.pool.get(parent.payload.accountId);
    const choice = this.deps.pool.choose({
      botType: parent.payload.botType,
      filter: filterSpec(req.accountFilter),
      channel: parentAccount?.channel ?? "local",
      ...(req.chooseSameChannel && parentAccount ? { channelId: parentAccount.channelId } : {}),
    });
    if ("unavailable" in choice) return result(24, `account unavailable: ${choice.unavailable}`);
    const account = choice.account;
    const modal = plan.modal === "always" || (plan.modal === "remix" && account.remix && !account.remixAutoSubmit);
    const id = newTaskId(this.deps.now());
    const payload = this.childPayload(parent, plan, account, req.customId, req.clientState);
    if (caller.urlBase) payload.urlBase = caller.urlBase;
    if (modal) {
      payload.modal = { kind: plan.modalKind ?? "remix", defaultPrompt: plan.prompt };
      const { task } = await this.deps.runner.create({ id, kind: IMAGE_BOT_KIND, ownerKeyId: caller.principal.keyId, status: "MODAL", queue: queueOf(account.id), notifyHook, payload });
      return tookBy(account, result(1, "Waiting for window confirm", task.id, { status: "MODAL" }));
    }
    return this.admit(id, payload, account, notifyHook, caller);
  }

  async submitModal(req: SubmitModalRequest, caller: Caller): Promise<SubmitResult> {
    const task = await this.owned(req.taskId, caller, "taskId");
    const p = task.payload;
    if (task.run.status !== "MODAL" || !p.modal) throw invalidArgument(`task ${task.id} is not waiting for a modal submission (status ${task.run.status})`, "taskId", "not_modal");
    const prompt = req.prompt.trim() || p.modal.defaultPrompt;
    this.requirePrompt(prompt);
    const next: ImageBotPayload = { ...p, prompt };
    if (p.modal.kind === "inpaint") {
      if (!req.mask) throw invalidArgument("maskBase64 is required for Vary (Region)", "maskBase64");
      const mask = await checkImage(req.mask, "maskBase64");
      next.mask = (await this.storeInputs([mask], caller))[0];
    }
    if (p.modal.kind === "custom_zoom") {
      const zoom = zoomOf(prompt);
      if (zoom === undefined || zoom < 1 || zoom > 2) throw invalidArgument("prompt: Custom Zoom needs --zoom with a value from 1 to 2", "prompt", "invalid_zoom");
      next.operation = { kind: "zoom", factor: zoom };
    }
    const checked = await this.checkPrompt(prompt, caller);
    next.promptEn = checked.promptEn;
    next.properties = { ...p.properties, ...checked.properties, finalPrompt: checked.promptEn };
    if (p.modal.kind === "pic_reader" || p.modal.kind === "prompt_analyzer") next.description = `/imagine ${prompt}`;
    let account = this.deps.pool.get(p.accountId);
    if (!account || !account.enabled || !this.deps.pool.channelEnabled(account.channel) || !this.deps.runner.hasRoom(queueOf(account.id))) {
      const choice = this.deps.pool.choose({ botType: p.botType, channel: account?.channel ?? "local" });
      if ("unavailable" in choice) return modalOf(p.action, result(24, `account unavailable: ${choice.unavailable}`, ""));
      account = choice.account;
    }
    next.accountId = account.id;
    try {
      const { position } = await this.deps.runner.confirm(task.id, queueOf(account.id), next);
      return modalOf(p.action, tookBy(account, position > 0 ? queued(task.id, position) : result(1, "Submit success", task.id)));
    } catch (err) {
      if (err instanceof QueueFullError) return modalOf(p.action, tookBy(account, result(24, "account unavailable: every matching account's queue is full")));
      throw err;
    }
  }

  // ------------------------------------------------------------------ helpers

  private childPayload(parent: ImageBotTask, plan: ActionPlan, account: AccountView, customId: string, state: string): ImageBotPayload {
    const pp = parent.payload;
    return {
      action: plan.action,
      ...(plan.actionDetail ? { actionDetail: plan.actionDetail } : {}),
      operation: plan.operation,
      prompt: plan.prompt,
      promptEn: plan.promptEn,
      description: plan.description,
      state,
      botType: pp.botType,
      accountId: account.id,
      hash: randomUUID(),
      seed: randomBytes(4).readUInt32BE(0),
      parentId: parent.id,
      customId,
      inputs: plan.inputs,
      properties: plan.promptEn ? { finalPrompt: plan.promptEn } : {},
      buttons: [],
      ...(pp.upstreamButtons?.[customId] ? { upstreamCustomId: pp.upstreamButtons[customId] } : {}),
    };
  }

  private async admit(id: string, payload: ImageBotPayload, account: AccountView, notifyHook: string, caller: Caller): Promise<SubmitResult> {
    try {
      const { position } = await this.deps.runner.create({ id, kind: IMAGE_BOT_KIND, ownerKeyId: caller.principal.keyId, status: "NOT_START", queue: queueOf(account.id), notifyHook, payload });
      return tookBy(account, position > 0 ? queued(id, position) : result(1, "Submit success", id));
    } catch (err) {
      if (err instanceof QueueFullError) return tookBy(account, result(24, "account unavailable: every matching account's queue is full"));
      throw err;
    }
  }

  private requirePrompt(prompt: string): void {
    if (!prompt) throw invalidArgument("prompt is required", "prompt");
    if (prompt.length > MAX_PROMPT_CHARS) throw invalidArgument(`prompt is longer than ${MAX_PROMPT_CHARS} characters`, "prompt");
  }

  /** Translates a Chinese prompt and refuses banned words (code 21 with properties.bannedWord). */
  private async checkPrompt(prompt: string, caller: Caller): Promise<{ promptEn: string; properties: JsonObject }> {
    const words = this.deps.settings.bannedWords;
    const early = findBannedWord(prompt, words);
    const t = early ? { promptEn: prompt, properties: {} } : await translatePrompt(prompt, { model: this.deps.settings.translateModel, chat: this.deps.chat, call: caller });
    const banned = early ?? findBannedWord(t.promptEn, words);
    if (banned)
      throw coreError(Code.InvalidArgument, `the prompt may contain a sensitive word: ${banned}`, { reason: "banned_prompt", field: "prompt", metadata: { bannedWord: banned, promptEn: t.promptEn } });
    return t;
  }

  private notifyHook(given: string): string {
    const hook = given.trim();
    if (!hook) return this.deps.settings.globalNotifyHook;
    const problem = callbackUrlProblem(hook, this.deps.settings.allowPrivateCallbacks);
    if (problem) throw invalidArgument(`notifyHook ${problem}`, "notifyHook", "invalid_notify_hook");
    return hook;
  }

  private async storeInputs(images: CheckedImage[], caller: Caller): Promise<string[]> {
    const ids: string[] = [];
    for (const img of images) ids.push(await this.deps.files.put(img.data, { mimeType: img.mimeType, kind: "upload", ownerKeyId: caller.principal.keyId }));
    return ids;
  }
}

function queued(id: string, position: number): SubmitResult {
  return result(22, `In queue, ${position - 1} task(s) ahead`, id, { numberOfQueues: position });
}

export function describeSubmission(action: ActionName, id: string, prompt: string, images: number): string {
  switch (action) {
    case "IMAGINE":
      return `/imagine ${prompt}`;
    case "BLEND":
      return `/blend ${id} ${images}`;
    case "DESCRIBE":
      return `/describe ${id}.png`;
    case "SHORTEN":
      return `/shorten ${prompt}`;
    case "SWAP_FACE":
      return `/swap_face ${id}`;
    default:
      return `/${action.toLowerCase()} ${id}`;
  }
}
