// The built-in image model profiles IMG_MODEL_A..D with the rules of spec 4.2
// and 8, and the aliases that map other model names onto them. Pure data plus
// the lookup; validate.ts applies the rules.
import { IMAGE_PROFILE_IDS } from "../../config.js";

export type ProfileId = (typeof IMAGE_PROFILE_IDS)[number];
export type Operation = "generate" | "edit" | "variation";

const MB = 1024 * 1024;

/** Rules for the files of an edit or a variation. */
export interface InputRules {
  /** sharp format names ("png", "jpeg", "webp"). */
  formats: string[];
  /** Files must be strictly smaller than this. */
  maxBytes: number;
  square: boolean;
  maxImages: number;
  /** Without a mask the (first) image must contain fully transparent pixels, which become the mask. */
  transparencyWithoutMask: boolean;
}

export interface ImageProfile {
  id: ProfileId;
  operations: Operation[];
  /** Maximum prompt length (characters) per operation. */
  promptMax: Partial<Record<Operation, number>>;
  nMax: number;
  /** Accepted sizes per operation; the first entry of `defaultSize` applies when unset. */
  sizes: Partial<Record<Operation, string[]>>;
  defaultSize: string;
  /** Undefined: the model has no such parameter. */
  qualities?: string[];
  defaultQuality?: string;
  /** What "auto" quality resolves to. */
  autoQuality?: string;
  styles?: string[];
  defaultStyle?: string;
  outputFormats?: string[];
  backgrounds?: string[];
  /** Output formats that can carry a transparent background. */
  transparentFormats?: string[];
  outputCompression: boolean;
  moderation?: string[];
  inputFidelity?: string[];
  edit?: InputRules;
  variation?: InputRules;
  mask?: { maxBytes: number };
  /** Reports token usage (spec 2.3: only IMG_MODEL_C). */
  reportsUsage: boolean;
  /** What an unset response_format gives: `url` for the DALL-E models (spec 4.2), `b64_json` for the GPT image models (which return only base64). */
  defaultResponseFormat: "url" | "b64_json";
  /** Serves streamed generations and edits (partial images). */
  streams: boolean;
  /** The model rewrites prompts and returns revised_prompt. */
  rewritesPrompt: boolean;
  /** Fields echoed on the result. */
  echo: Array<"size" | "quality" | "output_format" | "background">;
}

const A_SIZES = ["256x256", "512x512", "1024x1024"];
const C_SIZES = ["1024x1024", "1536x1024", "1024x1536", "auto"];
const GPT_FORMATS = ["png", "jpeg", "webp"];
const BACKGROUNDS = ["transparent", "opaque", "auto"];

export const PROFILES: Record<ProfileId, ImageProfile> = {
  IMG_MODEL_A: {
    id: "IMG_MODEL_A",
    operations: ["generate", "edit", "variation"],
    promptMax: { generate: 1000, edit: 1000 },
    nMax: 10,
    sizes: { generate: A_SIZES, edit: A_SIZES, variation: A_SIZES },
    defaultSize: "1024x1024",
    qualities: ["standard", "auto"],
    defaultQuality: "standard",
    autoQuality: "standard",
    outputCompression: false,
    edit: { formats: ["png"], maxBytes: 4 * MB, square: true, maxImages: 1, transparencyWithoutMask: true },
    variation: { formats: ["png"], maxBytes: 4 * MB, square: true, maxImages: 1, transparencyWithoutMask: false },
    mask: { maxBytes: 4 * MB },
    reportsUsage: false,
    defaultResponseFormat: "url",
    streams: false,
    rewritesPrompt: false,
    echo: ["size"],
  },
  IMG_MODEL_B: {
    id: "IMG_MODEL_B",
    operations: ["generate"],
    promptMax: { generate: 4000 },
    nMax: 1,
    sizes: { generate: ["1024x1024", "1792x1024", "1024x1792"] },
    defaultSize: "1024x1024",
    qualities: ["standard", "hd"],
    defaultQuality: "standard",
    styles: ["vivid", "natural"],
    defaultStyle: "vivid",
    outputCompression: false,
    reportsUsage: false,
    defaultResponseFormat: "url",
    streams: false,
    rewritesPrompt: true,
    echo: ["size", "quality"],
  },
  IMG_MODEL_C: {
    id: "IMG_MODEL_C",
    operations: ["generate", "edit"],
    promptMax: { generate: 32000, edit: 32000 },
    nMax: 10,
    sizes: { generate: C_SIZES, edit: C_SIZES },
    defaultSize: "auto",
    qualities: ["low", "medium", "high", "auto"],
    defaultQuality: "auto",
    autoQuality: "high",
    outputFormats: GPT_FORMATS,
    backgrounds: BACKGROUNDS,
    transparentFormats: ["png", "webp"],
    outputCompression: true,
    moderation: ["auto", "low"],
    inputFidelity: ["high", "low"],
    edit: { formats: ["png", "webp", "jpeg"], maxBytes: 25 * MB, square: false, maxImages: 16, transparencyWithoutMask: false },
    mask: { maxBytes: 4 * MB },
    reportsUsage: true,
    defaultResponseFormat: "b64_json",
    streams: true,
    rewritesPrompt: false,
    echo: ["size", "quality", "output_format", "background"],
  },
  IMG_MODEL_D: {
    id: "IMG_MODEL_D",
    operations: ["generate"],
    promptMax: { generate: 32000 },
    nMax: 8,
    sizes: { generate: ["1024x1024", "1536x1024", "1024x1792"] },
    defaultSize: "1024x1024",
    qualities: ["low", "medium", "high", "auto"],
    defaultQuality: "auto",
    autoQuality: "medium",
    outputFormats: GPT_FORMATS,
    backgrounds: BACKGROUNDS,
    transparentFormats: ["png"],
    outputCompression: true,
    moderation: ["auto", "low"],
    reportsUsage: false,
    defaultResponseFormat: "b64_json",
    streams: true,
    rewritesPrompt: false,
    echo: ["size", "quality", "output_format", "background"],
  },
};

/** The largest file any profile accepts; multipart limits use it before the model is known. */
export const MAX_INPUT_BYTES = Math.max(...Object.values(PROFILES).flatMap((p) => [p.edit?.maxBytes ?? 0, p.variation?.maxBytes ?? 0]));
export const MAX_MASK_BYTES = Math.max(...Object.values(PROFILES).map((p) => p.mask?.maxBytes ?? 0));
export const MAX_INPUT_IMAGES = Math.max(...Object.values(PROFILES).map((p) => p.edit?.maxImages ?? 0));

export interface ResolvedModel {
  profile: ImageProfile;
  /** The model name as the client sent it (or the default). */
  name: string;
}

export interface ModelResolver {
  resolve(name: string): ResolvedModel | undefined;
  /** Every accepted name: profile ids, then aliases. */
  names(): string[];
}

export function modelResolver(aliases: Record<string, ProfileId>): ModelResolver {
  const table = new Map<string, ProfileId>();
  for (const id of IMAGE_PROFILE_IDS) table.set(id, id);
  for (const [name, id] of Object.entries(aliases)) if (!table.has(name)) table.set(name, id);
  return {
    resolve(name) {
      const id = table.get(name);
      return id ? { profile: PROFILES[id], name } : undefined;
    },
    names: () => [...table.keys()],
  };
}

/** Parses "WxH"; undefined for "auto" or anything else. */
export function parseSize(size: string): { width: number; height: number } | undefined {
  const m = /^(\d{2,5})x(\d{2,5})$/.exec(size);
  return m ? { width: Number(m[1]), height: Number(m[2]) } : undefined;
}
