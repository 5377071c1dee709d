// generate-content request -> neutral ChatInput. Pure: no I/O, no clock.
// Shape was checked by ./wire.ts; this checks meaning, and every error names
// the wire field (contents[0].parts[1].fileData, generationConfig.responseSchema).
//
// What the neutral model cannot say rides in vendor_extras.gemini, for a
// Gemini channel to get as sent: unknown fields (of the request, its
// settings, a content, a part, a function declaration), parts and tools of
// kinds the gateway does not know (whole), and enum values newer than it
// (under their own field, the neutral field getting the nearest known value or none).
import { type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import {
  ChatInputSchema,
  GenerationConfigSchema,
  HarmBlockThreshold,
  HarmCategory,
  MediaResolution,
  Modality,
  RequestMetadataSchema,
  SafetySettingSchema,
  ThinkingConfigSchema,
  ToolChoiceMode,
  ToolChoiceSchema,
  ToolSchema,
  type ChatInput,
  type GenerationConfig,
  type SafetySetting,
  type Tool,
  type ToolChoice,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { invalidArgument } from "../../core/errors.js";
import { unknownFields } from "../../core/json-fields.js";
import { toCoreSystem, toCoreTurns, type Origin } from "./contents.js";
import { geminiToJsonSchema } from "./schema.js";
import { GEMINI } from "./thought-signature.js";
import { toCoreGoogleSearch } from "./web-search.js";
import type * as wire from "./wire.js";
import {
  BUILTIN_TOOLS,
  CALLING_MODES,
  generationConfig,
  HARM_CATEGORIES,
  HARM_THRESHOLDS,
  MEDIA_RESOLUTIONS,
  MODELLED_REQUEST_FIELDS,
  RESPONSE_MIME_TYPES,
  RESPONSE_MODALITIES,
  THINKING_LEVELS,
} from "./wire.js";

export { toCoreSystem, toCoreTurns };

export const SOURCE_FORMAT = "generate-content";

const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/;

/** The declaration fields the neutral function tool names; the rest (behavior, response, newer ones) ride with it, for Gemini. */
const DECLARATION_FIELDS = new Set(["name", "description", "parameters", "parametersJsonSchema"]);
/** A tool's kinds the gateway knows; any other key of a tool is a kind newer than it. */
const TOOL_KINDS = new Set<string>(["functionDeclarations", "codeExecution", ...BUILTIN_TOOLS]);

function functionTool(d: wire.FunctionDeclaration, f: string): Tool {
  if (!FUNCTION_NAME.test(d.name)) {
    throw invalidArgument(`${f}.name: function names start with a letter or underscore and contain only a-z, A-Z, 0-9, _, ., : and - (at most 128)`, `${f}.name`);
  }
  if (d.parameters && d.parametersJsonSchema) throw invalidArgument(`${f}: set parameters or parametersJsonSchema, not both`, `${f}.parametersJsonSchema`);
  const parameters = d.parametersJsonSchema ? (d.parametersJsonSchema as JsonObject) : d.parameters ? geminiToJsonSchema(d.parameters, `${f}.parameters`) : { type: "object", properties: {} };
  const tool = create(ToolSchema, { kind: { case: "function", value: { name: d.name, description: d.description ?? "", parameters } } });
  const extras = unknownFields(d, DECLARATION_FIELDS);
  if (extras) tool.vendorExtras = { [GEMINI]: extras };
  return tool;
}

/** A Gemini tool by its kind (a built-in, or one newer than the gateway): Gemini's alone, other vendors refuse it. */
const vendorTool = (kind: string, config: JsonObject) => create(ToolSchema, { kind: { case: "vendor", value: { type: kind, name: kind, config, vendor: GEMINI } } });

export function toCoreTools(tools: wire.Tool[] | undefined, field = "tools"): Tool[] {
  const out: Tool[] = [];
  const names = new Set<string>();
  (tools ?? []).forEach((t, ti) => {
    (t.functionDeclarations ?? []).forEach((d, di) => {
      const f = `${field}[${ti}].functionDeclarations[${di}]`;
      if (names.has(d.name)) throw invalidArgument(`${f}.name: duplicate function name ${d.name}`, `${f}.name`);
      names.add(d.name);
      out.push(functionTool(d, f));
    });
    if (t.codeExecution) out.push(create(ToolSchema, { kind: { case: "codeExecution", value: {} } }));
    for (const k of BUILTIN_TOOLS) {
      const cfg = t[k];
      // Google Search is the neutral web search (web-search.ts); the other built-ins are Gemini's alone.
      if (cfg) out.push(k === "googleSearch" ? toCoreGoogleSearch(cfg as JsonObject) : vendorTool(k, cfg as JsonObject));
    }
    const newer = unknownFields(t, TOOL_KINDS);
    if (newer) {
      for (const [k, cfg] of Object.entries(newer)) {
        if (!cfg || typeof cfg !== "object" || Array.isArray(cfg)) throw invalidArgument(`${field}[${ti}].${k}: a tool's setting must be an object`, `${field}[${ti}].${k}`);
        out.push(vendorTool(k, cfg));
      }
    }
  });
  return out;
}

type WireToolConfig = NonNullable<wire.GenerateContentRequest["toolConfig"]>;

const MODES: Record<string, ToolChoiceMode> = {
  MODE_UNSPECIFIED: ToolChoiceMode.UNSPECIFIED,
  AUTO: ToolChoiceMode.AUTO,
  ANY: ToolChoiceMode.ANY,
  NONE: ToolChoiceMode.NONE,
  VALIDATED: ToolChoiceMode.AUTO,
};
const KNOWN_MODES: ReadonlySet<string> = new Set(CALLING_MODES);
const KNOWN_LEVELS: ReadonlySet<string> = new Set(THINKING_LEVELS);
const KNOWN_RESOLUTIONS: ReadonlySet<string> = new Set(MEDIA_RESOLUTIONS);
const KNOWN_MODALITIES: ReadonlySet<string> = new Set(RESPONSE_MODALITIES);
const KNOWN_CATEGORIES: ReadonlySet<string> = new Set(HARM_CATEGORIES);
const KNOWN_THRESHOLDS: ReadonlySet<string> = new Set(HARM_THRESHOLDS);

/** toolConfig -> ToolChoice; `declared` is undefined when the tools may live in a cached content. */
export function toCoreToolChoice(tc: WireToolConfig | undefined, declared: Set<string> | undefined, field = "toolConfig"): ToolChoice | undefined {
  const fc = tc?.functionCallingConfig;
  if (!fc) return undefined;
  const f = `${field}.functionCallingConfig`;
  const sent = fc.mode ?? "MODE_UNSPECIFIED";
  // A newer mode goes to Gemini as sent (requestExtras); the neutral choice leaves the mode unset.
  const known = KNOWN_MODES.has(sent);
  const mode = known ? sent : "MODE_UNSPECIFIED";
  const allowed = fc.allowedFunctionNames ?? [];
  if (known && allowed.length && mode !== "ANY" && mode !== "VALIDATED") {
    throw invalidArgument(`${f}.allowedFunctionNames: only allowed when mode is ANY or VALIDATED`, `${f}.allowedFunctionNames`);
  }
  if (declared) {
    const unknown = allowed.find((n) => !declared.has(n));
    if (unknown !== undefined) throw invalidArgument(`${f}.allowedFunctionNames: ${unknown} is not a declared function`, `${f}.allowedFunctionNames`);
    if (mode === "ANY" && declared.size === 0) throw invalidArgument(`${f}.mode: ANY needs at least one function declaration`, `${f}.mode`);
  }
  return create(ToolChoiceSchema, { mode: MODES[mode], allowedNames: allowed });
}

const MEDIA_RES: Record<string, MediaResolution> = {
  MEDIA_RESOLUTION_UNSPECIFIED: MediaResolution.UNSPECIFIED,
  MEDIA_RESOLUTION_LOW: MediaResolution.LOW,
  MEDIA_RESOLUTION_MEDIUM: MediaResolution.MEDIUM,
  MEDIA_RESOLUTION_HIGH: MediaResolution.HIGH,
};
const MODALITIES: Record<string, Modality> = { MODALITY_UNSPECIFIED: Modality.UNSPECIFIED, TEXT: Modality.TEXT, IMAGE: Modality.IMAGE, AUDIO: Modality.AUDIO, VIDEO: Modality.VIDEO };

function responseSchemaOf(gc: wire.GenerationConfig, f: string): JsonObject | undefined {
  if (gc.responseSchema && gc.responseJsonSchema !== undefined) {
    throw invalidArgument(`${f}.responseJsonSchema: set responseSchema or responseJsonSchema, not both`, `${f}.responseJsonSchema`);
  }
  if (gc.responseSchema) return geminiToJsonSchema(gc.responseSchema, `${f}.responseSchema`);
  if (gc.responseJsonSchema === undefined) return undefined;
  const js = gc.responseJsonSchema;
  if (!js || typeof js !== "object" || Array.isArray(js)) throw invalidArgument(`${f}.responseJsonSchema: must be a JSON Schema object`, `${f}.responseJsonSchema`);
  return js as JsonObject;
}

export function toCoreConfig(gc: wire.GenerationConfig | undefined, field = "generationConfig"): GenerationConfig | undefined {
  if (!gc) return undefined;
  const f = field;
  const mime = gc.responseMimeType ?? "";
  if (mime && !(RESPONSE_MIME_TYPES as readonly string[]).includes(mime)) {
    throw invalidArgument(`${f}.responseMimeType: ${JSON.stringify(mime)} is not supported; use one of ${RESPONSE_MIME_TYPES.join(", ")}`, `${f}.responseMimeType`);
  }
  const schema = responseSchemaOf(gc, f);
  const schemaField = gc.responseSchema ? `${f}.responseSchema` : `${f}.responseJsonSchema`;
  if (schema && mime !== "application/json" && mime !== "text/x.enum") {
    throw invalidArgument(`${schemaField}: a response schema needs responseMimeType application/json or text/x.enum`, `${f}.responseMimeType`);
  }
  if (mime === "text/x.enum" && !(schema && Array.isArray(schema.enum) && schema.enum.length > 0)) {
    throw invalidArgument(`${f}.responseSchema: text/x.enum needs a responseSchema of type STRING with enum values`, `${f}.responseSchema`);
  }
  if (gc.logprobs !== undefined && !gc.responseLogprobs) {
    throw invalidArgument(`${f}.logprobs: only allowed when responseLogprobs is true`, `${f}.logprobs`);
  }
  const tc = gc.thinkingConfig;
  const budget = tc?.thinkingBudget;
  const level = tc?.thinkingLevel;
  const thinking = tc
    ? create(ThinkingConfigSchema, {
        includeThoughts: tc.includeThoughts ?? false,
        ...(budget === 0 ? { enabled: false } : budget === -1 ? { enabled: true } : budget !== undefined ? { budgetTokens: budget } : {}),
        ...(level && level !== "THINKING_LEVEL_UNSPECIFIED" && KNOWN_LEVELS.has(level) ? { effort: level.toLowerCase() } : {}),
      })
    : undefined;
  // Set field by field (no spread of a fresh object per optional field: this runs on every request).
  const init: MessageInitShape<typeof GenerationConfigSchema> = {
    stopSequences: gc.stopSequences ?? [],
    responseMimeType: mime,
    // Newer modalities and resolutions go to Gemini as sent (requestExtras); the neutral config keeps the known ones.
    responseModalities: gc.responseModalities ? gc.responseModalities.flatMap((m) => (MODALITIES[m] !== undefined ? [MODALITIES[m]] : [])) : [],
    responseLogprobs: gc.responseLogprobs ?? false,
    mediaResolution: MEDIA_RES[gc.mediaResolution ?? "MEDIA_RESOLUTION_UNSPECIFIED"] ?? MediaResolution.UNSPECIFIED,
    enableEnhancedCivicAnswers: gc.enableEnhancedCivicAnswers ?? false,
  };
  if (gc.maxOutputTokens !== undefined) init.maxOutputTokens = gc.maxOutputTokens;
  if (gc.temperature !== undefined) init.temperature = gc.temperature;
  if (gc.topP !== undefined) init.topP = gc.topP;
  if (gc.topK !== undefined) init.topK = gc.topK;
  if (gc.seed !== undefined) init.seed = BigInt(gc.seed);
  if (gc.presencePenalty !== undefined) init.presencePenalty = gc.presencePenalty;
  if (gc.frequencyPenalty !== undefined) init.frequencyPenalty = gc.frequencyPenalty;
  if (gc.candidateCount !== undefined) init.candidateCount = gc.candidateCount;
  if (schema) init.responseSchema = schema;
  if (gc.logprobs !== undefined) init.logprobs = gc.logprobs;
  if (thinking) init.thinking = thinking;
  if (gc.speechConfig) init.speechConfig = gc.speechConfig as JsonObject;
  if (gc.imageConfig) init.imageConfig = gc.imageConfig as JsonObject;
  return create(GenerationConfigSchema, init);
}

const enumName = (wireName: string, prefix: string) => (wireName.startsWith(prefix) ? wireName.slice(prefix.length) : wireName);

const knownSafety = (s: { category: string; threshold: string }) => KNOWN_CATEGORIES.has(s.category) && KNOWN_THRESHOLDS.has(s.threshold);

/** Safety settings of known categories and thresholds (the others reach Gemini as sent: requestExtras). */
export function toCoreSafety(list: wire.GenerateContentRequest["safetySettings"]): SafetySetting[] {
  return (list ?? []).filter(knownSafety).map((s) =>
    create(SafetySettingSchema, {
      category: HarmCategory[enumName(s.category, "HARM_CATEGORY_") as keyof typeof HarmCategory],
      threshold: HarmBlockThreshold[enumName(s.threshold, "HARM_BLOCK_THRESHOLD_") as keyof typeof HarmBlockThreshold],
    }),
  );
}

const TOOL_CONFIG_FIELDS = new Set(["functionCallingConfig"]);
const CALLING_FIELDS = new Set(["mode", "allowedFunctionNames"]);
const THINKING_FIELDS = new Set(["includeThoughts", "thinkingBudget", "thinkingLevel"]);
const SAFETY_FIELDS = new Set(["category", "threshold"]);
/** The generationConfig fields the neutral config maps (imageConfig and speechConfig whole). */
const MODELLED_CONFIG = new Set(Object.keys(generationConfig.shape));

/** What the client sent inside generationConfig that the neutral config cannot carry; undefined when nothing. */
function configExtras(gc: wire.GenerationConfig): JsonObject | undefined {
  let x = unknownFields(gc, MODELLED_CONFIG);
  const tc = gc.thinkingConfig;
  if (tc) {
    let t = unknownFields(tc, THINKING_FIELDS);
    if (tc.thinkingLevel !== undefined && !KNOWN_LEVELS.has(tc.thinkingLevel)) (t ??= {}).thinkingLevel = tc.thinkingLevel;
    if (t) (x ??= {}).thinkingConfig = t;
  }
  if (gc.mediaResolution !== undefined && !KNOWN_RESOLUTIONS.has(gc.mediaResolution)) (x ??= {}).mediaResolution = gc.mediaResolution;
  if (gc.responseModalities?.some((m) => !KNOWN_MODALITIES.has(m))) (x ??= {}).responseModalities = gc.responseModalities;
  return x;
}

/**
 * What Gemini should get beyond what the neutral model says: unknown request
 * fields (serviceTier, labels, newer ones), the tool settings beside the
 * calling mode (retrievalConfig...), and newer values under their own field
 * (a thinking level, a calling mode, a modality, safety settings with a
 * newer category, threshold or method: then all of them, as sent).
 * Undefined when there is nothing; a key walk of what the request sets.
 */
function requestExtras(req: wire.GenerateContentRequest): JsonObject | undefined {
  let x = unknownFields(req, MODELLED_REQUEST_FIELDS);
  const tc = req.toolConfig;
  if (tc) {
    let t = unknownFields(tc, TOOL_CONFIG_FIELDS);
    const fc = tc.functionCallingConfig;
    if (fc) {
      let f = unknownFields(fc, CALLING_FIELDS);
      if (fc.mode !== undefined && !KNOWN_MODES.has(fc.mode)) (f ??= {}).mode = fc.mode;
      if (f) (t ??= {}).functionCallingConfig = f;
    }
    if (t) (x ??= {}).toolConfig = t;
  }
  const gc = req.generationConfig ? configExtras(req.generationConfig) : undefined;
  if (gc) (x ??= {}).generationConfig = gc;
  if (req.safetySettings?.some((s) => !knownSafety(s) || unknownFields(s, SAFETY_FIELDS))) (x ??= {}).safetySettings = req.safetySettings as JsonObject[];
  return x;
}

/** What the response translation needs to know about the request. */
export interface ResponseOptions {
  includeThoughts: boolean;
}

export function responseOptions(req: Pick<wire.GenerateContentRequest, "generationConfig">): ResponseOptions {
  return { includeThoughts: req.generationConfig?.thinkingConfig?.includeThoughts === true };
}

export interface CoreRequest {
  input: ChatInput;
  /** Where each neutral part came from, for error fields (see originField). */
  origins: Origin[][];
}

/** The whole request; `model` comes from the path (without "models/"). */
export function toCoreRequest(req: wire.GenerateContentRequest, model: string, requireContents = true): CoreRequest {
  if (requireContents && req.contents.length === 0) throw invalidArgument("contents: contents is not specified", "contents");
  const tools = toCoreTools(req.tools);
  // The declared names matter only to a functionCallingConfig (and not when the tools may live in a cached content).
  const declared = req.toolConfig?.functionCallingConfig && !req.cachedContent ? new Set(tools.flatMap((t) => (t.kind.case === "function" ? [t.kind.value.name] : []))) : undefined;
  const toolChoice = toCoreToolChoice(req.toolConfig, declared);
  const config = toCoreConfig(req.generationConfig);
  const { turns, origins } = toCoreTurns(req.contents);
  // Set field by field: a conditional spread costs an object and a copy each.
  const init: MessageInitShape<typeof ChatInputSchema> = {
    model,
    system: toCoreSystem(req.systemInstruction),
    turns,
    tools,
    safetySettings: toCoreSafety(req.safetySettings),
    cachedContent: req.cachedContent ?? "",
    metadata: create(RequestMetadataSchema, { sourceFormat: SOURCE_FORMAT }),
  };
  if (toolChoice) init.toolChoice = toolChoice;
  if (config) init.config = config;
  const extras = requestExtras(req);
  if (extras) init.vendorExtras = { [GEMINI]: extras };
  const input = create(ChatInputSchema, init);
  // The core puts a cache's turns first, so its turn indexes no longer match.
  return { input, origins: req.cachedContent ? [] : origins };
}

export function toCoreChatInput(req: wire.GenerateContentRequest, model: string, requireContents = true): ChatInput {
  return toCoreRequest(req, model, requireContents).input;
}
