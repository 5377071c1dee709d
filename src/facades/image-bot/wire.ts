// The /ib wire: request bodies (zod) and the JSON shapes answered, as in spec
// sections 2.1, 2.2 and 4.1. Fields midjourney-proxy clients send as null are
// accepted as absent; unknown fields are ignored.
import { z } from "zod";

const str = z.string().nullish();
const bool = z.boolean().nullish();

/** PRIMARY_BOT / ANIME_BOT, and midjourney-proxy's MID_JOURNEY / NIJI_JOURNEY. */
export const botType = z.enum(["PRIMARY_BOT", "ANIME_BOT", "MID_JOURNEY", "NIJI_JOURNEY"]).nullish();

export const accountFilter = z
  .object({
    channelId: str,
    instanceId: str,
    modes: z.array(z.enum(["RELAX", "FAST", "TURBO"])).nullish(),
    remark: str,
    remix: bool,
    remixAutoConsidered: bool,
  })
  .nullish();

const common = { botType, accountFilter, notifyHook: str, state: str };

export const imagine = z.object({ ...common, prompt: z.string(), base64Array: z.array(z.string()).nullish() });
export const blend = z.object({ ...common, base64Array: z.array(z.string()), dimensions: z.enum(["PORTRAIT", "SQUARE", "LANDSCAPE"]).nullish() });
export const describe = z.object({ ...common, base64: z.string() });
export const shorten = z.object({ ...common, prompt: z.string() });
export const modal = z.object({ taskId: z.string(), maskBase64: str, prompt: str });
export const swap = z.object({ ...common, sourceBase64: z.string(), targetBase64: z.string() });
export const action = z.object({ ...common, customId: z.string(), taskId: z.string(), chooseSameChannel: bool });
export const upload = z.object({
  base64Array: z.array(z.string()),
  filter: z.object({ channelId: str, instanceId: str, remark: str }).nullish(),
});
export const listByCondition = z.object({ ids: z.array(z.string()) });
export const accountUpdate = z
  .object({
    channelId: z.string(),
    instanceId: z.string(),
    modes: z.array(z.enum(["RELAX", "FAST", "TURBO"])).min(1),
    remark: z.string(),
    remix: z.boolean(),
    remixAutoSubmit: z.boolean(),
    enabled: z.boolean(),
    /** midjourney-proxy's name for enabled. */
    enable: z.boolean(),
    concurrency: z.number().int(),
    /** midjourney-proxy's name for concurrency. */
    coreSize: z.number().int(),
    queueSize: z.number().int(),
    botTypes: z.array(z.enum(["PRIMARY_BOT", "ANIME_BOT"])).min(1),
  })
  .partial();

export type Imagine = z.infer<typeof imagine>;
export type Blend = z.infer<typeof blend>;
export type Describe = z.infer<typeof describe>;
export type Shorten = z.infer<typeof shorten>;
export type Modal = z.infer<typeof modal>;
export type Swap = z.infer<typeof swap>;
export type Action = z.infer<typeof action>;
export type Upload = z.infer<typeof upload>;
export type AccountFilter = z.infer<typeof accountFilter>;
export type AccountUpdate = z.infer<typeof accountUpdate>;

/** The submit envelope (spec 2.1); errors carry result null. */
export interface Envelope {
  code: number;
  description: string;
  properties: Record<string, unknown>;
  result: string | string[] | null;
}

export interface WireButton {
  customId: string;
  emoji: string;
  label: string;
  style: number;
  type: number;
}

/** The task object (spec 2.2). Times are epoch milliseconds, null until they happen. */
export interface WireTask {
  id: string;
  action: string;
  status: string;
  prompt: string;
  promptEn: string;
  description: string;
  failReason: string;
  imageUrl: string;
  progress: string;
  state: string;
  properties: Record<string, unknown>;
  buttons: WireButton[];
  submitTime: number | null;
  startTime: number | null;
  finishTime: number | null;
}

export interface WireAccount {
  id: string;
  channel: string;
  channelId: string;
  instanceId: string;
  modes: string[];
  remark: string;
  remix: boolean;
  remixAutoSubmit: boolean;
  enabled: boolean;
  concurrency: number;
  queueSize: number;
  botTypes: string[];
  running: number;
  queued: number;
  lastError: string;
  lastErrorTime: number | null;
}
