// Neutral ChatInput -> Gemini generateContent request. Pure.
//
// Signatures: a part's Gemini-issued signature goes back as its
// thoughtSignature; other issuers' signatures, thinking they signed and
// redacted thinking are dropped on purpose. Gemini wants the signature of a
// step on its first function call: one that came back on a thinking part
// moves there, and a function call of the current tool loop that has none
// (the step came from another vendor) gets Google's documented placeholder.
// What a GenAI client sent that the neutral model does not carry
// (vendor_extras.gemini on the input, its turns, parts and tools) is put back
// as it was sent. Custom tools (free-text input) are emulated:
// shared/custom-tools.ts. The neutral web search is googleSearch
// (web-search.ts).
import {
  CodeOutcome,
  HarmBlockThreshold,
  HarmCategory,
  MediaResolution,
  Modality,
  Role,
  ToolChoiceMode,
  type ChatInput,
  type Part,
  type Tool,
  type Turn,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { callArguments } from "../../core/chat/tool-calls.js";
import { customToolNames, emulatedDescription, emulatedParameters } from "../shared/custom-tools.js";
import { mediaBase64, refuseForeignExtras, toolResultText } from "../shared/parts.js";
import { unsupported } from "../shared/http-errors.js";
import { overlayFields } from "../../core/json-fields.js";
import { WEB_SEARCH_NAME } from "../../core/chat/web-search.js";
import { toGeminiJsonSchema, toGeminiSchema } from "./schema.js";
import { googleSearchTool, searchPlan, type SearchPlan } from "./web-search.js";
import type * as wire from "./wire.js";

export const VENDOR = "gemini";
/** The source format of a GenAI client's request: its own request goes as sent. */
const GENAI_FORMAT = "generate-content";
/** Google's documented stand-in for a function call whose signature another model never produced. */
export const SKIP_SIGNATURE = "skip_thought_signature_validator";
const BUILTIN = new Set(["googleSearch", "googleSearchRetrieval", "urlContext", "computerUse", "fileSearch", "googleMaps", "retrieval", "enterpriseWebSearch", "codeExecution"]);
const OUTCOME: Record<CodeOutcome, string> = {
  [CodeOutcome.UNSPECIFIED]: "OUTCOME_UNSPECIFIED",
  [CodeOutcome.OK]: "OUTCOME_OK",
  [CodeOutcome.FAILED]: "OUTCOME_FAILED",
  [CodeOutcome.DEADLINE_EXCEEDED]: "OUTCOME_DEADLINE_EXCEEDED",
};

const refuse = (field: string, what: string) => unsupported(VENDOR, field, what);

/**
 * Gemini has no system role inside contents: a system turn (a system message
 * in the middle of a conversation) becomes a user turn at its place whose
 * texts are marked as system instructions.
 */
export const systemInstructionText = (text: string): string => `<system_instruction>\n${text}\n</system_instruction>`;
const ownSig = (p: Part) => (p.signature?.issuer === VENDOR && p.signature.value ? p.signature.value : undefined);

function dataPart(p: Part, field: string, resultName = ""): wire.Part | undefined {
  const k = p.kind;
  switch (k.case) {
    case "text":
      return { text: k.value.text };
    case "thinking":
      // Thoughts another vendor signed cannot be verified here.
      if (p.signature && p.signature.issuer !== VENDOR) return undefined;
      return { text: k.value.text, thought: true };
    case "media": {
      const m = k.value;
      if (m.source.case === "uri") {
        if (/^https:\/\/generativelanguage\.googleapis\.com\//.test(m.source.value) || m.source.value.startsWith("gs://")) return { fileData: { mimeType: m.mimeType, fileUri: m.source.value } };
        throw refuse(`${field}.media`, "media by URL (send the bytes inline)");
      }
      return { inlineData: { mimeType: m.mimeType, data: mediaBase64(m) } };
    }
    case "toolCall":
      return { functionCall: { ...(k.value.id ? { id: k.value.id } : {}), name: k.value.name, args: callArguments(k.value) as Record<string, unknown> } };
    case "toolResult": {
      const r = k.value;
      const text = toolResultText(r.content);
      const response = (r.structured as Record<string, unknown> | undefined) ?? (r.isError ? { error: text } : { output: text });
      return { functionResponse: { ...(r.callId ? { id: r.callId } : {}), name: r.name || resultName, response } };
    }
    case "executableCode":
      return { executableCode: { language: k.value.language || "PYTHON", code: k.value.code } };
    case "codeExecutionResult":
      return { codeExecutionResult: { outcome: OUTCOME[k.value.outcome] ?? "OUTCOME_UNSPECIFIED", ...(k.value.output ? { output: k.value.output } : {}) } };
    case "webSearchCall":
      // Contents have no part for a search: Gemini grounds each answer afresh.
      return undefined;
    default: {
      // A part of a kind the gateway does not know that a GenAI client sent: whole, as it came.
      const x = p.vendorExtras[VENDOR];
      return x ? ({ ...x } as wire.Part) : undefined;
    }
  }
}

/** The name of each tool call in the conversation, by id (tool results from other formats may lack it). */
function callNames(turns: Turn[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const t of turns) for (const p of t.parts) if (p.kind.case === "toolCall") names.set(p.kind.value.id, p.kind.value.name);
  return names;
}

function contentOf(t: Turn, ti: number, names: Map<string, string>, currentLoop: boolean): wire.Content | undefined {
  const model = t.role === Role.ASSISTANT;
  const system = t.role === Role.SYSTEM;
  const parts: wire.Part[] = [];
  let carried: string | undefined;
  let firstCall = true;
  t.parts.forEach((p, pi) => {
    const field = `turns[${ti}].parts[${pi}]`;
    const k = p.kind;
    let resultName = "";
    if (k.case === "toolResult" && !k.value.name) {
      resultName = names.get(k.value.callId) ?? "";
      if (!resultName) throw refuse(`${field}.tool_result.name`, "a tool result whose tool call is not in the conversation");
    }
    const wp = dataPart(p, field, resultName);
    // A part's Gemini fields the neutral kind does not name (a media part's videoMetadata, newer fields), as the client sent them.
    const x = k.case === undefined ? undefined : p.vendorExtras[VENDOR];
    if (x && wp) overlayFields(wp as Record<string, unknown>, x);
    if (system && wp && typeof wp.text === "string" && !wp.thought) wp.text = systemInstructionText(wp.text);
    const sig = ownSig(p);
    if (k.case === "thinking" && sig && wp) {
      // A step's signature travels on its first function call; keep it for the call that follows.
      const next = t.parts.slice(pi + 1).find((q) => q.kind.case !== "thinking");
      if (next?.kind.case === "toolCall" && !ownSig(next)) {
        carried = sig;
        if (wp.text) parts.push(wp);
        return;
      }
    }
    if (!wp) return;
    const s = sig ?? (k.case === "toolCall" ? carried : undefined);
    if (k.case === "toolCall") carried = undefined;
    if (s) wp.thoughtSignature = s;
    else if (k.case === "toolCall" && model && firstCall && currentLoop) wp.thoughtSignature = SKIP_SIGNATURE;
    if (k.case === "toolCall") firstCall = false;
    parts.push(wp);
  });
  // Tool results' media follows as parts of the same turn (emulated: functionResponse carries JSON).
  t.parts.forEach((p, pi) => {
    if (p.kind.case !== "toolResult") return;
    p.kind.value.content.forEach((c, ci) => {
      if (c.kind.case === "media") {
        const wp = dataPart(c, `turns[${ti}].parts[${pi}].tool_result.content[${ci}]`);
        if (wp) parts.push(wp);
      }
    });
  });
  if (!parts.length) return undefined;
  // A Content's own fields the turn does not name, as the client sent them.
  const x = t.vendorExtras[VENDOR];
  return x ? { ...x, role: model ? "model" : "user", parts } : { role: model ? "model" : "user", parts };
}

/** Index of the first turn of the current tool loop (after the last user turn that is not only tool results). */
function currentLoopStart(turns: Turn[]): number {
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i]!;
    // A system turn in the middle of a loop does not end it.
    if (t.role === Role.USER && t.parts.some((p) => p.kind.case !== "toolResult")) return i + 1;
  }
  return 0;
}

/** The tools as Gemini takes them, and how many functions they declare; `search` says whether the web search goes and whether it goes alone. */
function toTools(tools: Tool[], search: SearchPlan): { tools: wire.Tool[]; functions: number } {
  const decls: wire.FunctionDeclaration[] = [];
  const others: wire.Tool[] = [];
  tools.forEach((t, i) => {
    const k = t.kind;
    // A choice that forces the search allows no function.
    if (search === "only" && (k.case === "function" || k.case === "custom")) return;
    if (k.case === "function") {
      const params = k.value.parameters;
      // A GenAI client's own declaration fields (behavior, response, newer ones), as it sent them.
      const d: wire.FunctionDeclaration = { ...t.vendorExtras[VENDOR], name: k.value.name, ...(k.value.description ? { description: k.value.description } : {}) };
      // An empty object schema is "no parameters" (what a declaration without them means).
      const empty = params && params.type === "object" && Object.keys(params).length <= 2 && (!params.properties || Object.keys(params.properties as object).length === 0);
      if (params && !empty) {
        const s = toGeminiSchema(params);
        if (s) d.parameters = s;
        else d.parametersJsonSchema = toGeminiJsonSchema(params);
      }
      decls.push(d);
    } else if (k.case === "custom") {
      // Emulated: a function with one string parameter, "input".
      const params = emulatedParameters(k.value);
      const schema = toGeminiSchema(params);
      decls.push({ ...t.vendorExtras[VENDOR], name: k.value.name, description: emulatedDescription(k.value), ...(schema ? { parameters: schema } : { parametersJsonSchema: params }) });
    } else if (k.case === "codeExecution") others.push({ codeExecution: {} });
    else if (k.case === "webSearch" && (search === "with" || search === "only")) others.push(googleSearchTool(k.value, t.vendorExtras[VENDOR]));
    else if (k.case === "vendor") {
      // Gemini's own (a GenAI client's, any kind), or one of its built-ins by name.
      if (k.value.vendor ? k.value.vendor !== VENDOR : !BUILTIN.has(k.value.type)) throw refuse(`tools[${i}]`, `the ${k.value.type} tool`);
      others.push({ [k.value.type]: k.value.config ?? {} });
    }
  });
  return { tools: [...(decls.length ? [{ functionDeclarations: decls }] : []), ...others], functions: decls.length };
}

const MODE: Record<ToolChoiceMode, string | undefined> = {
  [ToolChoiceMode.UNSPECIFIED]: undefined,
  [ToolChoiceMode.AUTO]: "AUTO",
  [ToolChoiceMode.ANY]: "ANY",
  [ToolChoiceMode.NONE]: "NONE",
};

const MODALITY: Partial<Record<Modality, string>> = { [Modality.TEXT]: "TEXT", [Modality.IMAGE]: "IMAGE", [Modality.AUDIO]: "AUDIO", [Modality.VIDEO]: "VIDEO" };
const RESOLUTION: Record<MediaResolution, string | undefined> = {
  [MediaResolution.UNSPECIFIED]: undefined,
  [MediaResolution.LOW]: "MEDIA_RESOLUTION_LOW",
  [MediaResolution.MEDIUM]: "MEDIA_RESOLUTION_MEDIUM",
  [MediaResolution.HIGH]: "MEDIA_RESOLUTION_HIGH",
};

function generationConfig(input: ChatInput): wire.GenerationConfig | undefined {
  const c = input.config;
  if (!c) return undefined;
  if (c.stopSequences.length > 5) throw refuse("config.stop_sequences", "more than 5 stop sequences");
  const g: wire.GenerationConfig = {};
  if (c.stopSequences.length) g.stopSequences = c.stopSequences;
  if (c.responseMimeType) g.responseMimeType = c.responseMimeType;
  if (c.responseSchema) {
    const s = toGeminiSchema(c.responseSchema);
    if (s) g.responseSchema = s;
    else g.responseJsonSchema = toGeminiJsonSchema(c.responseSchema);
  }
  if (c.responseModalities.length) g.responseModalities = c.responseModalities.flatMap((m) => (MODALITY[m] ? [MODALITY[m]!] : []));
  if (c.candidateCount !== undefined) g.candidateCount = c.candidateCount;
  if (c.maxOutputTokens !== undefined) g.maxOutputTokens = c.maxOutputTokens;
  if (c.temperature !== undefined) g.temperature = c.temperature;
  if (c.topP !== undefined) g.topP = c.topP;
  if (c.topK !== undefined) g.topK = c.topK;
  if (c.seed !== undefined) g.seed = Number(c.seed);
  if (c.presencePenalty !== undefined) g.presencePenalty = c.presencePenalty;
  if (c.frequencyPenalty !== undefined) g.frequencyPenalty = c.frequencyPenalty;
  if (c.responseLogprobs) g.responseLogprobs = true;
  if (c.logprobs !== undefined) g.logprobs = c.logprobs;
  if (c.enableEnhancedCivicAnswers) g.enableEnhancedCivicAnswers = true;
  if (c.speechConfig) g.speechConfig = c.speechConfig;
  if (c.imageConfig) g.imageConfig = c.imageConfig;
  const res = RESOLUTION[c.mediaResolution];
  if (res) g.mediaResolution = res;
  const th = c.thinking;
  if (th) {
    const tc: NonNullable<wire.GenerationConfig["thinkingConfig"]> = {};
    if (th.includeThoughts) tc.includeThoughts = true;
    if (th.enabled === false) tc.thinkingBudget = 0;
    else if (th.budgetTokens !== undefined) tc.thinkingBudget = th.budgetTokens;
    else if (th.enabled === true && !th.effort) tc.thinkingBudget = -1;
    // Gemini's levels stop at HIGH.
    if (th.effort) tc.thinkingLevel = (th.effort === "max" || th.effort === "xhigh" ? "high" : th.effort).toUpperCase();
    if (Object.keys(tc).length) g.thinkingConfig = tc;
  }
  return Object.keys(g).length ? g : undefined;
}

export interface GeminiPlan {
  /** The client asked for at most one tool call per answer (Gemini has no such switch: extra calls are dropped). */
  singleCall: boolean;
  /** Names of the emulated custom tools: their calls come back with free-text input. */
  customTools: ReadonlySet<string>;
}

export function toVendorRequest(input: ChatInput): { body: wire.GenerateContentRequest; plan: GeminiPlan } {
  refuseForeignExtras(input.vendorExtras, VENDOR);
  const names = callNames(input.turns);
  const loop = currentLoopStart(input.turns);
  const contents = input.turns.flatMap((t, ti) => {
    const c = contentOf(t, ti, names, ti >= loop);
    return c ? [c] : [];
  });
  const body: wire.GenerateContentRequest = { contents };
  const system = input.system.flatMap((p): wire.Part[] => {
    const x = p.vendorExtras[VENDOR];
    if (p.kind.case === "text") return [x ? { ...x, text: p.kind.value.text } : { text: p.kind.value.text }];
    // A part of a kind the gateway does not know that a GenAI client sent: whole, as it came.
    return x && p.kind.case === undefined ? [{ ...x } as wire.Part] : [];
  });
  if (system.length) body.systemInstruction = { parts: system };
  const own = input.metadata?.sourceFormat === GENAI_FORMAT;
  const search = searchPlan(input, own);
  const { tools, functions } = toTools(input.tools, search);
  if (tools.length) body.tools = tools;
  const tc = input.toolChoice;
  // The search is no function (Gemini decides itself when to ground), and Gemini refuses a calling mode without functions: a GenAI client's own choice goes as sent.
  const mode = tc && (functions > 0 || own) ? MODE[tc.mode] : undefined;
  const allowed = tc && (functions > 0 || own) ? (search === "none" ? tc.allowedNames : tc.allowedNames.filter((n) => n !== WEB_SEARCH_NAME)) : [];
  if (tc && (mode || allowed.length)) {
    body.toolConfig = { functionCallingConfig: { ...(mode ? { mode } : {}), ...(allowed.length ? { allowedFunctionNames: allowed } : {}) } };
  }
  if (input.safetySettings.length) {
    body.safetySettings = input.safetySettings.map((s) => ({
      category: `HARM_CATEGORY_${HarmCategory[s.category]}`,
      threshold: s.threshold === HarmBlockThreshold.UNSPECIFIED ? "HARM_BLOCK_THRESHOLD_UNSPECIFIED" : HarmBlockThreshold[s.threshold],
    }));
  }
  const g = generationConfig(input);
  if (g) body.generationConfig = g;
  // The client's own fields: unknown ones, its tool settings beside the calling mode, values the neutral model could not carry.
  const ve = input.vendorExtras[VENDOR];
  if (ve) overlayFields(body as Record<string, unknown>, ve);
  return { body, plan: { singleCall: !!tc?.disableParallel, customTools: customToolNames(input.tools) } };
}
