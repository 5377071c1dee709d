// Capability interfaces every provider implements. The core depends on these,
// never on a concrete vendor.
import type { ChatInput, CountTokensResponse, GenerateResponse, StreamGenerateResponse } from "../../gen/omnigate/chat/v1/chat_pb.js";
import type { EmbedRequest, EmbedResponse } from "../../gen/omnigate/embedding/v1/embedding_pb.js";
import type { ImageUsage } from "../../gen/omnigate/image/v1/image_pb.js";

export interface CallContext {
  signal: AbortSignal;
  requestId: string;
  /** The model name to send upstream (after the channel's modelMap). */
  upstreamModel: string;
}

export interface ChatProvider {
  /** Provider kind: "local", "openai", "anthropic", "gemini". */
  readonly kind: string;
  generate(input: ChatInput, ctx: CallContext): Promise<GenerateResponse>;
  /** Events in the order documented on StreamGenerateResponse; failures throw ConnectError. */
  stream(input: ChatInput, ctx: CallContext): AsyncIterable<StreamGenerateResponse>;
  countTokens(input: ChatInput, ctx: CallContext): Promise<CountTokensResponse>;
}

/**
 * Embeddings: the request as the core checked it (1 to 2048 non-empty inputs,
 * dimensions > 0 when set). The answer holds one vector per input, in order,
 * and the input tokens; the core fills in model and channel.
 */
export interface EmbeddingProvider {
  /** Provider kind: "local", "openai", "gemini". */
  readonly kind: string;
  /** Failures throw ConnectError (Unavailable and the retryable reasons fall over to the next route). */
  embed(job: EmbedRequest, ctx: CallContext): Promise<EmbedResponse>;
}

/** An input image of an edit or variation, already checked and measured by the core. */
export interface ImageInput {
  data: Uint8Array;
  mimeType: string;
  filename: string;
  /** sharp format name: "png", "jpeg", "webp". */
  format: string;
  width: number;
  height: number;
}

/** One image operation with the model's rules applied and its defaults resolved. */
export interface ImageJob {
  operation: "generate" | "edit" | "variation";
  /** The profile that governs the request ("IMG_MODEL_A".."IMG_MODEL_D"). */
  profile: string;
  /** "" for variations. */
  prompt: string;
  /** Edit: one or more images (the mask applies to the first); variation: exactly one. */
  images: ImageInput[];
  mask?: ImageInput | undefined;
  n: number;
  width: number;
  height: number;
  /** Resolved values; "" where the model has no such parameter. */
  quality: string;
  style: string;
  outputFormat: "png" | "jpeg" | "webp";
  background: "transparent" | "opaque";
  outputCompression?: number | undefined;
  seed?: number | undefined;
  /** Previews per image a streamed call asks for (0 to 3); unset when the call is not streamed. */
  partialImages?: number | undefined;
  /** The parameters exactly as the client set them ("" when unset), for upstreams that take them verbatim. */
  given: {
    size: string;
    quality: string;
    style: string;
    outputFormat: string;
    background: string;
    outputCompression?: number | undefined;
    moderation: string;
    inputFidelity: string;
    responseFormat: "" | "url" | "b64_json";
    user: string;
  };
}

/** One produced image: encoded bytes (the core measures them). */
export interface ProducedImage {
  data: Uint8Array;
  /** Set when the model rewrote the prompt. */
  revisedPrompt?: string | undefined;
}

export interface ImageResult {
  images: ProducedImage[];
  /** Token usage, when the model reports it. */
  usage?: ImageUsage | undefined;
}

/** One event of a streamed image job: previews, then exactly one result. */
export type ImageStreamEvent = { kind: "partial"; imageIndex: number; partialIndex: number; data: Uint8Array } | { kind: "result"; result: ImageResult };

export interface ImageProvider {
  /** Provider kind: "local", "openai". */
  readonly kind: string;
  /** Runs the job; failures throw ConnectError. */
  run(job: ImageJob, ctx: CallContext): Promise<ImageResult>;
  /** Runs the job streamed (job.partialImages set); failures throw ConnectError. Without it a stream gets run()'s result and no previews. */
  stream?(job: ImageJob, ctx: CallContext): AsyncIterable<ImageStreamEvent>;
}

// ---------------------------------------------------------------- image-bot tasks

/** An encoded image handed to or produced by an image-bot provider. */
export interface ImageBytes {
  data: Uint8Array;
  mimeType: string;
}

/** What an image-bot task asks the provider to do. */
export type ImageBotOperation =
  | { kind: "imagine" }
  | { kind: "blend"; dimensions: "PORTRAIT" | "SQUARE" | "LANDSCAPE" }
  | { kind: "describe" }
  | { kind: "shorten" }
  | { kind: "swap_face" }
  /** Un: one quadrant of a grid as its own image. */
  | { kind: "upscale"; index: number }
  /** Upscale (Subtle/Creative) of an upscaled image: twice the size. */
  | { kind: "upscale_2x"; mode: "subtle" | "creative" }
  /** Vn: a new grid around quadrant n of a grid. */
  | { kind: "variation"; index: number }
  /** Vary (Subtle/Strong) of an upscaled image: a new grid. */
  | { kind: "vary"; strength: "subtle" | "strong" }
  | { kind: "reroll" }
  | { kind: "zoom"; factor: number }
  | { kind: "pan"; direction: "left" | "right" | "up" | "down" }
  /** Vary (Region): only the masked area changes. */
  | { kind: "inpaint" };

export interface ImageBotJob {
  taskId: string;
  operation: ImageBotOperation;
  /** The English prompt with its parameters (--ar, --zoom, ...). */
  prompt: string;
  botType: "PRIMARY_BOT" | "ANIME_BOT";
  /** Seed of this task's images. */
  seed: number;
  /** Image prompts, blend inputs, the describe input, or [source, target] of a face swap. */
  inputs: ImageBytes[];
  /** The task a follow-up action starts from. */
  parent?: {
    prompt: string;
    /** Its image (local engine). */
    image?: ImageBytes;
    /** Its id at the upstream (relays). */
    upstreamTaskId?: string;
    seed?: number;
  };
  /** The vendor's own customId of the button pressed (relays). */
  upstreamCustomId?: string;
  /** Vary (Region) mask: white = change. */
  mask?: ImageBytes;
  /** State an earlier run of this job saved (resume after a restart). */
  resume?: Record<string, unknown>;
}

export interface ImageBotRunContext {
  signal: AbortSignal;
  /** Reports progress (0..99), with a preview image while it runs. */
  progress(percent: number, preview?: ImageBytes): Promise<void>;
  /** Saves what a later run needs to resume (e.g. the upstream task id). */
  save(state: Record<string, unknown>): Promise<void>;
}

export interface ImageBotButton {
  customId: string;
  emoji: string;
  label: string;
  style: number;
  type: number;
}

export interface ImageBotOutput {
  /** The result image; `grid` when it is a 2x2 grid of four images. */
  image?: ImageBytes & { width: number; height: number; grid: boolean };
  /** Describe: the four prompts; shorten: the shortened prompts. */
  prompts?: string[];
  /** The text shown as properties.finalPrompt (describe and shorten results). */
  finalPrompt?: string;
  /** The upstream's buttons (relays); the core offers those it understands. */
  upstreamButtons?: ImageBotButton[];
  /** Extra facts for task properties. */
  properties?: Record<string, string>;
}

export interface ImageBotProvider {
  /** "local" or "midjourney". */
  readonly kind: string;
  /** Runs one task; failures throw ConnectError with a message fit for clients. */
  run(job: ImageBotJob, ctx: ImageBotRunContext): Promise<ImageBotOutput>;
  /** The seed of a finished upstream task (relays). */
  seed?(upstreamTaskId: string, signal: AbortSignal): Promise<string>;
}

// ---------------------------------------------------------------- video

/** A reference image of an image-to-video job: its bytes, or (for upstreams, which fetch it themselves) only the client's URL. */
export interface VideoReference {
  data?: Uint8Array | undefined;
  /** "" when only the URL is known. */
  mimeType: string;
  /** The client's http(s) URL, for upstreams that fetch it themselves. */
  url?: string | undefined;
}

/** One video generation with its parameters resolved by the core. */
export interface VideoJob {
  taskId: string;
  prompt: string;
  /** The model name to send upstream (after the channel's modelMap). */
  upstreamModel: string;
  width: number;
  height: number;
  /** Whole seconds. */
  duration: number;
  fps: number;
  seed: number;
  /** The parameters exactly as the client set them ("" / 0 when unset), for upstreams that take them verbatim. */
  given: { size: string; aspectRatio: string; duration: number; fps: number; seed?: number | undefined };
  reference?: VideoReference | undefined;
  /** Vendor extras, passed through to upstreams. */
  metadata: Record<string, unknown>;
  /** A remix: the parent's prompt and seed, and its id at this upstream when it was made there. */
  remixOf?: { prompt: string; seed: number; upstreamId?: string | undefined } | undefined;
  /** State an earlier run of this job saved (resume after a restart). */
  resume?: Record<string, unknown> | undefined;
}

export interface VideoRunContext {
  signal: AbortSignal;
  /** Reports progress, 0..99. */
  progress(percent: number): Promise<void>;
  /** Saves what a later run needs to resume (e.g. the upstream video id). */
  save(state: Record<string, unknown>): Promise<void>;
}

export interface VideoAsset {
  data: Uint8Array;
  mimeType: string;
}

export interface VideoOutput {
  video: VideoAsset;
  /** Stills the upstream made; the core derives any missing one from the video's real frames. */
  thumbnail?: VideoAsset | undefined;
  spritesheet?: VideoAsset | undefined;
  /** The upstream's id of the video (kept for remixes on the same upstream). */
  upstreamId?: string | undefined;
}

export interface VideoProvider {
  /** "local", "openai-videos", "video-gateway". */
  readonly kind: string;
  /** Refuses a job before it is accepted (throws ConnectError); called when the task is created. */
  admit?(prompt: string): void;
  /** Runs one job; failures throw ConnectError, whose ErrorDetail reason becomes the video's error code. */
  run(job: VideoJob, ctx: VideoRunContext): Promise<VideoOutput>;
}
