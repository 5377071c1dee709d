// The image-bot task as the runner stores it (the payload of a StoredTask) and
// its neutral Task message. Pure.
import { type JsonObject } from "@bufbuild/protobuf";
import { create } from "../proto/create.js";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Action, BotType, ButtonSchema, Status, TaskSchema, type Task } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import type { ImageBotButton, ImageBotOperation } from "../ports.js";
import type { StoredTask, TaskStatus } from "../tasks/types.js";

export const IMAGE_BOT_KIND = "image-bot";

export type ActionName = "IMAGINE" | "UPSCALE" | "VARIATION" | "ZOOM" | "PAN" | "DESCRIBE" | "BLEND" | "SHORTEN" | "SWAP_FACE" | "REROLL" | "INPAINT";
export type BotTypeName = "PRIMARY_BOT" | "ANIME_BOT";

export interface ResultImage {
  fileId: string;
  mimeType: string;
  width: number;
  height: number;
  /** A 2x2 grid of four images. */
  grid: boolean;
}

/** What a MODAL task waits for. */
export interface ModalWait {
  kind: "inpaint" | "custom_zoom" | "pic_reader" | "prompt_analyzer" | "remix";
  /** The prompt used when the modal submission gives none. */
  defaultPrompt: string;
}

export interface ImageBotPayload {
  action: ActionName;
  /** The button's own action when it differs from `action` (e.g. "reroll", "custom_zoom"). */
  actionDetail?: string;
  operation: ImageBotOperation;
  prompt: string;
  promptEn: string;
  description: string;
  /** The client's state string, echoed. */
  state: string;
  botType: BotTypeName;
  accountId: string;
  /** Job hash in this task's button customIds. */
  hash: string;
  seed: number;
  parentId?: string;
  customId?: string;
  /** Blob ids of the input images. */
  inputs: string[];
  /** Blob id of the Vary (Region) mask. */
  mask?: string;
  properties: JsonObject;
  buttons: ImageBotButton[];
  result?: ResultImage;
  previewFileId?: string;
  /** Describe: four prompts; shorten: the shortened prompts. */
  prompts?: string[];
  modal?: ModalWait;
  /** The upstream's customId for this task's action (relays). */
  upstreamCustomId?: string;
  /** Relay state: the upstream task id and what else a restart needs. */
  upstream?: Record<string, unknown>;
  /** Our customId -> the upstream's, for the buttons of a relayed result. */
  upstreamButtons?: Record<string, string>;
  /** The origin the client submitted to (file URLs in callbacks when no public URL is configured). */
  urlBase?: string;
}

export type ImageBotTask = StoredTask<ImageBotPayload>;

const ACTIONS: Record<ActionName, Action> = {
  IMAGINE: Action.IMAGINE,
  UPSCALE: Action.UPSCALE,
  VARIATION: Action.VARIATION,
  ZOOM: Action.ZOOM,
  PAN: Action.PAN,
  DESCRIBE: Action.DESCRIBE,
  BLEND: Action.BLEND,
  SHORTEN: Action.SHORTEN,
  SWAP_FACE: Action.SWAP_FACE,
  REROLL: Action.REROLL,
  INPAINT: Action.INPAINT,
};

const STATUSES: Record<TaskStatus, Status> = {
  NOT_START: Status.NOT_START,
  SUBMITTED: Status.SUBMITTED,
  MODAL: Status.MODAL,
  IN_PROGRESS: Status.IN_PROGRESS,
  SUCCESS: Status.SUCCESS,
  FAILURE: Status.FAILURE,
  CANCEL: Status.CANCEL,
};

export const statusFromProto = (s: Status): TaskStatus | undefined => (Object.entries(STATUSES) as [TaskStatus, Status][]).find(([, v]) => v === s)?.[0];

/** Builds a file's URL (the gateway serves it). */
export type FileUrl = (fileId: string) => string;

/** The neutral Task of a stored image-bot task. */
export function toProtoTask(t: ImageBotTask, fileUrl: FileUrl, instanceId = ""): Task {
  const p = t.payload;
  const r = t.run;
  const running = r.status === "SUBMITTED" || r.status === "IN_PROGRESS";
  const image = p.result ? fileUrl(p.result.fileId) : p.previewFileId && running ? fileUrl(p.previewFileId) : "";
  const properties: JsonObject = { ...p.properties };
  if (p.actionDetail) properties.actionDetail = p.actionDetail;
  if (instanceId) properties.discordInstanceId = instanceId;
  return create(TaskSchema, {
    id: t.id,
    action: ACTIONS[p.action],
    status: STATUSES[r.status],
    prompt: p.prompt,
    promptEn: p.promptEn,
    description: p.description,
    failReason: r.failReason ?? "",
    imageUrl: image,
    progress: r.progress,
    clientState: p.state,
    properties,
    buttons: r.status === "SUCCESS" ? p.buttons.map((b) => create(ButtonSchema, b)) : [],
    submitTime: timestampFromMs(r.submitTime),
    ...(r.startTime !== undefined ? { startTime: timestampFromMs(r.startTime) } : {}),
    ...(r.finishTime !== undefined ? { finishTime: timestampFromMs(r.finishTime) } : {}),
    botType: p.botType === "ANIME_BOT" ? BotType.ANIME_BOT : BotType.PRIMARY_BOT,
    notifyHook: r.notifyHook,
    parentId: p.parentId ?? "",
    customId: p.customId ?? "",
    accountId: p.accountId,
    seed: String(p.seed),
    imageUrls: p.result ? [fileUrl(p.result.fileId)] : [],
  });
}
