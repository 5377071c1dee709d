// The generate-content wire format (spec 4.4 / 2.6): zod shapes of what clients
// send. Every object accepts camelCase and snake_case keys alike (the REST
// examples use both). Forward-compatible: unknown keys are kept (a newer
// SDK's fields, part kinds and tool kinds), and so are enum values newer than
// the gateway; they reach a Gemini channel as sent and are left out for other
// vendors (./translate.ts, docs/translation.md).
import { z } from "zod";
import { sparse } from "../shared/sparse-object.js";

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());

/**
 * Where the snake_case keys of a request can be, derived from its schemas
 * once: an object's own renames, and the plans of its fields that hold
 * objects. Maps, because a body's own keys are what is walked: a lookup per
 * key it has, where probing each key a schema knows costs one (slow, keyed)
 * property lookup per field, present or not.
 */
export type KeyPlan = { kind: "object"; bySnake: Map<string, string>; children: Map<string, KeyPlan> } | { kind: "array"; of: KeyPlan };

const plans = new WeakMap<z.ZodType, KeyPlan>();

function planOf(s: z.ZodType): KeyPlan | undefined {
  if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) return planOf(s.unwrap() as z.ZodType);
  if (s instanceof z.ZodArray) {
    const of = planOf(s.element as z.ZodType);
    return of && { kind: "array", of };
  }
  return plans.get(s);
}

/**
 * An object (unknown keys kept) whose keys may also arrive in snake_case, and
 * where, as in proto3 JSON, a null value means the field is not set. The
 * renaming is done by `request` below, for the whole body in one pass.
 */
export function obj<T extends z.ZodRawShape>(shape: T) {
  const schema = sparse(z.looseObject(shape));
  const bySnake = new Map<string, string>();
  const children = new Map<string, KeyPlan>();
  for (const [k, v] of Object.entries(shape)) {
    if (snake(k) !== k) bySnake.set(snake(k), k);
    const p = planOf(v as z.ZodType);
    if (p) children.set(k, p);
  }
  plans.set(schema, { kind: "object", bySnake, children });
  return schema;
}

/**
 * The value with its known snake_case keys renamed and its null fields
 * dropped, at every level the plan knows (never inside free-form JSON such as
 * functionCall.args). Copy on write: the input is not changed, and a body
 * that needs nothing is returned as it is.
 */
export function normalizeKeys(v: unknown, plan: KeyPlan): unknown {
  if (plan.kind === "array") {
    if (!Array.isArray(v)) return v;
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const n = normalizeKeys(v[i], plan.of);
      if (n !== v[i]) (out ??= v.slice())[i] = n;
    }
    return out ?? v;
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return v;
  const src = v as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const k in src) {
    const x = src[k];
    if (x === null) {
      out ??= { ...src };
      delete out[k];
      continue;
    }
    let key = k;
    // Only a key with an underscore can be a snake_case spelling.
    if (k.indexOf("_") >= 0) {
      const camel = plan.bySnake.get(k);
      if (camel !== undefined) {
        out ??= { ...src };
        delete out[k];
        // Sent in both spellings: camelCase wins.
        if (camel in src) continue;
        out[camel] = x;
        key = camel;
      }
    }
    if (typeof x !== "object") continue;
    const child = plan.children.get(key);
    if (child === undefined) continue;
    const n = normalizeKeys(x, child);
    if (n !== x) (out ??= { ...src })[key] = n;
  }
  return out ?? src;
}

/** A request schema: its keys are normalized (see normalizeKeys) in one pass before validation. */
function request<T extends z.ZodObject>(schema: T) {
  const plan = plans.get(schema)!;
  return z.preprocess((v) => normalizeKeys(v, plan), schema);
}

export const jsonObject = z.record(z.string(), z.unknown());
const int = () => z.number().int();

// ---------------------------------------------------------------- enums

export const HARM_CATEGORIES = [
  "HARM_CATEGORY_UNSPECIFIED",
  "HARM_CATEGORY_HARASSMENT",
  "HARM_CATEGORY_HATE_SPEECH",
  "HARM_CATEGORY_SEXUALLY_EXPLICIT",
  "HARM_CATEGORY_DANGEROUS_CONTENT",
  "HARM_CATEGORY_CIVIC_INTEGRITY",
  "HARM_CATEGORY_DEROGATORY",
  "HARM_CATEGORY_TOXICITY",
  "HARM_CATEGORY_VIOLENCE",
  "HARM_CATEGORY_SEXUAL",
  "HARM_CATEGORY_MEDICAL",
  "HARM_CATEGORY_DANGEROUS",
  "HARM_CATEGORY_JAILBREAK",
] as const;
export const HARM_THRESHOLDS = ["HARM_BLOCK_THRESHOLD_UNSPECIFIED", "BLOCK_LOW_AND_ABOVE", "BLOCK_MEDIUM_AND_ABOVE", "BLOCK_ONLY_HIGH", "BLOCK_NONE", "OFF"] as const;
export const CALLING_MODES = ["MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"] as const;
// The enum lists name the values the gateway maps; the schemas take any
// string, and a newer value goes to Gemini as sent (translate.ts).
export const MEDIA_RESOLUTIONS = ["MEDIA_RESOLUTION_UNSPECIFIED", "MEDIA_RESOLUTION_LOW", "MEDIA_RESOLUTION_MEDIUM", "MEDIA_RESOLUTION_HIGH"] as const;
export const RESPONSE_MODALITIES = ["MODALITY_UNSPECIFIED", "TEXT", "IMAGE", "AUDIO", "VIDEO"] as const;
export const RESPONSE_MIME_TYPES = ["text/plain", "application/json", "text/x.enum"] as const;
export const CODE_LANGUAGES = ["LANGUAGE_UNSPECIFIED", "PYTHON"] as const;
export const CODE_OUTCOMES = ["OUTCOME_UNSPECIFIED", "OUTCOME_OK", "OUTCOME_FAILED", "OUTCOME_DEADLINE_EXCEEDED"] as const;
export const THINKING_LEVELS = ["THINKING_LEVEL_UNSPECIFIED", "MINIMAL", "LOW", "MEDIUM", "HIGH"] as const;

// ---------------------------------------------------------------- content

export const blob = obj({ mimeType: z.string().min(1), data: z.string() });
export const fileData = obj({ mimeType: z.string().optional(), fileUri: z.string() });

export const part = obj({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: blob.optional(),
  fileData: fileData.optional(),
  functionCall: obj({ id: z.string().optional(), name: z.string().min(1), args: jsonObject.optional() }).optional(),
  functionResponse: obj({
    id: z.string().optional(),
    name: z.string().min(1),
    response: jsonObject,
    parts: z.array(obj({ inlineData: blob.optional() })).optional(),
  }).optional(),
  executableCode: obj({ language: z.string().optional(), code: z.string() }).optional(),
  codeExecutionResult: obj({ outcome: z.string(), output: z.string().optional() }).optional(),
  // Settings of a media part only Gemini reads (a video's clip and frame rate, a part's resolution): carried to Gemini as sent.
  videoMetadata: jsonObject.optional(),
  mediaResolution: jsonObject.optional(),
});
export type Part = z.infer<typeof part>;

export const content = obj({
  role: z.string().optional(),
  parts: z.array(part),
});
export type Content = z.infer<typeof content>;

// ---------------------------------------------------------------- tools

export const functionDeclaration = obj({
  name: z.string(),
  description: z.string().optional(),
  parameters: jsonObject.optional(),
  parametersJsonSchema: jsonObject.optional(),
  response: jsonObject.optional(),
  responseJsonSchema: z.unknown().optional(),
  behavior: z.string().optional(),
});
export type FunctionDeclaration = z.infer<typeof functionDeclaration>;

/** Built-in tools other than code execution, passed on as vendor tools. */
export const BUILTIN_TOOLS = ["googleSearch", "googleSearchRetrieval", "urlContext", "computerUse", "fileSearch", "googleMaps", "retrieval", "enterpriseWebSearch"] as const;

export const tool = obj({
  functionDeclarations: z.array(functionDeclaration).optional(),
  codeExecution: jsonObject.optional(),
  googleSearch: jsonObject.optional(),
  googleSearchRetrieval: jsonObject.optional(),
  urlContext: jsonObject.optional(),
  computerUse: jsonObject.optional(),
  fileSearch: jsonObject.optional(),
  googleMaps: jsonObject.optional(),
  retrieval: jsonObject.optional(),
  enterpriseWebSearch: jsonObject.optional(),
});
export type Tool = z.infer<typeof tool>;

export const toolConfig = obj({
  functionCallingConfig: obj({
    mode: z.string().optional(),
    allowedFunctionNames: z.array(z.string()).optional(),
  }).optional(),
  // For Gemini's own grounding tools (a location for Maps and Search) and its server-side tool calls: carried to Gemini as sent.
  retrievalConfig: jsonObject.optional(),
  includeServerSideToolInvocations: z.boolean().optional(),
});

export const safetySetting = obj({
  category: z.string(),
  threshold: z.string(),
  method: z.string().optional(),
});

// ---------------------------------------------------------------- generation config

const voiceConfig = obj({
  prebuiltVoiceConfig: obj({ voiceName: z.string() }).optional(),
  replicatedVoiceConfig: obj({ mimeType: z.string().optional(), voiceSampleAudio: z.string().optional(), consentAudio: z.string().optional() }).optional(),
  voice: z.string().optional(),
});

/** Image output settings (image models); carried to Gemini as sent. */
export const imageConfig = obj({
  aspectRatio: z.string().optional(),
  imageSize: z.string().optional(),
  personGeneration: z.string().optional(),
  outputMimeType: z.string().optional(),
  outputCompressionQuality: int().min(0).max(100).optional(),
  imageOutputOptions: jsonObject.optional(),
  prominentPeople: z.string().optional(),
});

export const speechConfig = obj({
  voiceConfig: voiceConfig.optional(),
  multiSpeakerVoiceConfig: obj({ speakerVoiceConfigs: z.array(obj({ speaker: z.string(), voiceConfig })) }).optional(),
  languageCode: z.string().optional(),
});

export const thinkingConfig = obj({
  includeThoughts: z.boolean().optional(),
  thinkingBudget: int().min(-1).optional(),
  thinkingLevel: z.string().optional(),
});

export const generationConfig = obj({
  stopSequences: z.array(z.string()).max(5).optional(),
  responseMimeType: z.string().optional(),
  responseSchema: jsonObject.optional(),
  responseJsonSchema: z.unknown().optional(),
  responseModalities: z.array(z.string()).optional(),
  candidateCount: int().min(1).max(8).optional(),
  maxOutputTokens: int().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  topK: int().min(1).optional(),
  seed: int().optional(),
  presencePenalty: z.number().min(-2).max(2).optional(),
  frequencyPenalty: z.number().min(-2).max(2).optional(),
  responseLogprobs: z.boolean().optional(),
  logprobs: int().min(0).max(20).optional(),
  enableEnhancedCivicAnswers: z.boolean().optional(),
  speechConfig: speechConfig.optional(),
  imageConfig: imageConfig.optional(),
  thinkingConfig: thinkingConfig.optional(),
  mediaResolution: z.string().optional(),
});
export type GenerationConfig = z.infer<typeof generationConfig>;

// ---------------------------------------------------------------- requests

const CACHED_NAME = /^cachedContents\/[A-Za-z0-9_-]{1,128}$/;

const requestShape = {
  contents: z.array(content),
  systemInstruction: content.optional(),
  tools: z.array(tool).optional(),
  toolConfig: toolConfig.optional(),
  safetySettings: z.array(safetySetting).optional(),
  generationConfig: generationConfig.optional(),
  cachedContent: z.string().regex(CACHED_NAME, { error: "must be a cached content name: cachedContents/{id}" }).optional(),
  // Serving hints only Gemini reads: carried to it as sent, left out for other vendors.
  serviceTier: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
};

/** Request fields the neutral model names; the rest go to Gemini as sent (model: countTokens' copy of the path's). */
export const MODELLED_REQUEST_FIELDS = new Set(["contents", "systemInstruction", "tools", "toolConfig", "safetySettings", "generationConfig", "cachedContent", "model"]);

export const generateContentRequest = request(obj(requestShape));
export type GenerateContentRequest = z.infer<typeof generateContentRequest>;

/** countTokens takes either contents or a whole generateContentRequest. */
export const countTokensRequest = request(
  obj({
    contents: z.array(content).optional(),
    generateContentRequest: obj({ model: z.string().optional(), ...requestShape }).optional(),
  }),
);
export type CountTokensRequest = z.infer<typeof countTokensRequest>;

// ---------------------------------------------------------------- cachedContents

/** A protobuf Duration in JSON: "3600s", "1.5s". */
export const DURATION = /^\d{1,12}(\.\d{1,9})?s$/;

export const cachedContent = request(
  obj({
    model: z.string().min(1),
    displayName: z.string().max(128).optional(),
    contents: z.array(content).optional(),
    systemInstruction: content.optional(),
    tools: z.array(tool).optional(),
    toolConfig: toolConfig.optional(),
    ttl: z.string().regex(DURATION, { error: 'must be a duration such as "3600s"' }).optional(),
    expireTime: z.iso.datetime({ offset: true, error: "must be an RFC 3339 timestamp" }).optional(),
  }),
);
export type CachedContentBody = z.infer<typeof cachedContent>;

export const cachedContentPatch = request(
  obj({
    ttl: z.string().regex(DURATION, { error: 'must be a duration such as "3600s"' }).optional(),
    expireTime: z.iso.datetime({ offset: true, error: "must be an RFC 3339 timestamp" }).optional(),
  }),
);

// ---------------------------------------------------------------- embeddings

const embedContentShape = {
  /** "models/{model}": optional alone, required in a batch (and then the path's model). */
  model: z.string().optional(),
  content,
  taskType: z.string().optional(),
  title: z.string().optional(),
  outputDimensionality: int().optional(),
};

/** EmbedContentRequest fields the neutral model names; the rest go to Gemini as sent. */
export const MODELLED_EMBED_FIELDS = new Set(Object.keys(embedContentShape));

export const embedContentRequest = request(obj(embedContentShape));
export type EmbedContentRequest = z.infer<typeof embedContentRequest>;

export const batchEmbedContentsRequest = request(obj({ requests: z.array(obj(embedContentShape)) }));
export type BatchEmbedContentsRequest = z.infer<typeof batchEmbedContentsRequest>;
