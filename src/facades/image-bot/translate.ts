// /ib wire <-> neutral ImageBotService messages. Pure: no fastify, no I/O.
import { create } from "../../core/proto/create.js";
import { timestampMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import { InputFileSchema, type InputFile } from "../../../gen/omnigate/common/v1/common_pb.js";
import {
  AccountFilterSchema,
  AccountMode,
  AccountSchema,
  Action,
  BotType,
  Dimensions,
  Status,
  SubmitActionRequestSchema,
  SubmitModalRequestSchema,
  SubmitTaskRequestSchema,
  UpdateAccountRequestSchema,
  UploadImagesRequestSchema,
  type Account,
  type AccountFilter,
  type SubmitActionRequest,
  type SubmitModalRequest,
  type SubmitResult,
  type SubmitTaskRequest,
  type Task,
  type UpdateAccountRequest,
  type UploadImagesRequest,
} from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { badRequest } from "./errors.js";
import type * as wire from "./wire.js";

const DATA_URL = /^data:([a-z]+\/[\w.+-]+)(?:;[\w-]+=[\w.-]+)*;base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A data-URL image as an InputFile; the filename carries the client's field name for error messages. */
export function fromDataUrl(value: string, field: string): InputFile {
  const m = DATA_URL.exec(value);
  if (!m) throw badRequest(`${field} must be a base64 image with its data-URL prefix, e.g. data:image/png;base64,...`);
  const b64 = value.slice(m[0].length).replace(/\s+/g, "");
  if (b64.length === 0) throw badRequest(`${field} has no image data after its prefix`);
  if (!BASE64.test(b64) || b64.length % 4 === 1) throw badRequest(`${field} is not valid base64`);
  return create(InputFileSchema, { filename: field, mimeType: m[1]!.toLowerCase(), source: { case: "data", value: new Uint8Array(Buffer.from(b64, "base64")) } });
}

const BOT_TYPES: Record<string, BotType> = { PRIMARY_BOT: BotType.PRIMARY_BOT, MID_JOURNEY: BotType.PRIMARY_BOT, ANIME_BOT: BotType.ANIME_BOT, NIJI_JOURNEY: BotType.ANIME_BOT };
const MODES: Record<string, AccountMode> = { RELAX: AccountMode.RELAX, FAST: AccountMode.FAST, TURBO: AccountMode.TURBO };
const DIMENSIONS: Record<string, Dimensions> = { PORTRAIT: Dimensions.PORTRAIT, SQUARE: Dimensions.SQUARE, LANDSCAPE: Dimensions.LANDSCAPE };

export function toCoreFilter(f: wire.AccountFilter): AccountFilter | undefined {
  if (!f) return undefined;
  return create(AccountFilterSchema, {
    channelId: f.channelId ?? "",
    instanceId: f.instanceId ?? "",
    modes: (f.modes ?? []).map((m) => MODES[m]!),
    remark: f.remark ?? "",
    ...(typeof f.remix === "boolean" ? { remix: f.remix } : {}),
    ...(typeof f.remixAutoConsidered === "boolean" ? { remixAutoConsidered: f.remixAutoConsidered } : {}),
  });
}

interface Common {
  botType?: string | null | undefined;
  accountFilter?: wire.AccountFilter;
  notifyHook?: string | null | undefined;
  state?: string | null | undefined;
}

function common(b: Common) {
  const filter = toCoreFilter(b.accountFilter);
  return {
    botType: BOT_TYPES[b.botType ?? ""] ?? BotType.PRIMARY_BOT,
    notifyHook: b.notifyHook ?? "",
    clientState: b.state ?? "",
    ...(filter ? { accountFilter: filter } : {}),
  };
}

export function toCoreImagine(b: wire.Imagine): SubmitTaskRequest {
  return create(SubmitTaskRequestSchema, { ...common(b), action: Action.IMAGINE, prompt: b.prompt, images: (b.base64Array ?? []).map((s, i) => fromDataUrl(s, `base64Array[${i}]`)) });
}

export function toCoreBlend(b: wire.Blend): SubmitTaskRequest {
  if (b.base64Array.length < 2 || b.base64Array.length > 5) throw badRequest(`base64Array: blend takes 2 to 5 images; got ${b.base64Array.length}`);
  return create(SubmitTaskRequestSchema, {
    ...common(b),
    action: Action.BLEND,
    images: b.base64Array.map((s, i) => fromDataUrl(s, `base64Array[${i}]`)),
    dimensions: DIMENSIONS[b.dimensions ?? "SQUARE"] ?? Dimensions.SQUARE,
  });
}

export function toCoreDescribe(b: wire.Describe): SubmitTaskRequest {
  return create(SubmitTaskRequestSchema, { ...common(b), action: Action.DESCRIBE, images: [fromDataUrl(b.base64, "base64")] });
}

export function toCoreShorten(b: wire.Shorten): SubmitTaskRequest {
  return create(SubmitTaskRequestSchema, { ...common(b), action: Action.SHORTEN, prompt: b.prompt });
}

export function toCoreSwap(b: wire.Swap): SubmitTaskRequest {
  return create(SubmitTaskRequestSchema, {
    ...common(b),
    action: Action.SWAP_FACE,
    images: [fromDataUrl(b.sourceBase64, "sourceBase64"), fromDataUrl(b.targetBase64, "targetBase64")],
  });
}

export function toCoreAction(b: wire.Action): SubmitActionRequest {
  const c = common(b);
  return create(SubmitActionRequestSchema, {
    taskId: b.taskId,
    customId: b.customId,
    chooseSameChannel: b.chooseSameChannel ?? false,
    notifyHook: c.notifyHook,
    clientState: c.clientState,
    ...(c.accountFilter ? { accountFilter: c.accountFilter } : {}),
  });
}

export function toCoreModal(b: wire.Modal): SubmitModalRequest {
  return create(SubmitModalRequestSchema, { taskId: b.taskId, prompt: b.prompt ?? "", ...(b.maskBase64 ? { mask: fromDataUrl(b.maskBase64, "maskBase64") } : {}) });
}

export function toCoreUpload(b: wire.Upload): UploadImagesRequest {
  return create(UploadImagesRequestSchema, {
    images: b.base64Array.map((s, i) => fromDataUrl(s, `base64Array[${i}]`)),
    ...(b.filter ? { filter: { channelId: b.filter.channelId ?? "", instanceId: b.filter.instanceId ?? "", remark: b.filter.remark ?? "" } } : {}),
  });
}

const ACCOUNT_FIELDS: [keyof wire.AccountUpdate, string][] = [
  ["channelId", "channel_id"],
  ["instanceId", "instance_id"],
  ["modes", "modes"],
  ["remark", "remark"],
  ["remix", "remix"],
  ["remixAutoSubmit", "remix_auto_submit"],
  ["enabled", "enabled"],
  ["enable", "enabled"],
  ["concurrency", "concurrency"],
  ["coreSize", "concurrency"],
  ["queueSize", "queue_size"],
  ["botTypes", "bot_types"],
];

export function toCoreAccountUpdate(id: string, b: wire.AccountUpdate): UpdateAccountRequest {
  const mask = [...new Set(ACCOUNT_FIELDS.filter(([k]) => b[k] !== undefined).map(([, f]) => f))];
  if (mask.length === 0) throw badRequest("the body names no account field to update");
  const account: Account = create(AccountSchema, {
    id,
    channelId: b.channelId ?? "",
    instanceId: b.instanceId ?? "",
    modes: (b.modes ?? []).map((m) => MODES[m]!),
    remark: b.remark ?? "",
    remix: b.remix ?? false,
    remixAutoSubmit: b.remixAutoSubmit ?? false,
    enabled: b.enabled ?? b.enable ?? false,
    concurrency: b.concurrency ?? b.coreSize ?? 0,
    queueSize: b.queueSize ?? 0,
    botTypes: (b.botTypes ?? []).map((t) => BOT_TYPES[t]!),
  });
  return create(UpdateAccountRequestSchema, { account, updateMask: mask });
}

// ------------------------------------------------------------------ from core

export function fromCoreResult(r: SubmitResult | undefined): wire.Envelope {
  return { code: r?.code ?? 23, description: r?.description ?? "", properties: { ...(r?.properties ?? {}) }, result: r?.taskId ? r.taskId : null };
}

/** The spec's nine actions; reroll shows as IMAGINE and vary region as VARIATION (properties.actionDetail tells them apart). */
const ACTION_NAMES: Partial<Record<Action, string>> = {
  [Action.IMAGINE]: "IMAGINE",
  [Action.UPSCALE]: "UPSCALE",
  [Action.VARIATION]: "VARIATION",
  [Action.ZOOM]: "ZOOM",
  [Action.PAN]: "PAN",
  [Action.DESCRIBE]: "DESCRIBE",
  [Action.BLEND]: "BLEND",
  [Action.SHORTEN]: "SHORTEN",
  [Action.SWAP_FACE]: "SWAP_FACE",
  [Action.REROLL]: "IMAGINE",
  [Action.INPAINT]: "VARIATION",
};

const STATUS_NAMES: Partial<Record<Status, string>> = {
  [Status.NOT_START]: "NOT_START",
  [Status.SUBMITTED]: "SUBMITTED",
  [Status.MODAL]: "MODAL",
  [Status.IN_PROGRESS]: "IN_PROGRESS",
  [Status.FAILURE]: "FAILURE",
  [Status.SUCCESS]: "SUCCESS",
  [Status.CANCEL]: "CANCEL",
};

const ms = (t: Timestamp | undefined) => (t ? timestampMs(t) : null);

/** Progress as the wire shows it: "0%" ... "100%", "" once failed. */
export function progressText(status: Status, progress: number): string {
  return status === Status.FAILURE ? "" : `${progress}%`;
}

export function fromCoreTask(t: Task): wire.WireTask {
  return {
    id: t.id,
    action: ACTION_NAMES[t.action] ?? "IMAGINE",
    status: STATUS_NAMES[t.status] ?? "NOT_START",
    prompt: t.prompt,
    promptEn: t.promptEn,
    description: t.description,
    failReason: t.failReason,
    imageUrl: t.imageUrl,
    progress: progressText(t.status, t.progress),
    state: t.clientState,
    properties: { ...(t.properties ?? {}) },
    buttons: t.buttons.map((b) => ({ customId: b.customId, emoji: b.emoji, label: b.label, style: b.style, type: b.type })),
    submitTime: ms(t.submitTime),
    startTime: ms(t.startTime),
    finishTime: ms(t.finishTime),
  };
}

const MODE_NAMES: Record<number, string> = { [AccountMode.RELAX]: "RELAX", [AccountMode.FAST]: "FAST", [AccountMode.TURBO]: "TURBO" };

export function fromCoreAccount(a: Account): wire.WireAccount {
  return {
    id: a.id,
    channel: a.channel,
    channelId: a.channelId,
    instanceId: a.instanceId,
    modes: a.modes.map((m) => MODE_NAMES[m] ?? "FAST"),
    remark: a.remark,
    remix: a.remix,
    remixAutoSubmit: a.remixAutoSubmit,
    enabled: a.enabled,
    concurrency: a.concurrency,
    queueSize: a.queueSize,
    botTypes: a.botTypes.map((b) => (b === BotType.ANIME_BOT ? "ANIME_BOT" : "PRIMARY_BOT")),
    running: a.running,
    queued: a.queued,
    lastError: a.lastError,
    lastErrorTime: ms(a.lastErrorTime),
  };
}
